package records

import (
	"encoding/json"
	"fmt"

	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session/aar"
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

// Dump returns the stored state of the latest shift whole, as a value: the document WriteDump
// prints a part at a time (`ward dump` prints with WriteDump; tests read this). lib resolves the
// scenarios the engines run.
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
	w, err := currentWard(lib, info, d.Sim)
	if err != nil {
		return DumpDoc{}, err
	}
	for _, e := range w.Engines() {
		doc.Sim[e.PatientID()] = summarise(e)
	}
	return doc, nil
}

// AAR is the After Action Review of one patient of the latest shift; "" means the active one.
func AAR(store *persist.Store, lib *scenario.Library, patientID string) (aar.Report, error) {
	info, err := latest(store)
	if err != nil {
		return aar.Report{}, err
	}
	var reg persist.Registry
	var doc []byte
	var msgs []memory.Message
	err = store.View(info.ID, func(tx *persist.Tx) error {
		if reg, err = tx.Registry(); err != nil {
			return err
		}
		if patientID == "" {
			patientID = reg.ActivePatientID
		}
		if doc, err = tx.PatientDoc(persist.KindSim, patientID); err != nil {
			return err
		}
		msgs, err = tx.History(patientID)
		return err
	})
	if err != nil {
		return aar.Report{}, err
	}
	if doc == nil {
		return aar.Report{}, fmt.Errorf("no simulated patient %q in this shift (roster: %v) — pass --patient ID", patientID, reg.IDs())
	}
	w, err := currentWard(lib, info, map[string]json.RawMessage{patientID: doc})
	if err != nil {
		return aar.Report{}, err
	}
	r := aar.Of(w.Engine(patientID))
	WithTeam(&r, msgs)
	return r, nil
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
