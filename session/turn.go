package session

import (
	"context"
	"fmt"
	"maps"
	"math"
	"strings"
	"time"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session/physio"
)

// turn carries one input line through the pipeline and accumulates its timing.
type turn struct {
	input         string
	emit          func(Event)
	started       time.Time
	timing        Timing
	decision      Decision
	userAt        time.Time       // when the user's text was stored, to tell it from earlier messages
	admitted      *physio.Engine  // the patient this turn admitted, announced after the decision
	scenario      string          // the scenario /admit asked for, "" to pick one
	effect        string          // a slash command's engine effect (effectVitals, effectAAR)
	retry         bool            // answering again: the engine already applied the text's actions
	pending       *memory.Message // the typed text until a commit takes it; see settleContext
	pendingTo     string          // whose history it goes to: the patient active when it was typed
	calls         []CallRecord    // the turn's LLM calls, for the inspector
	decisionEvent *DecisionEvent  // the turn's decision, for the inspector
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
	if s.settleContext(ctx, t) {
		s.respond(ctx, t)
	}
}

// settleContext is a turn's patient-context machinery, before any agent speaks: restore, store
// the typed text, the clear check, the analyzer and the registry's decision. It reports whether
// the turn goes on to the agents.
//
// The typed text is durable before anything that could fail or wait: when the analyzer decides
// at once (the rules, no model), the text is written in the same commit as the registry's
// decision; when a model must be asked, it is written first.
func (s *Session) settleContext(ctx context.Context, t *turn) bool {
	reg := s.hydrate()
	restored := s.restoreFromRegistry(t, reg)
	if line := strings.TrimSpace(t.input); strings.HasPrefix(line, "/") {
		s.command(ctx, t, line) // a command acts on the restored patient, silently
		return false
	}
	user := s.userMessage(t.input)
	t.pending, t.pendingTo, t.userAt = &user, s.active, user.At
	if agents.IsClearPhrase(t.input) {
		s.clear(t, agents.Decision{Action: agents.ActionClear, Source: agents.SourceRules, Reasoning: "exact clear phrase"})
		return false
	}
	t0 := time.Now()
	d, ok := s.analyzeNow(t.input, rosterIDs(reg))
	if !ok {
		if !s.storePending(t) {
			return false
		}
		d = s.analyze(ctx, t.input, rosterIDs(reg))
	}
	t.timing.AnalyzerMS = msSince(t0)
	goOn := s.apply(t, reg, restored, d)
	return s.storePending(t) && goOn // a failed switch still keeps what was typed
}

// storePending writes the typed text if no commit has taken it yet. It reports whether the text
// is stored.
func (s *Session) storePending(t *turn) bool {
	if t.pending == nil {
		return true
	}
	msg := *t.pending
	t.pending = nil
	return s.store(t, t.pendingTo, msg)
}

// hydrate returns the registry, the source of truth for who is active and who is on the roster.
// It is served from the session's mirror: the store's file lock is exclusive to this process and
// every registry write goes through putRegistry, so the mirror cannot go stale, and a turn does
// not pay to decode a 100-patient registry it already holds.
func (s *Session) hydrate() persist.Registry { return s.reg }

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

func (s *Session) userMessage(text string) memory.Message {
	return memory.Message{Role: "user", Content: text, At: s.cfg.Now().UTC()}
}

