package session

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/analyzer"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session/physio"
	"github.com/ward-sim/ward/session/records"
)

// PatientView is one patient as a screen draws them. Every number is a measured one: the true
// vitals stay in the engine.
type PatientView struct {
	ID, Name string
	Age      int
	Sex      string
	Bed      string
	// Presentation is the scenario's triage line; State is the engine's state, which a screen
	// compares between pictures but never shows.
	Presentation string
	State        string
	// Allergies are the allergies the patient has disclosed; AllergiesAsked says whether anyone
	// asked, so "none disclosed" and "never asked" read differently.
	Allergies      []string
	AllergiesAsked bool
	Readings       []physio.Reading // measured vitals, oldest first
	Found          []string         // the newest glucose, ECG and pupils result of each kind taken
	Monitored      bool
	Trace          physio.Trace // what the monitor draws now
}

// PatientSummary is one roster row's facts: the registry's, so drawing the roster wakes no
// patient.
type PatientSummary struct {
	ID, Name string
	summary
}

// Summaries describes the roster, in ID order.
func (s *Session) Summaries() []PatientSummary {
	out := make([]PatientSummary, 0, len(s.reg.roster))
	for _, id := range s.reg.roster {
		f := s.reg.Patients[id].Facts
		name, _ := f["name"].(string)
		out = append(out, PatientSummary{ID: id, Name: name, summary: summaryFrom(f)})
	}
	return out
}

// ActivePatient describes the active patient in full, waking them; ok is false when none is
// active.
func (s *Session) ActivePatient() (v PatientView, ok bool) {
	if s.active == "" {
		return v, false
	}
	v.ID = s.active
	e, _ := s.sim.engine(s.active) // an unreadable patient shows as a name only; the next turn reports why
	if e == nil {
		return v, true // on the roster without a body: admitted before the simulation existed
	}
	id := s.active
	sc := e.Scenario()
	d := sc.Demographics
	v.Name, v.Age, v.Sex, v.Bed, v.Presentation, v.State = d.Name, d.Age, d.Sex, d.Bed, sc.Presentation, e.State()
	if bed, ok := s.reg.Patients[id].Facts["bed"].(string); ok && bed != "" {
		v.Bed = bed
	}
	v.Readings, v.Found, v.Monitored, v.AllergiesAsked = liveReadings(e), latestResults(e.Results()), e.Monitored(), e.AllergiesAsked()
	v.Trace = e.Trace()
	if mem := s.sim.memory(id); mem != nil {
		for _, it := range mem.Items(memory.PatientDisclosures) {
			if it.Topic == memory.TopicAllergies {
				v.Allergies = append(v.Allergies, strings.TrimSpace(it.Text))
			}
		}
	}
	return v, true
}

// liveReadings are the patient's readings as a screen shows them: the log, and on a monitor the
// values it shows this second, so the header and the trend never lag the monitor's minute.
func liveReadings(e *physio.Engine) []physio.Reading {
	rs := e.Readings()
	if now, ok := e.Measured(); ok && e.Monitored() && (len(rs) == 0 || now.T > rs[len(rs)-1].T) {
		rs = append(rs, now)
	}
	return rs
}

// Clock is the shift's sim time in seconds, whether the real-time clock is paused, and its speed.
func (s *Session) Clock() (seconds float64, paused bool, speed float64) {
	return s.sim.ward.Clock(), s.paused, s.speed
}

// Newest is the newest message of a patient's stored conversation ("" for the session's) and
// how many it holds: the same two, and the conversation is the same (messages are only
// appended, or the newest moved away), so a screen that read it need not read it again.
func (s *Session) Newest(patientID string) (last memory.Message, n int, err error) {
	err = s.cfg.Store.View(s.info.ID, func(tx *persist.Tx) error {
		msgs, err := tx.Recent(patientID, 1)
		if len(msgs) == 1 {
			last = msgs[0]
		}
		n = tx.Len(patientID)
		return err
	})
	return last, n, err
}

// From is a patient's stored conversation ("" for the session's) from its from-th message (the
// first is 1) to its newest, oldest first, and how many messages it holds: what a screen that
// holds the messages up to the from-th reads to bring them up to date.
func (s *Session) From(patientID string, from int) (msgs []memory.Message, n int, err error) {
	err = s.cfg.Store.View(s.info.ID, func(tx *persist.Tx) error {
		msgs, err = tx.From(patientID, from)
		n = tx.Len(patientID)
		return err
	})
	return msgs, n, err
}

// Backend names the backend and model answering this session ("offline" has no model).
func (s *Session) Backend() (name, model string) {
	return s.cfg.Backend.Name(), s.cfg.Backend.Model()
}

// Recent is the newest n messages of a patient's stored conversation ("" for the session's),
// oldest first, and whether older ones exist: what a screen shows.
func (s *Session) Recent(patientID string, n int) (msgs []memory.Message, more bool, err error) {
	err = s.cfg.Store.View(s.info.ID, func(tx *persist.Tx) error {
		msgs, err = tx.Recent(patientID, n)
		more = tx.Len(patientID) > len(msgs)
		return err
	})
	return msgs, more, err
}

