package analyzer

import (
	"context"
	"regexp"
	"time"
)

// Action is what the analyzer thinks a turn does to the patient context.
// The session turns it into a decision (NEW_BLANK, NEEDS_PATIENT_ID...)
// using the registry.
type Action string

const (
	ActionNone           Action = "NONE"
	ActionActivateNew    Action = "ACTIVATE_NEW"
	ActionSwitchExisting Action = "SWITCH_EXISTING"
	ActionUnchanged      Action = "UNCHANGED"
	ActionClear          Action = "CLEAR"
)

// Actions lists every action, in the order the LLM prompt and schema give them.
var Actions = []Action{ActionNone, ActionActivateNew, ActionSwitchExisting, ActionUnchanged, ActionClear}

// DefaultPatientIDPattern is used when AnalyzerInput.Pattern is nil.
var DefaultPatientIDPattern = regexp.MustCompile(`^patient_[0-9]+$`)

// Decision sources.
const (
	SourceRules    = "rules"
	SourceLLM      = "llm"
	SourceFallback = "fallback"
)

type AnalyzerInput struct {
	Text          string
	ActivePatient string
	Roster        []string
	// Patients are the roster's patients as a trainee may name them, in order of arrival; nil
	// when only the IDs are known.
	Patients []Patient
	Pattern  *regexp.Regexp // PATIENT_ID_PATTERN; nil means DefaultPatientIDPattern
}

type Decision struct {
	Action    Action
	PatientID string // a pattern-valid ID, or "" (activation with no valid ID means NEEDS_PATIENT_ID)
	Reasoning string
	Source    string // rules | llm | fallback
	Elapsed   time.Duration
	// Candidates are the patients a reference could mean when it named more than one: the
	// trainee is asked which.
	Candidates []string
	// Invalid is what the text meant as an ID when it is not a valid one ("patient_1a"), so the
	// trainee can be told why no patient was found.
	Invalid string
}

// Analyzer decides a turn's Action. It never fails: every error ends in a
// rules decision that says so.
type Analyzer interface {
	Analyze(ctx context.Context, in AnalyzerInput) Decision
	// Immediate decides at once, with no I/O, when it can; ok is false when only Analyze can
	// decide (it would ask a model). The session uses it to store a turn in one commit when no
	// model call stands between the typed text and the registry's decision.
	Immediate(in AnalyzerInput) (d Decision, ok bool)
}

// NewAnalyzer returns the default analyzer: the rules decide when they are
// sure, and llm (nil when no model is available) is asked otherwise.
func NewAnalyzer(llm *LLMAnalyzer) Analyzer {
	return combinedAnalyzer{llm: llm}
}

type combinedAnalyzer struct {
	llm *LLMAnalyzer
}

func (c combinedAnalyzer) Immediate(in AnalyzerInput) (Decision, bool) {
	d, sure := RulesAnalyzer{}.Decide(in)
	return d, sure || c.llm == nil
}

func (c combinedAnalyzer) Analyze(ctx context.Context, in AnalyzerInput) Decision {
	start := time.Now()
	d, sure := RulesAnalyzer{}.Decide(in)
	if !sure && c.llm != nil {
		d = c.llm.Analyze(ctx, in)
	}
	d.Elapsed = time.Since(start)
	return d
}

func (in AnalyzerInput) pattern() *regexp.Regexp {
	if in.Pattern == nil {
		return DefaultPatientIDPattern
	}
	return in.Pattern
}

// baseAction is what a turn that says nothing about patients means.
func (in AnalyzerInput) baseAction() Action {
	if in.ActivePatient != "" {
		return ActionUnchanged
	}
	return ActionNone
}
