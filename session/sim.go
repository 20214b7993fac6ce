package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session/physio"
	"github.com/ward-sim/ward/session/records"
	"github.com/ward-sim/ward/session/scenario"
)

// sim is the shift's bodies: one engine per patient on the shared clock, and each patient's
// structured memory and entities, which engine events and agents feed. Patients to whom
// something happened (an action, an engine event, an agent's update) are dirty and saved with
// the next commit. Time alone makes no patient dirty: the engine is deterministic, so a patient
// stored at an earlier second lives the seconds since again when woken, exactly as they passed,
// and a turn's write does not grow with the patients nobody touched.
//
// A resumed shift decodes nothing per patient until it is needed: the patients stay asleep in
// the store (the roster is drawn from the registry) until a turn, a tick or the header wakes
// them, one at a time, or all at once before time passes.
type sim struct {
	lib    *scenario.Library
	ward   *physio.Ward
	mems   map[string]*memory.Memory
	ents   map[string]*memory.Entities
	asleep []string                                     // stored patients not decoded yet, in roster order
	read   func(kind, patientID string) ([]byte, error) // one stored document; nil for a new shift
	dirty  map[string]bool
}

func newSim(lib *scenario.Library, seed int64, clock float64) *sim {
	return &sim{lib: lib, ward: physio.NewWard(seed, clock), mems: map[string]*memory.Memory{},
		ents: map[string]*memory.Entities{}, dirty: map[string]bool{}}
}

// engine is the patient's engine, woken from the store on first use; nil when the patient has
// no body (admitted before the simulation existed) or the engine cannot be read.
func (m *sim) engine(id string) (*physio.Engine, error) {
	err := m.wake(id)
	return m.ward.Engine(id), err
}

// memory is the patient's structured memory, woken on first use; nil when the patient has none.
func (m *sim) memory(id string) *memory.Memory {
	_ = m.wake(id) // an unreadable patient has no memory to offer; the engine's caller reports it
	return m.mems[id]
}

// entities is the patient's entity state, woken on first use and created when there is none.
func (m *sim) entities(id string) *memory.Entities {
	_ = m.wake(id)
	e := m.ents[id]
	if e == nil {
		e = &memory.Entities{}
		m.ents[id] = e
	}
	return e
}

// wake decodes a sleeping patient's engine, memory and entities, and brings the engine up to the
// shift's clock. A patient is woken once, even when their documents are unreadable, so a broken
// record is reported once, not on every tick.
func (m *sim) wake(id string) error {
	i := slices.Index(m.asleep, id)
	if i < 0 {
		return nil
	}
	m.asleep = slices.Delete(m.asleep, i, i+1)
	doc, err := m.read(persist.KindSim, id)
	if err != nil || doc == nil {
		return err // no document: on the roster without a body
	}
	e, err := records.RestoreEngine(m.ward, m.lib, id, doc)
	if err != nil {
		return err
	}
	err = errors.Join(decodeDoc(m.read, persist.KindMemory, id, m.mems), decodeDoc(m.read, persist.KindEntities, id, m.ents))
	// Seconds in which nothing happened were not stored, and give no events now; an engine
	// brought back from an archive after time passed may have some, which memory keeps.
	m.record(e.AdvanceTo(m.ward.Clock(), nil)) // what is pruned waking up was pruned in a turn before
	return err
}

// wakeAll wakes every sleeping patient, in roster order, so time passes for all of them alike.
func (m *sim) wakeAll() error {
	var errs []error
	for len(m.asleep) > 0 {
		errs = append(errs, m.wake(m.asleep[0]))
	}
	return errors.Join(errs...)
}

// decodeDoc decodes the patient's stored document of one kind into into, if there is one.
func decodeDoc[T any](read func(kind, id string) ([]byte, error), kind, id string, into map[string]*T) error {
	doc, err := read(kind, id)
	if err != nil || doc == nil {
		return err
	}
	v := new(T)
	if err := json.Unmarshal(doc, v); err != nil {
		return fmt.Errorf("%s of %s is unreadable: %w", kind, id, err)
	}
	into[id] = v
	return nil
}

// admit starts a patient on a scenario: the named one, or a deterministic pick of one no patient
// of the shift has (used). Two patients of a shift never share a case.
func (m *sim) admit(patientID, scenarioID string, used map[string]bool) (*physio.Engine, error) {
	var sc *scenario.Scenario
	var err error
	if scenarioID == "" {
		if sc, err = m.lib.PickScenario(patientID, used); err != nil {
			return nil, err
		}
	} else {
		var ok bool
		if sc, ok = m.scenario(scenarioID); !ok {
			return nil, fmt.Errorf("no scenario %q — /scenarios numbers the cases", scenarioID)
		}
		if used[sc.ID] {
			return nil, fmt.Errorf("another patient of this shift has that case already; /scenarios lists the others")
		}
	}
	e, err := m.ward.Admit(patientID, sc)
	if err != nil {
		return nil, err
	}
	m.mems[patientID] = memory.New(m.ward.Clock())
	m.dirty[patientID] = true
	return e, nil
}

