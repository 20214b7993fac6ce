package physio

import (
	"fmt"
	"hash/fnv"

	sc "github.com/ward-sim/ward/session/scenario"
)

// Ward is the shared sim clock and the engines on it. Time passes for every
// patient, not only the one the trainee is looking at.
type Ward struct {
	seed    uint64
	clock   float64
	engines []*Engine // admission order, so events come out in a stable order
	events  []Event
}

// NewWard starts a ward at clock seconds. Each patient's engine is seeded
// from seed and the patient id, so a patient's course does not depend on who
// else is on the ward.
func NewWard(seed int64, clock float64) *Ward {
	return &Ward{seed: uint64(seed), clock: clock}
}

// Clock is the ward time in seconds.
func (w *Ward) Clock() float64 { return w.clock }

// Admit starts patientID on scenario s now, as the patient its variants draw for this ward's seed
// and patientID (the case as written when it declares none).
func (w *Ward) Admit(patientID string, s *sc.Scenario) (*Engine, error) {
	if w.Engine(patientID) != nil {
		return nil, fmt.Errorf("%s is already on the ward", patientID)
	}
	seed := w.patientSeed(patientID)
	who := s.Draw(seed)
	e := NewEngine(patientID, s.As(who), seed, w.clock)
	e.s.Patient = who
	w.engines = append(w.engines, e)
	return e, nil
}

// Restore puts a snapshotted patient back on the ward.
func (w *Ward) Restore(snap Snapshot, s *sc.Scenario) (*Engine, error) {
	if w.Engine(snap.PatientID) != nil {
		return nil, fmt.Errorf("%s is already on the ward", snap.PatientID)
	}
	e, err := Restore(snap, s)
	if err != nil {
		return nil, err
	}
	w.engines = append(w.engines, e)
	return e, nil
}

func (w *Ward) patientSeed(patientID string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(patientID))
	state := w.seed ^ h.Sum64()
	return splitmix64(&state)
}

// Engine returns the patient's engine, or nil.
func (w *Ward) Engine(patientID string) *Engine {
	for _, e := range w.engines {
		if e.s.PatientID == patientID {
			return e
		}
	}
	return nil
}

// Engines lists the patients in admission order.
func (w *Ward) Engines() []*Engine { return w.engines }

// Advance moves the clock on by dt seconds and every engine with it. The
// returned events are valid until the next call; in steady state (no events)
// it allocates nothing.
func (w *Ward) Advance(dt float64) []Event {
	w.clock += max(dt, 0)
	w.events = w.events[:0]
	for _, e := range w.engines {
		w.events = e.AdvanceTo(w.clock, w.events)
	}
	return w.events
}
