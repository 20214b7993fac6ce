package agents

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// EvalAnalyzer runs every labelled patient-context case through a and
// checks the action and patient ID. A decision that fell back to the rules
// (source "fallback") fails, because it means the model gave no usable
// answer. Report.Backend lists the decision sources seen: "rules" for the
// offline harness check, "llm" (and "fallback") for a model; the caller may
// set Report.Model.
func EvalAnalyzer(ctx context.Context, a Analyzer) Report {
	r := Report{Suite: "analyzer"}
	var sources []string
	for _, c := range analyzerCases {
		d := a.Analyze(ctx, c.input())
		if !slices.Contains(sources, d.Source) {
			sources = append(sources, d.Source)
		}
		r.record(c.name, c.category, c.check(d), fmt.Sprintf("%s %q (%s): %s", d.Action, d.PatientID, d.Source, d.Reasoning))
	}
	r.Backend = strings.Join(sources, "+")
	return r
}

// analyzerCase is one labelled message: the registry's state, what the
// trainee typed, and the decision a careful reader would make.
type analyzerCase struct {
	name, category string
	text, active   string
	roster         []string
	pattern        string // PATIENT_ID_PATTERN; "" is the default
	action         Action
	id             string
}

func (c analyzerCase) input() AnalyzerInput {
	in := AnalyzerInput{Text: c.text, ActivePatient: c.active, Roster: c.roster}
	if c.pattern != "" {
		in.Pattern = regexp.MustCompile(c.pattern)
	}
	return in
}

func (c analyzerCase) check(d Decision) string {
	var reasons []string
	if d.Source == SourceFallback {
		reasons = append(reasons, "the model gave no usable answer")
	}
	if d.Action != c.action || d.PatientID != c.id {
		reasons = append(reasons, fmt.Sprintf("want %s %q, got %s %q", c.action, c.id, d.Action, d.PatientID))
	}
	return strings.Join(reasons, "; ")
}

// evalMRNPattern is a site's own PATIENT_ID_PATTERN, to check that nothing
// assumes the default form.
const evalMRNPattern = `^MRN[0-9]{7}$`

var (
	evalTwoPatients = []string{"patient_15", "patient_4"}
	evalMRNRoster   = []string{"MRN1234567", "MRN7654321"}
)