// scenario is the scenario named by its id, or by its number in /scenarios' list.
func (m *sim) scenario(idOrNumber string) (*scenario.Scenario, bool) {
	if n, err := strconv.Atoi(idOrNumber); err == nil {
		list := m.lib.List()
		if n < 1 || n > len(list) {
			return nil, false
		}
		return list[n-1], true
	}
	return m.lib.Get(idOrNumber)
}

// facts is the registry's summary of a patient, so the roster can be drawn without the engine.
func facts(e *physio.Engine, bed string) map[string]any {
	sc := e.Scenario()
	if bed == "" {
		bed = sc.Demographics.Bed
	}
	f := map[string]any{
		"scenario": sc.ID, "name": sc.Demographics.Name, "age": sc.Demographics.Age,
		"sex": sc.Demographics.Sex, "bed": bed, "allergies": allergySummary(sc),
	}
	summaryOf(e).put(f)
	return f
}

func allergySummary(sc *scenario.Scenario) string {
	if len(sc.Allergies) == 0 {
		return "NKDA"
	}
	parts := make([]string, len(sc.Allergies))
	for i, a := range sc.Allergies {
		parts[i] = fmt.Sprintf("%s (%s)", a.Agent, a.Reaction)
	}
	return strings.Join(parts, "; ")
}

// record feeds engine events into the patients' memories, and returns by patient the readings
// memory pruned as repeats.
func (m *sim) record(events []physio.Event) map[string][]string {
	pruned := map[string][]string{}
	// the readings memory keeps, in one allocation rather than one each: a /wait brings one a
	// minute from every monitor
	readings := make([]memory.Vitals, 0, countKind(events, physio.EventVitals))
	for _, ev := range events {
		mem := m.mems[ev.PatientID]
		if mem == nil {
			continue
		}
		m.dirty[ev.PatientID] = true
		// the engine's own events are well-formed; a refusal only skips one item
		if ev.Kind == physio.EventVitals {
			readings = append(readings, memoryVitals(ev.Reading))
			_ = mem.Record(memory.VitalsMeasurements, memory.Item{T: ev.Reading.T, Vitals: &readings[len(readings)-1]})
			pruned[ev.PatientID] = nil
		} else if c, item, ok := memoryItem(ev); ok {
			_ = mem.Record(c, item)
		}
	}
	// a monitor reads every minute; unchanged repeats would grow memory all shift. A patient's
	// memory is pruned once, after all their readings are in: what pruning after each would drop.
	for id := range pruned {
		pruned[id] = m.mems[id].Prune()
	}
	return pruned
}

// countKind is how many of events are of kind.
func countKind(events []physio.Event, kind string) int {
	n := 0
	for _, ev := range events {
		if ev.Kind == kind {
			n++
		}
	}
	return n
}

// memoryItem is what memory keeps of an engine event other than a reading (record keeps those).
func memoryItem(ev physio.Event) (memory.Category, memory.Item, bool) {
	switch ev.Kind {
	case physio.EventAction:
		return memory.CriticalActions, memory.Item{T: ev.Action.T, Text: ev.Action.String()}, true
	case physio.EventState:
		return memory.StateHistory, memory.Item{T: ev.State.T, Text: fmt.Sprintf("%s → %s (%s)", ev.State.From, ev.State.To, ev.State.Reason)}, true
	case physio.EventSafety:
		return memory.Errors, memory.Item{T: ev.Safety.T, Text: fmt.Sprintf("%s %s: %s", ev.Safety.Level, ev.Safety.Drug, ev.Safety.Reason)}, true
	case physio.EventCriticalError:
		return memory.Errors, memory.Item{T: ev.Error.T, Text: ev.Error.Description}, true
	case physio.EventOrder:
		if ev.Order.Stopped() { // a near miss is safety history: the next order of it must carry it
			return memory.Errors, memory.Item{T: ev.Order.T, Text: "Pharmacist stopped " + ev.Order.Text() + ": " + ev.Order.Reason()}, true
		}
	}
	return "", memory.Item{}, false
}

