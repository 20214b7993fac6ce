package session

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session/physio"
	"github.com/ward-sim/ward/session/scenario"
)

// sim is the shift's bodies: one engine per patient on the shared clock, and each patient's
// structured memory, which engine events feed. Patients whose state changed this turn are dirty
// and saved with the turn's last commit.
type sim struct {
	lib   *scenario.Library
	ward  *physio.Ward
	mems  map[string]*memory.Memory
	ents  map[string]*memory.Entities
	dirty map[string]bool
}

func newSim(lib *scenario.Library, seed int64, clock float64) *sim {
	return &sim{lib: lib, ward: physio.NewWard(seed, clock), mems: map[string]*memory.Memory{},
		ents: map[string]*memory.Entities{}, dirty: map[string]bool{}}
}

// load revives every stored engine and memory, so time resumes where the shift left it.
func (m *sim) load(tx *persist.Tx) error {
	sims, err := tx.PatientDocs(persist.KindSim)
	if err != nil {
		return err
	}
	for id, doc := range sims {
		if err := m.restoreEngine(id, doc); err != nil {
			return err
		}
	}
	if err := loadDocs(tx, persist.KindMemory, m.mems); err != nil {
		return err
	}
	return loadDocs(tx, persist.KindEntities, m.ents)
}

// loadDocs decodes every patient's document of one kind into into.
func loadDocs[T any](tx *persist.Tx, kind string, into map[string]*T) error {
	docs, err := tx.PatientDocs(kind)
	if err != nil {
		return err
	}
	for id, doc := range docs {
		v := new(T)
		if err := json.Unmarshal(doc, v); err != nil {
			return fmt.Errorf("%s of %s is unreadable: %w", kind, id, err)
		}
		into[id] = v
	}
	return nil
}

func (m *sim) restoreEngine(id string, doc []byte) error {
	var snap physio.Snapshot
	if err := json.Unmarshal(doc, &snap); err != nil {
		return fmt.Errorf("sim state of %s is unreadable: %w", id, err)
	}
	sc, ok := m.lib.Get(snap.Scenario)
	if !ok {
		return fmt.Errorf("%s runs scenario %q, which is not in the library (pass --scenarios DIR?)", id, snap.Scenario)
	}
	_, err := m.ward.Restore(snap, sc)
	return err
}

// admit starts a patient on a scenario: the named one, or a deterministic pick.
func (m *sim) admit(patientID, scenarioID string) (*physio.Engine, error) {
	sc := m.lib.PickScenario(patientID)
	if scenarioID != "" {
		var ok bool
		if sc, ok = m.lib.Get(scenarioID); !ok {
			return nil, fmt.Errorf("no scenario %q — /scenarios lists them", scenarioID)
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

// facts is the registry's summary of a patient, so the roster can be drawn without the engine.
func facts(e *physio.Engine, bed string) map[string]any {
	sc := e.Scenario()
	if bed == "" {
		bed = sc.Demographics.Bed
	}
	return map[string]any{
		"scenario": sc.ID, "name": sc.Demographics.Name, "age": sc.Demographics.Age,
		"sex": sc.Demographics.Sex, "bed": bed, "allergies": allergySummary(sc),
	}
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

// record feeds engine events into the patients' memories.
func (m *sim) record(events []physio.Event) {
	for _, ev := range events {
		mem := m.mems[ev.PatientID]
		if mem == nil {
			continue
		}
		if c, item, ok := memoryItem(ev); ok {
			_ = mem.Record(c, item) // the engine's own events are well-formed; a refusal only skips one item
			if c == memory.VitalsMeasurements {
				mem.Prune() // a monitor reads every minute; unchanged repeats would grow memory all shift
			}
		}
		m.dirty[ev.PatientID] = true
	}
}

func memoryItem(ev physio.Event) (memory.Category, memory.Item, bool) {
	switch ev.Kind {
	case physio.EventVitals:
		v := memoryVitals(ev.Reading)
		return memory.VitalsMeasurements, memory.Item{T: ev.Reading.T, Vitals: &v}, true
	case physio.EventAction:
		return memory.CriticalActions, memory.Item{T: ev.Action.T, Text: ev.Action.String()}, true
	case physio.EventState:
		return memory.StateHistory, memory.Item{T: ev.State.T, Text: fmt.Sprintf("%s → %s (%s)", ev.State.From, ev.State.To, ev.State.Reason)}, true
	case physio.EventSafety:
		return memory.Errors, memory.Item{T: ev.Safety.T, Text: fmt.Sprintf("%s %s: %s", ev.Safety.Level, ev.Safety.Drug, ev.Safety.Reason)}, true
	case physio.EventCriticalError:
		return memory.Errors, memory.Item{T: ev.Error.T, Text: ev.Error.Description}, true
	}
	return "", memory.Item{}, false
}

// save writes every dirty patient's engine and memory in the caller's transaction.
func (m *sim) save(tx *persist.Tx) error {
	for id := range m.dirty {
		if e := m.ward.Engine(id); e != nil {
			if err := putJSON(tx, persist.KindSim, id, e.Snapshot()); err != nil {
				return err
			}
		}
		if mem := m.mems[id]; mem != nil {
			if err := putJSON(tx, persist.KindMemory, id, mem); err != nil {
				return err
			}
		}
		if ents := m.ents[id]; ents != nil {
			if err := putJSON(tx, persist.KindEntities, id, ents); err != nil {
				return err
			}
		}
	}
	clear(m.dirty)
	return nil
}

func putJSON(tx *persist.Tx, kind, patientID string, v any) error {
	doc, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return tx.PutPatientDoc(kind, patientID, doc)
}

// saveSim writes the sim's changes since the last commit, and the shift clock, in tx.
func (s *Session) saveSim(tx *persist.Tx) error {
	if err := s.sim.save(tx); err != nil {
		return err
	}
	if clock := s.sim.ward.Clock(); clock != s.info.ClockSeconds {
		s.info.ClockSeconds = clock
		return tx.PutInfo(s.info)
	}
	return nil
}
