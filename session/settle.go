package session

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ward-sim/ward/agents/analyzer"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session/physio"
	sc "github.com/ward-sim/ward/session/scenario"
)

// settled is what the settle stage hands on: the conversation the turn continues as it stood
// before the typed text, and what the rest of the turn must do with it.
type settled struct {
	prior  []memory.Message
	effect string // a slash command's engine effect (effectVitals, effectAAR), "" for typed text
	retry  bool   // answering again: the engine already applied the text's actions
}

// typedText is the trainee's line on its way to the store: the conversation it belongs to, and
// whether a commit has taken it yet. That is the one it was typed in, unless it takes the trainee
// to another patient: then it is theirs, whether it says something to them or only goes to them
// ("switch to patient_1", "review patient_1"), so their chat shows the line above the answer and
// the first line that admits a patient opens their history (seed 000, turn 3).
type typedText struct {
	msg    memory.Message
	to     string
	from   string // the conversation a line stored before a model decided leaves, in the next commit
	stored bool
	// command: a typed /admit or /switch, which says what it means outright: it is never a slip
	// for another ID, nor asked about before it admits.
	command bool
}

// free reports whether the line is free text, whose ID may be a slip.
func (typed *typedText) free() bool { return typed != nil && !typed.command }

// moveTo makes the line patient id's: one not stored yet is stored there; one stored already,
// while a model decided, is moved there by the next commit.
func (typed *typedText) moveTo(id string) {
	if typed.to == id {
		return // already where it belongs, stored or not
	}
	if typed.stored {
		typed.from, typed.stored = typed.to, false
	}
	typed.to = id
}

// write stores the line in its conversation, or moves it there from where it was stored.
func (typed *typedText) write(b *persist.Batch) error {
	if typed.from != "" {
		b.MoveLast(typed.from, typed.to)
		return nil
	}
	return b.Append(typed.to, typed.msg)
}

// settle decides whose conversation the typed line belongs to: the clear check, the analyzer and
// the registry's decision. ok is false when the turn ends here (a clear, a missing ID, a
// failure).
//
// The typed text is durable before anything that could wait: when the analyzer decides at once
// (the rules), it is held for the turn's commit (hold), with the registry's decision; when a
// model must be asked, it is written first.
func (s *Session) settle(ctx context.Context, t *turn) (settled, bool) {
	restored := s.restoreFromRegistry(t)
	typed := s.typed(t)
	if analyzer.IsClearPhrase(t.input) {
		s.clear(t, typed, analyzer.Decision{Action: analyzer.ActionClear, Source: analyzer.SourceRules, Reasoning: "exact clear phrase"})
		return settled{}, false
	}
	t0 := time.Now()
	d, now := s.analyzeNow(t.input)
	if !now {
		if !s.commit(t, typed) {
			return settled{}, false
		}
		d = s.cfg.Analyzer.Analyze(ctx, s.reg.analyzerInput(t.input, s.active))
		if d.Source == analyzer.SourceFallback {
			// Never silently: the trainee sees that the model did not answer and what decided.
			t.emit(NoteEvent{PatientID: s.active, Stop: "analyzer", Text: "The analyzer model did not answer, so ward's rules decided: " + d.Reasoning})
		}
	}
	t.timing.AnalyzerMS = msSince(t0)
	return s.decide(t, typed, restored, d, "")
}