// keepAll wakes every patient and marks them all dirty, so the next commit stores every engine
// as it is now: what a clear's archive must hold.
func (m *sim) keepAll() error {
	err := m.wakeAll()
	for _, e := range m.ward.Engines() {
		m.dirty[e.PatientID()] = true
	}
	return err
}

// save encodes every dirty patient's engine and memory into b.
func (m *sim) save(b *persist.Batch) error {
	for id := range m.dirty {
		if e := m.ward.Engine(id); e != nil {
			if err := putEncoded(b, persist.KindSim, id, e.EncodeJSON); err != nil {
				return err
			}
		}
		if mem := m.mems[id]; mem != nil {
			if err := b.PutPatientJSON(persist.KindMemory, id, mem); err != nil {
				return err
			}
		}
		if ents := m.ents[id]; ents != nil {
			if err := putEncoded(b, persist.KindEntities, id, ents.EncodeJSON); err != nil {
				return err
			}
		}
	}
	b.OnCommit(func() { clear(m.dirty) })
	return nil
}

// putEncoded puts the patient's document of kind as its own encoder writes it: by hand, byte
// for byte as encoding/json would (the engine's snapshot, the entities).
func putEncoded(b *persist.Batch, kind, id string, encode func() ([]byte, error)) error {
	doc, err := encode()
	if err != nil {
		return fmt.Errorf("put %s document of %s: %w", kind, id, err)
	}
	b.PutPatientEncoded(kind, id, doc)
	return nil
}

// recordEvents feeds engine events into memory, reports what memory pruned, and keeps the
// roster's summaries in the registry up to date with each patient's measured NEWS2, state and
// waiting alerts.
func (s *Session) recordEvents(t *turn, events []physio.Event) {
	pruned := s.sim.record(events)
	for _, id := range slices.Sorted(maps.Keys(pruned)) {
		s.reportPruning(t, id, memory.Pruning{Rule: memory.RuleVitalsRepeat, Pruned: pruned[id]}, s.chat.lineTokens(pruned[id]))
	}
	changed := map[string]bool{}
	for _, ev := range events {
		changed[ev.PatientID] = true // a reading, a state, an alert, or an action that reviews one
	}
	for id := range changed {
		if e := s.sim.ward.Engine(id); e != nil {
			s.reg.noteSummary(id, summaryOf(e))
		}
	}
}

// emitSim tells engine events, a SimEvent each, from one copy of them: the ward reuses its own
// at its next step.
func emitSim(emit func(Event), events []physio.Event) {
	own := slices.Clone(events)
	for i := range own {
		emit(SimEvent{&own[i]})
	}
}

// engine is a patient's engine, woken on first use; a patient who cannot be read is reported on
// the turn and treated as having no body.
func (s *Session) engine(t *turn, id string) *physio.Engine {
	e, err := s.sim.engine(id)
	if err != nil {
		t.emit(ErrorEvent{Code: "STORAGE", Message: "could not read " + id + ": " + err.Error()})
	}
	if e != nil {
		s.reg.noteSummary(id, summaryOf(e)) // a shift stored before summaries gets them as it wakes
	}
	return e
}

// advance lets seconds of sim time pass for every patient on the ward. The engine steps one sim
// second at a time, so a long wait and many short ticks end in the same state; that is also why
// only the patients with events are dirty (see sim).
func (s *Session) advance(t *turn, seconds float64) {
	if err := s.sim.wakeAll(); err != nil {
		t.emit(ErrorEvent{Code: "STORAGE", Message: "some patients could not be read, and time passes without them: " + err.Error()})
	}
	events := s.sim.ward.Advance(seconds)
	s.recordEvents(t, events)
	emitSim(t.emit, events)
	s.tellAlerts(t, events)
}

// Tick moves the real-time clock of the TUI on by a wall-clock interval, at the session's speed,
// unless it is paused. `ward run` never calls it: there time passes only by /wait, so headless
// runs are deterministic. The sim state is saved with the next commit, or by Flush.
func (s *Session) Tick(wall time.Duration, emit func(Event)) {
	if s.paused || wall <= 0 {
		return
	}
	s.begin(llm.TraceInput{Op: llm.InputTick, Wall: wall}, emit)
	t := &turn{emit: emit}
	s.advance(t, wall.Seconds()*s.speed)
	s.commit(t, nil) // the alarms it told, if any, with the state that raised them

}

// Flush saves what the clock changed since the last commit; the TUI calls it every few seconds
// and on exit, so a crash loses at most that much sim time and never a message. With nothing to
// save it makes no commit.
func (s *Session) Flush() error {
	if !s.simUnsaved() {
		return nil
	}
	return s.store(func(*persist.Batch) error { return nil })
}
