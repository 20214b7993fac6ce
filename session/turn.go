package session

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/persist"
)

// turn carries one input line through the pipeline and accumulates its timing.
type turn struct {
	input    string
	emit     func(Event)
	started  time.Time
	timing   Timing
	decision Decision
}

func (t *turn) storage(fn func() error) error {
	t0 := time.Now()
	err := fn()
	t.timing.StorageMS = math.Round((t.timing.StorageMS+msSince(t0))*1e3) / 1e3
	return err
}

// msSince is elapsed milliseconds, rounded to the microsecond the events report.
func msSince(t0 time.Time) float64 {
	return math.Round(float64(time.Since(t0).Nanoseconds())/1e3) / 1e3
}

// Turn runs one line the user typed. Every call ends with exactly one TurnEndEvent; failures are
// reported as ErrorEvents and never lose the typed text once it was stored.
func (s *Session) Turn(ctx context.Context, text string, emit func(Event)) {
	t := &turn{input: text, emit: emit, started: time.Now()}
	defer func() { s.endTurn(t) }()
	if strings.HasPrefix(strings.TrimSpace(text), "/") {
		s.command(ctx, t, strings.TrimSpace(text))
		return
	}
	reg, ok := s.hydrate(t)
	if !ok {
		return
	}
	restored := s.restoreFromRegistry(t, reg)
	if !s.store(t, s.active, s.userMessage(text)) {
		return
	}
	if agents.IsClearPhrase(text) {
		s.clear(t, agents.Decision{Action: agents.ActionClear, Source: "rules", Reasoning: "exact clear phrase"})
		return
	}
	s.decide(ctx, t, reg, restored)
}

// hydrate reads the registry, the source of truth for who is active and who is on the roster.
func (s *Session) hydrate(t *turn) (persist.Registry, bool) {
	var reg persist.Registry
	err := t.storage(func() (err error) { reg, err = s.registry(); return err })
	if err != nil {
		t.emit(ErrorEvent{Code: "STORAGE", Message: "could not read the registry: " + err.Error()})
		return reg, false
	}
	return reg, true
}

// restoreFromRegistry silently revives the registry's active patient when memory has none, as
// after a restart. It reports whether it did.
func (s *Session) restoreFromRegistry(t *turn, reg persist.Registry) bool {
	if s.active != "" || reg.ActivePatientID == "" {
		return false
	}
	if err := t.storage(func() error { return s.loadHistory(reg.ActivePatientID) }); err != nil {
		t.emit(ErrorEvent{Code: "STORAGE", Message: "could not load " + reg.ActivePatientID + ": " + err.Error()})
		return false
	}
	s.active = reg.ActivePatientID
	return true
}

func (s *Session) userMessage(text string) persist.Message {
	return persist.Message{Role: "user", Content: text, At: s.cfg.Now().UTC()}
}

// store appends messages to a patient's history ("" for the session) and keeps memory in step.
func (s *Session) store(t *turn, patientID string, msgs ...persist.Message) bool {
	err := t.storage(func() error {
		return s.cfg.Store.Update(s.info.ID, func(tx *persist.Tx) error { return tx.Append(patientID, msgs...) })
	})
	if err != nil {
		t.emit(ErrorEvent{Code: "STORAGE", Message: "could not save the message: " + err.Error()})
		return false
	}
	if patientID == s.active {
		s.remember(msgs...)
	}
	return true
}

// decide runs the analyzer, applies its proposal and, when the turn stays clinical, answers it.
func (s *Session) decide(ctx context.Context, t *turn, reg persist.Registry, restored bool) {
	t0 := time.Now()
	d := s.analyzeText(ctx, t.input, rosterIDs(reg))
	t.timing.AnalyzerMS = msSince(t0)
	if s.apply(t, reg, restored, d) {
		s.respond(ctx, t)
	}
}

// apply lets the registry settle the analyzer's proposal: the ID must match the pattern, and the
// registry alone decides new versus existing. It reports whether the turn should go on.
func (s *Session) apply(t *turn, reg persist.Registry, restored bool, d agents.Decision) bool {
	decision, id := resolve(d, contextState{
		active: s.active, restored: restored, pattern: s.cfg.Pattern,
		known: func(id string) bool { _, ok := reg.Patients[id]; return ok },
	})
	switch decision {
	case DecisionClear:
		s.clear(t, d)
		return false
	case DecisionNeedsPatientID:
		s.reportDecision(t, decision, d, "")
		t.emit(ErrorEvent{Code: string(DecisionNeedsPatientID), Message: s.needsIDMessage()})
		return false
	case DecisionNewBlank, DecisionSwitchExisting:
		if !s.activate(t, reg, id, decision == DecisionNewBlank) {
			return false
		}
	}
	s.reportDecision(t, decision, d, s.active)
	return true
}

