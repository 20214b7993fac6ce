// Package records is the read side: what a stored shift says, read without running it — the
// dump, the After Action Review, exports, progress, the class report, stats, archives and the
// findings that recur across a trainee's shifts. It sits below the turn, which reads earlier
// shifts through it, and restores stored engines (RestoreEngine) for every reader.
package records

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session/physio"
	"github.com/ward-sim/ward/session/scenario"
)

// DumpDoc is the `ward dump` document: the store's content, with each patient's engine state
// summarised as the engine sees it now.
type DumpDoc struct {
	Masked string `json:"masked,omitempty"` // what a trainee's view leaves out (view.go)
	persist.Dump
	Sim map[string]SimSummary `json:"sim"`
}

// SimSummary is one patient's engine in the dump.
type SimSummary struct {
	Scenario       string                `json:"scenario,omitempty"`
	Title          string                `json:"title,omitempty"`
	State          string                `json:"state,omitempty"`
	T              float64               `json:"t"`
	TrueVitals     *physio.Vitals        `json:"true_vitals,omitempty"`
	NEWS2          *int                  `json:"news2,omitempty"`
	Actions        []physio.ActionRecord `json:"actions"`
	CriticalErrors []physio.ErrorRecord  `json:"critical_errors"`
	Masked         string                `json:"masked,omitempty"` // what a trainee's view leaves out
}

// Dump returns the stored state of the latest shift. lib resolves the scenarios the engines run.
func Dump(store *persist.Store, lib *scenario.Library) (DumpDoc, error) {
	info, err := latest(store)
	if err != nil {
		return DumpDoc{}, err
	}
	d, err := store.Dump(info.ID)
	if err != nil {
		return DumpDoc{}, err
	}
	doc := DumpDoc{Dump: d, Sim: map[string]SimSummary{}}
	w, err := storedWard(lib, info, d.Sim)
	if err != nil {
		return DumpDoc{}, err
	}
	for _, e := range w.Engines() {
		doc.Sim[e.PatientID()] = summarise(e)
	}
	return doc, nil
}

// storedWard puts a stored shift's engines back on a ward of the shift's seed and clock.
func storedWard(lib *scenario.Library, info persist.SessionInfo, docs map[string]json.RawMessage) (*physio.Ward, error) {
	w := physio.NewWard(info.Seed, info.ClockSeconds)
	for id, raw := range docs {
		if _, err := RestoreEngine(w, lib, id, raw); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// RestoreEngine puts one patient's stored engine (its snapshot, doc) back on w, running its
// scenario from lib. The turn wakes a patient with it as every read of a stored shift does.
func RestoreEngine(w *physio.Ward, lib *scenario.Library, id string, doc []byte) (*physio.Engine, error) {
	var snap physio.Snapshot
	if err := json.Unmarshal(doc, &snap); err != nil {
		return nil, fmt.Errorf("sim state of %s is unreadable: %w", id, err)
	}
	sc, ok := lib.Get(snap.Scenario)
	if !ok {
		return nil, fmt.Errorf("%s runs scenario %q, which is not in the library (pass --scenarios DIR?)", id, snap.Scenario)
	}
	return w.Restore(snap, sc)
}

// AAR is the After Action Review of one patient of the latest shift; "" means the active one.
func AAR(store *persist.Store, lib *scenario.Library, patientID string) (physio.Report, error) {
	info, err := latest(store)
	if err != nil {
		return physio.Report{}, err
	}
	var reg persist.Registry
	var doc []byte
	err = store.View(info.ID, func(tx *persist.Tx) error {
		if reg, err = tx.Registry(); err != nil {
			return err
		}
		if patientID == "" {
			patientID = reg.ActivePatientID
		}
		doc, err = tx.PatientDoc(persist.KindSim, patientID)
		return err
	})
	if err != nil {
		return physio.Report{}, err
	}
	if doc == nil {
		return physio.Report{}, fmt.Errorf("no simulated patient %q in this shift (roster: %v) — pass --patient ID", patientID, reg.IDs())
	}
	e, err := RestoreEngine(physio.NewWard(info.Seed, info.ClockSeconds), lib, patientID, doc)
	if err != nil {
		return physio.Report{}, err
	}
	return e.Report(), nil
}

func summarise(e *physio.Engine) SimSummary {
	vitals, news2 := e.TrueVitals(), e.TrueNEWS2().Total
	return SimSummary{
		Scenario: e.Scenario().ID, Title: e.Scenario().Title, State: e.State(), T: e.Elapsed(), TrueVitals: &vitals,
		NEWS2: &news2, Actions: nonNil(e.Actions()), CriticalErrors: nonNil(e.CriticalErrors()),
	}
}

// nonNil makes an empty list encode as [] rather than null.
func nonNil[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

// ErrNoSession is what Resume and every read of the latest shift return when the store holds
// no shift yet.
var ErrNoSession = errors.New("no session in this database yet")

func latest(store *persist.Store) (persist.SessionInfo, error) {
	info, ok, err := store.LatestSession()
	if err == nil && !ok {
		err = ErrNoSession
		if who := store.Person(); who.Trainee != "" {
			err = noShiftOf(who.Trainee)
		}
	}
	return info, err
}

// noShiftOf says that a trainee has no shift yet; it matches ErrNoSession.
type noShiftOf string

func (t noShiftOf) Error() string {
	return fmt.Sprintf("trainee %s has no shift in this database yet (--trainee names another)", string(t))
}

func (noShiftOf) Unwrap() error { return ErrNoSession }