var analyzerCases = []analyzerCase{
	// The seed's walkthrough.
	{"walkthrough review", "walkthrough", "review patient_4", "", nil, "", ActionActivateNew, "patient_4"},
	{"walkthrough proceed", "walkthrough", "yes proceed", "patient_4", []string{"patient_4"}, "", ActionUnchanged, "patient_4"},
	{"walkthrough switch to new", "walkthrough", "switch to patient_15", "patient_4", []string{"patient_4"}, "", ActionActivateNew, "patient_15"},
	{"walkthrough clear", "walkthrough", "clear patient context", "patient_15", evalTwoPatients, "", ActionClear, ""},

	// A valid ID not in the roster starts a new patient.
	{"start with", "activate", "let's start with patient_7", "", nil, "", ActionActivateNew, "patient_7"},
	{"admit while busy", "activate", "admit patient_12 please", "patient_4", []string{"patient_4"}, "", ActionActivateNew, "patient_12"},
	{"id spelled out", "activate", "open patient id patient_9", "", nil, "", ActionActivateNew, "patient_9"},
	{"start review", "activate", "start review for patient_4", "", nil, "", ActionActivateNew, "patient_4"},
	{"spaced id", "activate", "now look at patient 21", "patient_4", []string{"patient_4"}, "", ActionActivateNew, "patient_21"},

	// A roster ID other than the active one is a switch.
	{"switch known", "switch", "switch to patient_4", "patient_15", evalTwoPatients, "", ActionSwitchExisting, "patient_4"},
	{"back to known", "switch", "back to patient_15", "patient_4", evalTwoPatients, "", ActionSwitchExisting, "patient_15"},
	{"pt alias", "switch", "go to pt 15", "patient_4", evalTwoPatients, "", ActionSwitchExisting, "patient_15"},
	{"capitalised", "switch", "Patient_15 now", "patient_4", evalTwoPatients, "", ActionSwitchExisting, "patient_15"},
	{"hash alias", "switch", "pt#15", "patient_4", evalTwoPatients, "", ActionSwitchExisting, "patient_15"},
	{"punctuated", "switch", "Switch to Patient 15.", "patient_4", evalTwoPatients, "", ActionSwitchExisting, "patient_15"},
	{"question about another", "switch", "how is patient 4 doing?", "patient_15", evalTwoPatients, "", ActionSwitchExisting, "patient_4"},

	// Bedside work carries on with the active patient.
	{"short ok", "unchanged", "ok", "patient_4", evalTwoPatients, "", ActionUnchanged, "patient_4"},
	{"medication", "unchanged", "give 0.5 mg epinephrine IM", "patient_4", evalTwoPatients, "", ActionUnchanged, "patient_4"},
	{"compound action", "unchanged", "applying oxygen 15 L via non-rebreather and checking her vitals", "patient_4", evalTwoPatients, "", ActionUnchanged, "patient_4"},
	{"allergy question", "unchanged", "any allergies?", "patient_4", evalTwoPatients, "", ActionUnchanged, "patient_4"},
	{"active named", "unchanged", "review patient_4 again", "patient_4", evalTwoPatients, "", ActionUnchanged, "patient_4"},
	{"back to active", "unchanged", "back to patient_4", "patient_4", evalTwoPatients, "", ActionUnchanged, "patient_4"},
	{"diagnosis question", "unchanged", "what's the diagnosis?", "patient_4", evalTwoPatients, "", ActionUnchanged, "patient_4"},
	{"roster question", "unchanged", "which patients have we discussed?", "patient_4", evalTwoPatients, "", ActionUnchanged, "patient_4"},

	// Clinical "clear" is not a context clear.
	{"airway suction", "clinical_clear", "clear the airway with suction", "patient_4", evalTwoPatients, "", ActionUnchanged, "patient_4"},
	{"patient's airway", "clinical_clear", "clear the patient's airway", "patient_4", evalTwoPatients, "", ActionUnchanged, "patient_4"},

	// Nothing active and nothing named.
	{"short none", "none", "ok", "", nil, "", ActionNone, ""},
	{"greeting", "none", "hello", "", nil, "", ActionNone, ""},
	{"shift question", "none", "what should I do first on this shift?", "", nil, "", ActionNone, ""},
	{"who is active", "none", "who is active?", "", evalTwoPatients, "", ActionNone, ""},
	{"empty", "none", "", "", nil, "", ActionNone, ""},

	// Clearing the context.
	{"shouted clear", "clear", "  CLEAR ", "patient_4", evalTwoPatients, "", ActionClear, ""},
	{"clear context", "clear", "Clear Context", "patient_4", evalTwoPatients, "", ActionClear, ""},
	{"reset context", "clear", "please reset the patient context", "patient_4", evalTwoPatients, "", ActionClear, ""},
	{"wipe patients", "clear", "wipe all patients", "patient_4", evalTwoPatients, "", ActionClear, ""},
	{"clear patient none active", "clear", "clear patient", "", nil, "", ActionClear, ""},

	// Asking for a patient without a valid ID: the session asks for one.
	{"switch without id", "needs_id", "switch patient please", "patient_4", evalTwoPatients, "", ActionActivateNew, ""},
	{"review without id", "needs_id", "review the patient", "", nil, "", ActionActivateNew, ""},
	{"next patient", "needs_id", "let's see the next patient", "patient_4", evalTwoPatients, "", ActionActivateNew, ""},
	{"invalid id", "needs_id", "review patient_4a", "", nil, "", ActionActivateNew, ""},

	// A custom PATIENT_ID_PATTERN.
	{"mrn new", "custom_pattern", "review MRN1234567", "", nil, evalMRNPattern, ActionActivateNew, "MRN1234567"},
	{"mrn spaced switch", "custom_pattern", "switch to mrn 7654321", "MRN1234567", evalMRNRoster, evalMRNPattern, ActionSwitchExisting, "MRN7654321"},
	{"mrn wrong form", "custom_pattern", "review patient_4", "", nil, evalMRNPattern, ActionActivateNew, ""},
	{"mrn active named", "custom_pattern", "MRN1234567", "MRN1234567", evalMRNRoster, evalMRNPattern, ActionUnchanged, "MRN1234567"},
	{"mrn bedside", "custom_pattern", "give oxygen by nasal cannula at 2 L", "MRN1234567", evalMRNRoster, evalMRNPattern, ActionUnchanged, "MRN1234567"},
}