// Restore makes the registry's active patient active in memory now, as the first turn after a
// restart would, and reports it as a RESTORED_FROM_STORAGE decision. The TUI calls it at start so
// the screen opens on the patient the trainee left.
func (s *Session) Restore(emit func(Event)) {
	s.begin(llm.TraceInput{Op: llm.InputRestore}, emit)
	t := newTurn("(resume)", emit)
	if !s.restoreFromRegistry(t) {
		return
	}
	const resumed = "resumed the registry's active patient"
	s.emitDecision(t, DecisionRestored, analyzer.Decision{Action: analyzer.ActionNone, Source: analyzer.SourceRules,
		Reasoning: resumed}, resumed, s.active)
	s.keepTurnRecord(t)
}

// DiscardIfUnused deletes this shift from the store when nothing happened in it, as when the
// start dialog replaces the empty shift ward opened with. A shift in use is kept as it is.
func (s *Session) DiscardIfUnused() error { return s.cfg.Store.DiscardUnused(s.info.ID) }

// latestResults keeps the newest result of each kind, in the order each kind was first taken.
func latestResults(results []physio.Result) []string {
	var names []string
	latest := map[string]physio.Result{}
	for _, r := range results {
		if _, seen := latest[r.Name]; !seen {
			names = append(names, r.Name)
		}
		latest[r.Name] = r
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = latest[n].String()
	}
	return out
}

// Transcript is the whole active conversation (the shift's own when no patient is active), for
// copying or exporting from the screen. The chat leaves ward, so the audit says so first.
func (s *Session) Transcript() (records.Conversation, error) {
	active := s.active
	msgs, _, err := s.Recent(active, math.MaxInt)
	if err == nil {
		err = s.cfg.Audit.Record(s.cfg.Store.Person(), persist.AuditExport, s.ID(), conversationName(active)+" from the screen")
	}
	name, _ := s.reg.Patients[active].Facts["name"].(string)
	return records.TranscriptOf(active, name, msgs), err
}

// conversationName names a conversation in the audit record: a patient's, or the shift's own.
func conversationName(patientID string) string {
	if patientID == "" {
		return "the shift's chat"
	}
	return "the chat of " + patientID
}

// Engine is a patient's physiology engine, woken if asleep; nil for a patient on the roster
// without a body. Tools that judge the truth read it (the evals); a screen reads ActivePatient,
// whose numbers are the measured ones.
func (s *Session) Engine(patientID string) (*physio.Engine, error) { return s.sim.engine(patientID) }

// What the engine knows and the trainee must find out — the case, its states, the true vitals
// and what the patient has not yet said — shows only in the instructor's (or a developer's)
// view: Config.Instructor. In a trainee's view the inspector, /inspect and the decision event
// show it masked, with a note that it is. (The decision's and the route's reasoning, a model's
// words, are masked as they are made.)

const maskNote = "[masked in a trainee's view: %s; ward --instructor shows it]"

// masked says in place what a trainee's view leaves out.
func masked(what string) string { return fmt.Sprintf(maskNote, what) }

// eventForViewer is an event as the one running the shift may see it, nil when not at all. A
// trainee's run names no state of the case and no rhythm the monitor shows (they read the strip
// and name it themselves); the instructor's shows both.
func (s *Session) eventForViewer(e Event) Event {
	sim, ok := e.(SimEvent)
	if s.cfg.Instructor || !ok {
		return e
	}
	switch sim.Event.Kind {
	case physio.EventState:
		return nil
	case physio.EventVitals:
		ev := *sim.Event
		ev.Reading.Rhythm = ""
		return SimEvent{&ev}
	}
	return sim
}

// forTrainee is a turn record as a trainee may see it.
func (s *Session) forTrainee(rec TurnRecord) TurnRecord {
	if s.cfg.Instructor {
		return rec
	}
	if rec.Engine != "" {
		rec.Engine = masked("the case, its state and the true vitals")
	}
	rec.Calls = slices.Clone(rec.Calls)
	for i, c := range rec.Calls {
		rec.Calls[i].Trace = maskTrace(c.Trace, c.Held != "")
	}
	return rec
}

// maskTrace masks what a call's prompt holds of the patient the trainee has not found out (the
// persona's line), and a reply ward held back.
func maskTrace(tr llm.TraceRecord, held bool) llm.TraceRecord {
	tr.Messages = slices.Clone(tr.Messages)
	for i, m := range tr.Messages {
		tr.Messages[i].Content = maskPersona(m.Content)
	}
	if static, ok := tr.SectionTexts[agents.SectionStatic]; ok {
		texts := make(map[string]string, len(tr.SectionTexts))
		for k, v := range tr.SectionTexts {
			texts[k] = v
		}
		texts[agents.SectionStatic] = maskPersona(static)
		tr.SectionTexts = texts
	}
	if held {
		tr.Reply.Content, tr.Chunks = masked("the reply ward did not show"), nil
	}
	return tr
}

// maskPersona replaces the Patient's persona line, which holds what the patient may not have
// said yet and how they look at every stage of the case.
func maskPersona(text string) string {
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		if strings.HasPrefix(line, agents.PersonaHeading) {
			lines[i] = agents.PersonaHeading + masked("what the patient knows and has not said yet, and how they look at each stage")
		}
	}
	return strings.Join(lines, "\n")
}

// maskCase masks in text the words that name the diagnosis of any patient on the roster.
func (s *Session) maskCase(text string) string {
	if s.cfg.Instructor {
		return text
	}
	return s.reg.caseMasker().mask(text)
}