// store appends messages to a patient's history ("" for the session) in one durable commit,
// together with whatever the sim changed since the last one, and keeps memory in step.
func (s *Session) store(t *turn, patientID string, msgs ...memory.Message) bool {
	for i := range msgs {
		msgs[i].Sim = s.sim.ward.Clock()
	}
	err := t.storage(func() error {
		return s.cfg.Store.Update(s.info.ID, func(tx *persist.Tx) error {
			if err := tx.Append(patientID, msgs...); err != nil {
				return err
			}
			return s.saveSim(tx)
		})
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
		if s.storePending(t) {
			s.reportDecision(t, decision, d, "")
			t.emit(ErrorEvent{Code: string(DecisionNeedsPatientID), Message: s.needsIDMessage()})
		}
		return false
	case DecisionNewBlank, DecisionSwitchExisting:
		if !s.activate(t, reg, id, decision == DecisionNewBlank) {
			return false
		}
	}
	if !s.storePending(t) { // unless the registry's commit took the typed text already
		return false
	}
	s.reportDecision(t, decision, d, s.active)
	if t.admitted != nil {
		s.say(t, admissionNote(t.admitted))
	}
	return true
}

// Switch makes a patient active without asking the analyzer: the keyboard path. It goes through
// the same registry logic as a typed switch and ends with one TurnEndEvent.
func (s *Session) Switch(id string, emit func(Event)) {
	t := &turn{input: "/switch " + id, emit: emit, started: time.Now()}
	defer func() { s.endTurn(t) }()
	s.switchTo(t, id, agents.ActionSwitchExisting, "keyboard switch")
}

// switchTo applies an explicit request for patient id, as a command or a key makes it: no
// analyzer, the same registry rules.
func (s *Session) switchTo(t *turn, id string, action agents.Action, reason string) {
	reg := s.hydrate()
	restored := s.restoreFromRegistry(t, reg)
	s.apply(t, reg, restored, agents.Decision{Action: action, PatientID: id, Source: agents.SourceRules, Reasoning: reason})
}

// analyzeNow decides without I/O when it can: a typed snapshot line is ordinary text and must
// not steer the registry, a roster question changes no context, and otherwise the analyzer's
// immediate answer (the rules) stands unless it needs a model.
func (s *Session) analyzeNow(text string, roster []string) (agents.Decision, bool) {
	var why string
	switch {
	case strings.HasPrefix(strings.TrimSpace(text), SnapshotPrefix):
		why = "text that looks like a context snapshot is stored as plain user text"
	case agents.IsRosterQuestion(text):
		why = "roster question, answered from the registry"
	default:
		return s.cfg.Analyzer.Immediate(s.analyzerInput(text, roster))
	}
	action := agents.ActionUnchanged
	if s.active == "" {
		action = agents.ActionNone
	}
	return agents.Decision{Action: action, Source: agents.SourceRules, Reasoning: why}, true
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
	t.decisionEvent = &DecisionEvent{
		Input: t.input, Decision: string(decision), AnalyzerAction: string(d.Action),
		PatientID: patientID, Source: d.Source, Reasoning: d.Reasoning, Timing: t.timing,
	}
	t.emit(*t.decisionEvent)
}

// activate points the registry at id, admitting the patient first when they are new. A change
// of patient starts from that patient's own history: every piece of per-patient agent state
// (the window, the gate, memory, entities) is read from that patient's records, so nothing of the
// previous patient carries over.
func (s *Session) activate(t *turn, reg persist.Registry, id string, isNew bool) bool {
	var admitted *physio.Engine
	if isNew && s.sim.ward.Engine(id) == nil {
		var err error
		if admitted, err = s.sim.admit(id, t.scenario); err != nil {
			t.emit(ErrorEvent{Code: "ADMIT", Message: err.Error()})
			return false
		}
	}
	err := s.putRegistry(t, reg, id, id, admitted, "")
	if err == nil {
		err = t.storage(func() error { return s.loadHistory(id) })
	}
	if err != nil {
		t.emit(ErrorEvent{Code: "STORAGE", Message: "could not switch to " + id + ": " + err.Error()})
		return false
	}
	s.active = id
	t.admitted = admitted
	return true
}

// putRegistry records patient id (with the facts of a just-admitted engine) and the active
// pointer in one commit, with the sim state the admission created.
func (s *Session) putRegistry(t *turn, reg persist.Registry, id, active string, admitted *physio.Engine, bed string) error {
	now := s.cfg.Now().UTC()
	entry, ok := reg.Patients[id]
	if !ok {
		entry = persist.PatientEntry{PatientID: id, Facts: map[string]any{}, CreatedAt: now}
	}
	if admitted != nil {
		entry.Facts = facts(admitted, bed)
	}
	entry.UpdatedAt = now
	next := persist.Registry{ActivePatientID: active, Patients: maps.Clone(reg.Patients)}
	if next.Patients == nil {
		next.Patients = map[string]persist.PatientEntry{}
	}
	next.Patients[id] = entry
	pending := t.pending
	err := t.storage(func() error {
		return s.cfg.Store.Update(s.info.ID, func(tx *persist.Tx) error {
			if pending != nil {
				if err := tx.Append(t.pendingTo, *pending); err != nil {
					return err
				}
			}
			if err := tx.PutRegistry(next); err != nil {
				return err
			}
			return s.saveSim(tx)
		})
	})
	if err != nil {
		return err
	}
	s.mirror(next)
	if pending != nil {
		t.pending = nil
		if t.pendingTo == s.active {
			s.remember(*pending)
		}
	}
	return nil
}

func admissionNote(e *physio.Engine) string {
	sc := e.Scenario()
	d := sc.Demographics
	return fmt.Sprintf("%s admitted: %s, %d %s, %s — %s.", e.PatientID(), d.Name, d.Age, d.Sex, d.Bed, sc.Title)
}

func (s *Session) endTurn(t *turn) {
	if !strings.EqualFold(t.input, "/inspect") {
		s.keepTurnRecord(t)
	}
	t.emit(TurnEndEvent{
		Input: t.input, Decision: string(t.decision), ActivePatient: nullable(s.active),
		Roster: s.roster, Footer: footer(s.info.ID, s.active, s.roster), Timing: t.timing,
	})
}

// footer is the PT_CTX audit line: shown to the user, never stored and never sent to a model.
func footer(sessionID, active string, roster []string) string {
	if active == "" {
		active = "none"
	}
	return fmt.Sprintf("PT_CTX session=%s active=%s roster=[%s]", sessionID, active, strings.Join(roster, ","))
}