// decide lets the registry settle the analyzer's proposal: the ID must match the pattern, and the
// registry alone decides new versus existing. A new patient gets scenario, or one picked for them.
func (s *Session) decide(t *turn, typed *typedText, restored bool, d analyzer.Decision, scenario string) (settled, bool) {
	decision, id := s.reg.resolve(d, s.active, restored)
	var admitted *physio.Engine
	switch decision {
	case DecisionClear:
		s.clear(t, typed, d)
		return settled{}, false
	case DecisionNeedsPatientID:
		// A line meant for a patient ward cannot find is no one's: it is kept in the shift's own
		// history, where no patient's conversation (and so no model) will read it.
		if typed != nil {
			typed.moveTo("")
		}
		if s.commit(t, typed) {
			s.reportDecision(t, decision, d, "")
			t.emit(ErrorEvent{Code: string(DecisionNeedsPatientID), Message: s.reg.notAnID(d) + s.reg.whichPatient(d.Candidates)})
		}
		return settled{}, false
	case DecisionNewBlank, DecisionSwitchExisting:
		// Free text and /switch may be slips for a roster patient; /admit says "new" outright.
		slip := typed.free() || d.Action == analyzer.ActionSwitchExisting
		if decision == DecisionNewBlank && slip && analyzer.LookAlike(id, s.reg.roster) != "" {
			s.askAboutLookAlike(t, typed, d, id)
			return settled{}, false
		}
		if decision == DecisionNewBlank && s.asksBeforeAdmitting(typed) {
			s.askToAdmit(t, typed, d, id, fmt.Sprintf("%s is not on the roster (%d patients are). Admit %s as a new patient?", id, len(s.reg.roster), id))
			return settled{}, false
		}
		var ok bool
		if admitted, ok = s.activate(t, typed, id, decision == DecisionNewBlank, scenario); !ok {
			return settled{}, false
		}
	default:
		t.hold(typed)
	}
	s.reportDecision(t, decision, d, s.active)
	prior := s.chat.priorTo(typed, s.active)
	if admitted != nil { // kept below the line that admitted them, so their chart says how they came
		s.record(t, []memory.Message{s.wardSays(t, admissionNote(admitted, s.reg.bedOf(admitted.PatientID())))}, nil)
	}
	return settled{prior: prior}, true
}

// asksBeforeAdmitting reports whether a new patient named in typed free text needs the
// trainee's yes first: on a screen that asks (ward run never does), once the shift has patients,
// where a typo such as "patient 6" would otherwise admit someone at once.
func (s *Session) asksBeforeAdmitting(typed *typedText) bool {
	return typed.free() && s.cfg.ConfirmAdmissions && len(s.reg.roster) > 0
}

// askToAdmit keeps what was typed where it was typed and asks question; a yes sends the /admit
// line.
func (s *Session) askToAdmit(t *turn, typed *typedText, d analyzer.Decision, id, question string) {
	if !s.commit(t, typed) {
		return
	}
	s.reportDecision(t, DecisionUnchanged, d, s.active)
	t.emit(ConfirmEvent{Question: question, Line: CmdAdmit + " " + id})
}

// askAboutLookAlike stops a new ID that differs from a roster patient's only by case or by
// leading zeros ("patient_01" beside patient_1): most likely a slip for that patient, so no one
// is admitted without a word. A screen asks; ward run, which never asks, says how to go on.
func (s *Session) askAboutLookAlike(t *turn, typed *typedText, d analyzer.Decision, id string) {
	twin := analyzer.LookAlike(id, s.reg.roster)
	if s.cfg.ConfirmAdmissions {
		s.askToAdmit(t, typed, d, id, fmt.Sprintf("%s is not on the roster, but %s is: the IDs differ only in case or leading zeros. Admit %s as a new patient? (To see %s, answer no and name %s.)", id, twin, id, twin, twin))
		return
	}
	if s.commit(t, typed) {
		s.reportDecision(t, DecisionNeedsPatientID, d, "")
		t.emit(ErrorEvent{Code: string(DecisionNeedsPatientID), Message: fmt.Sprintf("%s is not on the roster, but %s is: the IDs differ only in case or leading zeros. Name %s to see them, or send %s %s to admit a new patient.", id, twin, twin, CmdAdmit, id)})
	}
}

// restoreFromRegistry silently revives the registry's active patient when memory has none, as
// after a restart. It reports whether it did. The registry is the source of truth for who is
// active; the session mirrors it (the store's file lock is exclusive to this process and every
// registry write goes through commit, so the mirror cannot go stale).
func (s *Session) restoreFromRegistry(t *turn) bool {
	if s.active != "" || s.reg.ActivePatientID == "" {
		return false
	}
	if err := t.storage(func() error { return s.loadHistory(s.reg.ActivePatientID) }); err != nil {
		t.emit(ErrorEvent{Code: "STORAGE", Message: "could not load " + s.reg.ActivePatientID + ": " + err.Error()})
		return false
	}
	s.active = s.reg.ActivePatientID
	return true
}

// Switch makes a patient active without asking the analyzer: the keyboard path. It goes through
// the same registry logic as a typed switch and ends with one TurnEndEvent.
func (s *Session) Switch(id string, emit func(Event)) {
	s.begin(llm.TraceInput{Op: llm.InputSwitch, Text: id}, emit)
	t := newTurn(CmdSwitch+" "+id, emit)
	defer s.endTurn(t)
	s.switchTo(t, nil, id, analyzer.ActionSwitchExisting, "keyboard switch", "")
}