// Switch makes a patient active without asking the analyzer: the keyboard path. It goes through
// the same registry logic as a typed switch and ends with one TurnEndEvent.
func (s *Session) Switch(id string, emit func(Event)) {
	t := &turn{input: "/switch " + id, emit: emit, started: time.Now()}
	defer func() { s.endTurn(t) }()
	s.switchTo(t, id, "keyboard switch")
}

func (s *Session) switchTo(t *turn, id, reason string) {
	reg, ok := s.hydrate(t)
	if !ok {
		return
	}
	restored := s.restoreFromRegistry(t, reg)
	s.apply(t, reg, restored, agents.Decision{
		Action: agents.ActionSwitchExisting, PatientID: id, Source: "rules", Reasoning: reason,
	})
}

// analyzeText settles two kinds of text before the analyzer sees them: a typed snapshot line is
// ordinary text and must not steer the registry, and a roster question changes no context.
func (s *Session) analyzeText(ctx context.Context, text string, roster []string) agents.Decision {
	var why string
	switch {
	case strings.HasPrefix(strings.TrimSpace(text), SnapshotPrefix):
		why = "text that looks like a context snapshot is stored as plain user text"
	case agents.IsRosterQuestion(text):
		why = "roster question, answered from the registry"
	default:
		return s.analyze(ctx, text, roster)
	}
	action := agents.ActionUnchanged
	if s.active == "" {
		action = agents.ActionNone
	}
	return agents.Decision{Action: action, Source: "rules", Reasoning: why}
}

func (s *Session) needsIDMessage() string {
	examples := agents.ExampleIDs(s.cfg.Pattern)
	if len(examples) == 0 {
		return fmt.Sprintf("Which patient? Give an ID that matches %s.", s.cfg.Pattern)
	}
	return fmt.Sprintf("Which patient? Give an ID such as %s (pattern %s).", strings.Join(examples, " or "), s.cfg.Pattern)
}

func (s *Session) reportDecision(t *turn, decision Decision, d agents.Decision, patientID string) {
	t.decision = decision
	t.timing.ServiceMS = msSince(t.started)
	t.emit(DecisionEvent{
		Input: t.input, Decision: string(decision), AnalyzerAction: string(d.Action),
		PatientID: patientID, Source: d.Source, Reasoning: d.Reasoning, Timing: t.timing,
	})
}

// activate points the registry at id, registering it first when it is new. A change of patient
// starts from that patient's own history only.
func (s *Session) activate(t *turn, reg persist.Registry, id string, isNew bool) bool {
	now := s.cfg.Now().UTC()
	err := t.storage(func() error {
		return s.cfg.Store.Update(s.info.ID, func(tx *persist.Tx) error {
			entry, ok := reg.Patients[id]
			if !ok {
				entry = persist.PatientEntry{PatientID: id, Facts: map[string]any{}, CreatedAt: now}
			}
			entry.UpdatedAt = now
			if reg.Patients == nil {
				reg.Patients = map[string]persist.PatientEntry{}
			}
			reg.Patients[id] = entry
			reg.ActivePatientID = id
			return tx.PutRegistry(reg)
		})
	})
	if err == nil {
		err = t.storage(func() error { return s.loadHistory(id) })
	}
	if err != nil {
		t.emit(ErrorEvent{Code: "STORAGE", Message: "could not switch to " + id + ": " + err.Error()})
		return false
	}
	s.active = id
	return true
}

func (s *Session) endTurn(t *turn) {
	reg, _ := s.registry()
	ids := rosterIDs(reg)
	t.emit(TurnEndEvent{
		Input: t.input, Decision: string(t.decision), ActivePatient: nullable(s.active),
		Roster: ids, Footer: footer(s.info.ID, s.active, ids), Timing: t.timing,
	})
}

// footer is the PT_CTX audit line: shown to the user, never stored and never sent to a model.
func footer(sessionID, active string, roster []string) string {
	if active == "" {
		active = "none"
	}
	return fmt.Sprintf("PT_CTX session=%s active=%s roster=[%s]", sessionID, active, strings.Join(roster, ","))
}
