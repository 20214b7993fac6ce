package session

import (
	"context"
	"encoding/json"
	"errors"
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
	"github.com/ward-sim/ward/themes"
)

// The instructor steers a trainee's running shift from the class's board (ui/board): an event
// injected into a patient's case, or the whole shift ended for debrief. Each goes through the
// stages a turn does: the engine applies it, the line the trainee hears is stored, attributed to
// the instructor (memory.ByInstructor), and both are committed together, so an injection is
// never half-made and `ward dump`, the After Action Review and the debrief all show it as the
// instructor's (physio/injected.go keeps it in the case's own record).

// Injection is one event the instructor puts into a trainee's shift.
type Injection struct {
	Kind      string // InjectDeterioration, InjectAdmission, InjectResult or InjectCall
	PatientID string // whom it concerns; for an admission, the new patient's ID ("": the next free one)
	State     string // a deterioration's state, one of the patient's scenario's (InjectChoices)
	Scenario  string // an admission's scenario, by ID
	Text      string // a result's words ("K+ 6.8"), or what the relative says on the phone
}

// Kinds of Injection, as the engine records them.
const (
	InjectDeterioration = physio.InjectDeterioration
	InjectAdmission     = physio.InjectAdmission
	InjectResult        = physio.InjectResult
	InjectCall          = physio.InjectCall
)

// Voices the trainee hears an injected event in.
const (
	labAgent   = "Lab"
	phoneVoice = "a relative of %s (on the phone)" // when the scenario names no relative
)

// maxInjectedText bounds a result's or a call's words: a line or two, as a lab or a relative says it.
const maxInjectedText = 500

// ErrShiftEnded refuses what an ended shift can no longer take.
var ErrShiftEnded = errors.New("the instructor ended this shift for debrief")

// Inject applies an injection: the engine's effect, the line the trainee hears in the patient's
// conversation, and a word in the active one when that is another, in one commit. A refused
// injection (an unknown patient, state or scenario, a closed case, an ended shift) returns an
// error and changes nothing. emit hears what a turn's would: the messages and the engine's events.
func (s *Session) Inject(_ context.Context, in Injection, emit func(Event)) error {
	asJSON, _ := json.Marshal(in) // strings only: it cannot fail
	s.begin(llm.TraceInput{Op: llm.InputInject, Text: string(asJSON)}, emit)
	if !s.info.Ended.IsZero() {
		return ErrShiftEnded
	}
	switch in.Kind {
	case InjectAdmission:
		return s.injectAdmission(in, emit)
	case InjectResult, InjectCall:
		in.Text = strings.TrimSpace(themes.Printable(in.Text)) // shown to the trainee and stored as it is
		if in.Text == "" || len(in.Text) > maxInjectedText {
			return fmt.Errorf("a %s needs some words, at most %d characters", in.Kind, maxInjectedText)
		}
	case InjectDeterioration:
	default:
		return fmt.Errorf("no injection %q: one of %s, %s, %s, %s", in.Kind, InjectDeterioration, InjectAdmission, InjectResult, InjectCall)
	}
	e, err := s.injectable(in.PatientID)
	if err != nil {
		return err
	}
	var events []physio.Event
	var msg memory.Message
	if in.Kind == InjectDeterioration {
		worse := e.Worsens(in.State)
		ev, err := e.Deteriorate(in.State)
		if err != nil {
			return err
		}
		events, msg = []physio.Event{ev}, s.message(memory.RoleAssistant, nurseAgent, changed(e, worse))
	} else {
		if err := e.Record(in.Kind, in.Text); err != nil {
			return err
		}
		msg = s.heard(e, in)
	}
	s.sim.dirty[e.PatientID()] = true
	s.recordEvents(&turn{emit: emit}, events) // a new state: the roster's summary too
	emitSim(emit, events)
	return s.storeInjected(e.PatientID(), msg, nil, emit)
}