// switchTo applies an explicit request for patient id, as a command or a key makes it: no
// analyzer, the same registry rules. A typed command's line (typed; nil for a key) is kept in the
// conversation of the patient it goes to, as a typed switch is.
func (s *Session) switchTo(t *turn, typed *typedText, id string, action analyzer.Action, reason, scenario string) {
	restored := s.restoreFromRegistry(t)
	if typed != nil {
		typed.command = true
	}
	s.decide(t, typed, restored, analyzer.Decision{Action: action, PatientID: id, Source: analyzer.SourceRules, Reasoning: reason}, scenario)
}

// analyzeNow decides without I/O when it can: a typed snapshot line is ordinary text and must
// not steer the registry, a roster question changes no context, and otherwise the analyzer's
// immediate answer (the rules) stands unless it needs a model.
func (s *Session) analyzeNow(text string) (analyzer.Decision, bool) {
	var why string
	switch {
	case strings.HasPrefix(strings.TrimSpace(text), SnapshotPrefix):
		why = "text that looks like a context snapshot is stored as plain user text"
	case isRosterQuestion(text):
		why = "roster question, answered from the registry"
	default:
		return s.cfg.Analyzer.Immediate(s.reg.analyzerInput(text, s.active))
	}
	action := analyzer.ActionUnchanged
	if s.active == "" {
		action = analyzer.ActionNone
	}
	return analyzer.Decision{Action: action, Source: analyzer.SourceRules, Reasoning: why}, true
}

// isRosterQuestion: a roster question is answered from the registry, never by a model.
func isRosterQuestion(text string) bool { return analyzer.IsRosterQuestion(text) }

func (s *Session) reportDecision(t *turn, decision Decision, d analyzer.Decision, patientID string) {
	s.emitDecision(t, decision, d, s.maskCase(d.Reasoning), patientID)
}

// emitDecision reports the turn's decision with its reasoning as shown: the analyzer's masked
// (reportDecision), or ward's own sentence as it is (Restore: masking it would read every case on
// the roster before the first frame).
func (s *Session) emitDecision(t *turn, decision Decision, d analyzer.Decision, reasoning, patientID string) {
	t.decision = decision
	t.timing.ServiceMS = msSince(t.started)
	t.decisionEvent = &DecisionEvent{
		Input: t.input, Decision: string(decision), AnalyzerAction: string(d.Action),
		PatientID: patientID, Source: d.Source, Reasoning: reasoning, Timing: t.timing,
	}
	t.emit(*t.decisionEvent)
}

// activate points the registry at id, admitting the patient first when they are new; the turn's
// commit writes it with the typed text. A change of patient starts from that patient's own history: every
// piece of per-patient agent state (the window, the gate, memory, entities) is read from that
// patient's records, so nothing of the previous patient carries over.
func (s *Session) activate(t *turn, typed *typedText, id string, isNew bool, scenario string) (*physio.Engine, bool) {
	var admitted *physio.Engine
	if isNew && s.engine(t, id) == nil {
		var err error
		if s.Ended() {
			err = fmt.Errorf("%w: no new patient comes in; /aar reviews each patient", ErrShiftEnded)
		} else {
			admitted, err = s.sim.admit(id, scenario, s.reg.onRoster(factScenario))
		}
		if err != nil {
			t.emit(ErrorEvent{Code: "ADMIT", Message: err.Error()})
			s.commit(t, typed) // the line is kept even when the admission fails
			return nil, false
		}
	}
	if typed != nil {
		typed.moveTo(id) // it took the trainee to the patient named, so it belongs to their conversation
	}
	bed := ""
	if admitted != nil {
		bed = sc.FreeBed(admitted.Scenario().Demographics.Bed, s.reg.onRoster(factBed))
	}
	s.reg.mirror(s.reg.with(id, id, admitted, bed, s.cfg.Now().UTC()))
	s.reg.unsaved, t.moved = true, true // for the turn's commit, with the line (hold)
	t.hold(typed)
	if err := t.storage(func() error { return s.loadHistory(id) }); err != nil {
		t.emit(ErrorEvent{Code: "STORAGE", Message: "could not switch to " + id + ": " + err.Error()})
		return nil, false
	}
	s.active = id
	return admitted, true
}

func admissionNote(e *physio.Engine, bed string) string {
	sc := e.Scenario()
	d := sc.Demographics
	return fmt.Sprintf("%s admitted: %s, %d %s, %s — %s.", e.PatientID(), d.Name, d.Age, d.Sex, bed, sc.Presentation)
}
