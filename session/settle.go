package session

import (
	"context"
	"fmt"
	"maps"
	"slices"
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
func (typed *typedText) write(tx *persist.Tx) error {
	if typed.from != "" {
		return tx.MoveLast(typed.from, typed.to)
	}
	return tx.Append(typed.to, typed.msg)
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
		d = s.cfg.Analyzer.Analyze(ctx, s.analyzerInput(t.input))
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
	decision, id := resolve(d, contextState{
		active: s.active, restored: restored, pattern: s.cfg.Pattern,
		known: func(id string) bool { _, ok := s.reg.Patients[id]; return ok },
	})
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
			t.emit(ErrorEvent{Code: string(DecisionNeedsPatientID), Message: s.notAnID(d) + s.whichPatient(d.Candidates)})
		}
		return settled{}, false
	case DecisionNewBlank, DecisionSwitchExisting:
		// Free text and /switch may be slips for a roster patient; /admit says "new" outright.
		slip := typed.free() || d.Action == analyzer.ActionSwitchExisting
		if decision == DecisionNewBlank && slip && analyzer.LookAlike(id, s.roster) != "" {
			s.askAboutLookAlike(t, typed, d, id)
			return settled{}, false
		}
		if decision == DecisionNewBlank && s.asksBeforeAdmitting(typed) {
			s.askToAdmit(t, typed, d, id, fmt.Sprintf("%s is not on the roster (%d patients are). Admit %s as a new patient?", id, len(s.roster), id))
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
	prior := s.priorTo(typed)
	if admitted != nil { // kept below the line that admitted them, so their chart says how they came
		s.record(t, []memory.Message{s.wardSays(t, admissionNote(admitted, s.bedOf(admitted.PatientID())))}, nil)
	}
	return settled{prior: prior}, true
}

// asksBeforeAdmitting reports whether a new patient named in typed free text needs the
// trainee's yes first: on a screen that asks (ward run never does), once the shift has patients,
// where a typo such as "patient 6" would otherwise admit someone at once.
func (s *Session) asksBeforeAdmitting(typed *typedText) bool {
	return typed.free() && s.cfg.ConfirmAdmissions && len(s.roster) > 0
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
	twin := analyzer.LookAlike(id, s.roster)
	if s.cfg.ConfirmAdmissions {
		s.askToAdmit(t, typed, d, id, fmt.Sprintf("%s is not on the roster, but %s is: the IDs differ only in case or leading zeros. Admit %s as a new patient? (To see %s, answer no and name %s.)", id, twin, id, twin, twin))
		return
	}
	if s.commit(t, typed) {
		s.reportDecision(t, DecisionNeedsPatientID, d, "")
		t.emit(ErrorEvent{Code: string(DecisionNeedsPatientID), Message: fmt.Sprintf("%s is not on the roster, but %s is: the IDs differ only in case or leading zeros. Name %s to see them, or send %s %s to admit a new patient.", id, twin, twin, CmdAdmit, id)})
	}
}

// notAnID says why a line that asked for a patient found no one: what it meant as an ID is not
// one the pattern takes. "" when it named no ID.
func (s *Session) notAnID(d analyzer.Decision) string {
	meant := d.Invalid
	if meant == "" {
		meant = d.PatientID // a model's proposal that the pattern refused
	}
	if meant == "" {
		return ""
	}
	return fmt.Sprintf("%s is not a patient ID ward can use (IDs match %s), so no one was given that line. ", meant, s.cfg.Pattern)
}

// priorTo is the active conversation as it stood before the typed text: a text typed in it is
// its newest message.
func (s *Session) priorTo(typed *typedText) []memory.Message {
	h := s.history
	if typed != nil && typed.stored && typed.to == s.active && len(h) > 0 {
		h = h[:len(h)-1]
	}
	return slices.Clone(h)
}

// hold keeps the typed line for the turn's next commit, which writes it first: a line the rules
// placed goes to disk with what answers it, in the turn's one commit. Before a model is asked,
// beforeModelCall commits it on its own, and endTurn commits a line still held, so it is durable
// before anything waits and before the turn is acknowledged.
func (t *turn) hold(typed *typedText) {
	if typed != nil && !typed.stored {
		t.line = typed
	}
}

// holdsLine reports whether the turn holds a line no commit has taken yet.
func (t *turn) holdsLine() bool { return t.line != nil && !t.line.stored }

// holds reports whether the turn holds anything the store must have before it is acknowledged:
// the line, a switch, the alarms it told.
func (t *turn) holds() bool { return t.holdsLine() || t.moved || len(t.told) > 0 }

// commit writes, in one durable commit, the line the turn holds (typed, if given), the registry
// when the turn switched patient, and whatever the sim changed since the last commit. It reports
// whether everything was written.
func (s *Session) commit(t *turn, typed *typedText) bool {
	t.hold(typed)
	if !t.holds() {
		return true
	}
	if err := s.update(t, func(*persist.Tx) error { return nil }); err != nil {
		t.emit(ErrorEvent{Code: CodeNotSaved, Message: "could not save the message: " + err.Error()})
		return false
	}
	return true
}

// update is every durable commit a turn makes, and the one place the typed text is stored: the
// line the turn holds first, so it stays above whatever answers it, the alarms it told, then
// write's values, then what the sim changed (a switch's registry with it).
func (s *Session) update(t *turn, write func(*persist.Tx) error) error {
	line, pending, told := t.line, t.holdsLine(), t.told
	err := t.storage(func() error {
		return s.cfg.Store.Update(s.info.ID, func(tx *persist.Tx) error {
			if pending {
				if err := line.write(tx); err != nil {
					return err
				}
			}
			for _, m := range told {
				if err := tx.Append(m.patient, m.msg); err != nil {
					return err
				}
			}
			if err := write(tx); err != nil {
				return err
			}
			return s.saveSim(tx)
		})
	})
	if err != nil {
		return err
	}
	t.moved, t.told = false, nil
	if pending {
		line.stored, line.from = true, ""
		if line.to == s.active {
			s.remember(line.msg)
		}
	}
	for _, m := range told {
		if m.patient == s.active {
			s.remember(m.msg)
		}
	}
	return nil
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
		return s.cfg.Analyzer.Immediate(s.analyzerInput(text))
	}
	action := analyzer.ActionUnchanged
	if s.active == "" {
		action = analyzer.ActionNone
	}
	return analyzer.Decision{Action: action, Source: analyzer.SourceRules, Reasoning: why}, true
}