// injectable is the engine of a patient an event may be injected into.
func (s *Session) injectable(id string) (*physio.Engine, error) {
	if _, ok := s.reg.Patients[id]; !ok {
		return nil, fmt.Errorf("no patient %q on this shift (roster: %v)", id, s.reg.roster)
	}
	e, err := s.sim.engine(id)
	switch {
	case err != nil:
		return nil, fmt.Errorf("could not read %s: %w", id, err)
	case e == nil:
		return nil, fmt.Errorf("%s has no simulated body to inject into", id)
	case e.Closed():
		return nil, errors.New(closedWords(id, e))
	}
	return e, nil
}

// changed is the nurse's call about a patient the instructor moved to another state: the trainee
// hears whether they look worse or better, never the state's name, which they must find out.
func changed(e *physio.Engine, worse bool) string {
	name, id := e.Scenario().Demographics.Name, e.PatientID()
	if worse {
		return fmt.Sprintf("I'm worried about %s (%s): they look worse than they did. Could you come and review them?", name, id)
	}
	return fmt.Sprintf("%s (%s) looks better than they did. Could you review them when you can?", name, id)
}

// heard is the line the trainee hears of a result or a call, in its own voice.
func (s *Session) heard(e *physio.Engine, in Injection) memory.Message {
	name := e.Scenario().Demographics.Name
	if in.Kind == InjectResult {
		return s.message(memory.RoleAssistant, labAgent, fmt.Sprintf("Result for %s (%s): %s", name, e.PatientID(), in.Text))
	}
	voice := fmt.Sprintf(phoneVoice, name)
	if b := e.Scenario().Bystander; b != nil {
		voice = bystanderSource(b) + " (on the phone)"
	}
	return s.message(memory.RoleAssistant, voice, in.Text)
}

// injectAdmission admits a patient with the scenario named, as the roster's own admissions are:
// on the roster, not made active, with a bed of their own.
func (s *Session) injectAdmission(in Injection, emit func(Event)) error {
	id := in.PatientID
	if id == "" {
		id = s.reg.nextPatientID()
	}
	id, ok := analyzer.NormalizeID(id, s.cfg.Pattern)
	switch {
	case !ok:
		return fmt.Errorf("%q is not a patient ID ward can use (IDs match %s)", in.PatientID, s.cfg.Pattern)
	case s.reg.Patients[id].PatientID != "":
		return fmt.Errorf("%s is on the roster already", id)
	}
	if _, known := s.cfg.Scenarios.Get(in.Scenario); !known {
		return fmt.Errorf("no scenario %q in the library", in.Scenario)
	}
	e, err := s.sim.admit(id, in.Scenario, s.reg.onRoster(factScenario))
	if err != nil {
		return err
	}
	_ = e.Record(physio.InjectAdmission, in.Scenario) // a new case is open
	bed := sc.FreeBed(e.Scenario().Demographics.Bed, s.reg.onRoster(factBed))
	reg := s.reg.with(id, s.reg.ActivePatientID, e, bed, s.cfg.Now().UTC())
	msg := s.message(memory.RoleAssistant, memory.SystemAgent, admissionNote(e, bed))
	return s.storeInjected(id, msg, &reg, emit)
}

// line is a message for one conversation ("" for the shift's own).
type line struct {
	conv string
	msg  memory.Message
}

// storeInjected commits the line the trainee hears in the patient's conversation, a word in the
// active one when that is another, and the registry when it changed, with the sim's changes.
func (s *Session) storeInjected(id string, msg memory.Message, reg *persist.Registry, emit func(Event)) error {
	lines := []line{{id, msg}}
	if s.active != id {
		lines = append(lines, line{s.active, s.message(memory.RoleAssistant, memory.SystemAgent, fmt.Sprintf("News of %s: /switch %s to see it.", id, id))})
	}
	if reg != nil { // the commit writes the mirror, with any summaries it holds unsaved
		s.reg.mirror(*reg)
		s.reg.unsaved = true
	}
	return s.storeInstructor(lines, emit, func(*persist.Batch) error { return nil })
}