func (s *Session) analyzerInput(text string) analyzer.AnalyzerInput {
	return analyzer.AnalyzerInput{Text: text, ActivePatient: s.active, Roster: s.roster, Patients: s.namedPatients(), Pattern: s.cfg.Pattern}
}

// namedPatients are the roster's patients as a trainee may call them, in order of arrival: the
// registry's name, sex and bed, and the patient's complaint. A model reads them, so nothing here
// names the case: not its identifier, title or diagnosis. They are worked out once a registry
// (every line the trainee types is analysed with them); callers read them, never change them.
func (s *Session) namedPatients() []analyzer.Patient {
	if s.named == nil {
		s.named = s.nameThePatients()
	}
	return s.named
}

func (s *Session) nameThePatients() []analyzer.Patient {
	ids := slices.Clone(s.roster)
	slices.SortStableFunc(ids, func(a, b string) int {
		return s.reg.Patients[a].CreatedAt.Compare(s.reg.Patients[b].CreatedAt)
	})
	out := make([]analyzer.Patient, len(ids))
	for i, id := range ids {
		f := s.reg.Patients[id].Facts
		p := analyzer.Patient{ID: id}
		p.Name, _ = f["name"].(string)
		p.Sex, _ = f["sex"].(string)
		p.Bed, _ = f["bed"].(string)
		if sc, ok := s.cfg.Scenarios.Get(scenarioOf(f)); ok {
			p.Condition = sc.ChiefComplaint // what the patient says: a model reads it
			p.Case = strings.ReplaceAll(sc.ID, "-", " ")
		}
		out[i] = p
	}
	return out
}

// isRosterQuestion: a roster question is answered from the registry, never by a model.
func isRosterQuestion(text string) bool { return analyzer.IsRosterQuestion(text) }

// whichPatient asks which of the candidates a reference meant, by title and bed, or for an ID
// when there are none.
func (s *Session) whichPatient(candidates []string) string {
	if len(candidates) == 0 {
		return s.needsIDMessage()
	}
	var named []string
	for _, p := range s.namedPatients() {
		if slices.Contains(candidates, p.ID) {
			named = append(named, patientLabel(p))
		}
	}
	last := len(named) - 1
	return "Which patient — " + strings.Join(named[:last], ", ") + " or " + named[last] + "?"
}

// patientLabel is how a question names a patient: their title, and their ID when the title
// does not hold it.
func patientLabel(p analyzer.Patient) string {
	title := p.Title()
	if !strings.Contains(title, p.ID) {
		return title + " (" + p.ID + ")"
	}
	return title
}

// needsIDMessage asks for a patient: it names those on the roster, so every example is one the
// trainee can use; on an empty roster it shows IDs the pattern takes for an admission.
func (s *Session) needsIDMessage() string {
	var named []string
	for _, p := range s.namedPatients() {
		named = append(named, patientLabel(p))
	}
	if len(named) > 0 {
		return "Which patient? On the roster: " + strings.Join(named, ", ") + ". Name one, or give a new ID to admit."
	}
	examples := analyzer.ExampleIDs(s.cfg.Pattern)
	if len(examples) == 0 {
		return fmt.Sprintf("Which patient? Give an ID that matches %s.", s.cfg.Pattern)
	}
	return fmt.Sprintf("Which patient? Give an ID such as %s (pattern %s).", strings.Join(examples, " or "), s.cfg.Pattern)
}

func (s *Session) reportDecision(t *turn, decision Decision, d analyzer.Decision, patientID string) {
	t.decision = decision
	t.timing.ServiceMS = msSince(t.started)
	reasoning := d.Reasoning
	if decision != DecisionRestored { // a restore's reasoning is ward's own sentence: masking it would read every case on the roster before the first frame
		reasoning = s.maskCase(reasoning)
	}
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
			admitted, err = s.sim.admit(id, scenario, s.onRoster(factScenario))
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
		bed = sc.FreeBed(admitted.Scenario().Demographics.Bed, s.onRoster(factBed))
	}
	s.mirror(s.registryWith(id, id, admitted, bed))
	s.registryUnsaved, t.moved = true, true // for the turn's commit, with the line (hold)
	t.hold(typed)
	if err := t.storage(func() error { return s.loadHistory(id) }); err != nil {
		t.emit(ErrorEvent{Code: "STORAGE", Message: "could not switch to " + id + ": " + err.Error()})
		return nil, false
	}
	s.active = id
	return admitted, true
}

// registryWith is the registry with patient id recorded (with the facts of a just-admitted
// engine) and active as the active patient.
func (s *Session) registryWith(id, active string, admitted *physio.Engine, bed string) persist.Registry {
	now := s.cfg.Now().UTC()
	entry, ok := s.reg.Patients[id]
	if !ok {
		entry = persist.PatientEntry{PatientID: id, Facts: map[string]any{}, CreatedAt: now}
	}
	if admitted != nil {
		entry.Facts = facts(admitted, bed)
	}
	entry.UpdatedAt = now
	next := persist.Registry{ActivePatientID: active, Patients: maps.Clone(s.reg.Patients)}
	if next.Patients == nil {
		next.Patients = map[string]persist.PatientEntry{}
	}
	next.Patients[id] = entry
	return next
}

func admissionNote(e *physio.Engine, bed string) string {
	sc := e.Scenario()
	d := sc.Demographics
	return fmt.Sprintf("%s admitted: %s, %d %s, %s — %s.", e.PatientID(), d.Name, d.Age, d.Sex, bed, sc.Presentation)
}

// Keys of a registry entry's facts that a shift keeps unique among its patients.
const (
	factScenario = "scenario"
	factBed      = "bed"
)

// onRoster is the set of values the roster's patients have for a fact: the scenarios or beds
// already taken on this shift.
func (s *Session) onRoster(fact string) map[string]bool {
	out := map[string]bool{}
	for _, p := range s.reg.Patients {
		if v, ok := p.Facts[fact].(string); ok && v != "" {
			out[v] = true
		}
	}
	return out
}

// bedOf is the bed the registry gives a patient.
func (s *Session) bedOf(id string) string {
	bed, _ := s.reg.Patients[id].Facts[factBed].(string)
	return bed
}

func scenarioOf(facts map[string]any) string {
	id, _ := facts["scenario"].(string)
	return id
}