// storeInstructor commits lines attributed to the instructor with what also writes and the sim's
// changes, in one commit, then tells the screen.
func (s *Session) storeInstructor(lines []line, emit func(Event), also func(*persist.Batch) error) error {
	for i := range lines {
		lines[i].msg.By, lines[i].msg.Sim = memory.ByInstructor, s.sim.ward.Clock()
	}
	err := s.store(func(b *persist.Batch) error {
		for _, l := range lines {
			if err := b.Append(l.conv, l.msg); err != nil {
				return err
			}
		}
		return also(b)
	})
	if err != nil {
		return fmt.Errorf("could not save what the instructor did: %w", err)
	}
	for _, l := range lines {
		if l.conv == s.active {
			s.chat.remember(l.msg)
		}
		emit(MessageEvent{PatientID: l.conv, Role: l.msg.Role, Agent: l.msg.Agent, Text: l.msg.Content, At: l.msg.At})
	}
	return nil
}

// End ends the shift for debrief, as the instructor does from the board: every open case closes
// as the instructor ended it (physio.PlaceEnded), each patient's conversation and the shift's own
// say so, the clock stops, and the shift is marked ended, in one commit. The trainee can still
// read each review (/aar) and answer the reflective questions.
func (s *Session) End(emit func(Event)) error {
	s.begin(llm.TraceInput{Op: llm.InputEnd}, emit)
	if !s.info.Ended.IsZero() {
		return ErrShiftEnded
	}
	if err := s.sim.wakeAll(); err != nil {
		return fmt.Errorf("some patients could not be read, so the shift was not ended: %w", err)
	}
	var lines []line
	for _, e := range s.sim.ward.Engines() {
		id := e.PatientID()
		if e.End() != nil {
			continue // closed already: the patient has gone
		}
		s.sim.dirty[id] = true
		s.reg.noteSummary(id, summaryOf(e))
		lines = append(lines, line{id, s.message(memory.RoleAssistant, memory.SystemAgent,
			fmt.Sprintf("The instructor ended the shift for debrief: %s's case is closed. /aar reviews it.", id))})
	}
	lines = append(lines, line{"", s.message(memory.RoleAssistant, memory.SystemAgent,
		"The instructor ended the shift for debrief. /switch ID, then /aar, reviews each patient.")})
	s.info.Ended = s.cfg.Now().UTC()
	err := s.storeInstructor(lines, emit, func(b *persist.Batch) error { return b.PutInfo(s.info) })
	if err != nil {
		s.info.Ended = time.Time{}
		return err
	}
	s.paused = true
	return nil
}

// Ended reports whether the instructor ended the shift.
func (s *Session) Ended() bool { return !s.info.Ended.IsZero() }

// Choices are what the instructor may inject into the shift now, read from the registry and the
// library without waking a patient.
type Choices struct {
	States    map[string][]string // each open patient's scenario states, sorted, by patient ID
	Scenarios []string            // the scenario IDs an admission may take: none a patient of the shift has
}

// InjectChoices lists what the instructor may inject now; nothing once the shift has ended.
func (s *Session) InjectChoices() Choices {
	c := Choices{States: map[string][]string{}}
	if s.Ended() {
		return c
	}
	for _, p := range s.Summaries() {
		if sc, ok := s.cfg.Scenarios.Get(scenarioOf(s.reg.Patients[p.ID].Facts)); ok && p.Disposition == "" {
			c.States[p.ID] = slices.Sorted(maps.Keys(sc.States))
		}
	}
	taken := s.reg.onRoster(factScenario)
	for _, sc := range s.cfg.Scenarios.List() {
		if !taken[sc.ID] {
			c.Scenarios = append(c.Scenarios, sc.ID)
		}
	}
	return c
}
