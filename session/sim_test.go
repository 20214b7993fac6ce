package session

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session/aar"
	"github.com/ward-sim/ward/session/physio"
	"github.com/ward-sim/ward/session/records"
)

// storedT is the ward second of a patient's engine as the store holds it.
func storedT(t *testing.T, store *persist.Store, shift, id string) int64 {
	t.Helper()
	var snap physio.Snapshot
	err := store.View(shift, func(tx *persist.Tx) error {
		doc, err := tx.PatientDoc(persist.KindSim, id)
		if err == nil {
			err = json.Unmarshal(doc, &snap)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap.T
}

// TestTimeAloneWritesNoPatient: a /wait stores the clock and the patients something happened
// to, not every patient whose clock moved; a new process brings the others up to the clock and
// finds every engine exactly as the first left it, as do the dump and the review.
func TestTimeAloneWritesNoPatient(t *testing.T) {
	r := newRig(t)
	for _, line := range []string{"/admit patient_1 anaphylaxis", "/admit patient_2", "/admit patient_3", "switch to patient_1", "checking vitals", "/wait 30s"} {
		r.turn(line)
	}
	if got := storedT(t, r.store, r.s.ID(), "patient_3"); got != 0 {
		t.Errorf("patient_3's stored engine is at second %d after a quiet /wait 30s; want 0, as admitted", got)
	}
	r.turn("/wait 20m") // long enough for nurses' observations and the anaphylaxis to move on
	r.turn("give adrenaline 500 micrograms IM")
	r.turn("/wait 5s")
	clock := int64(r.s.sim.ward.Clock())
	want := map[string]physio.Snapshot{}
	reviews := map[string]aar.Report{}
	for _, e := range r.s.sim.ward.Engines() {
		if e.Clock() != float64(clock) {
			t.Fatalf("%s's engine is at %v, the ward at %d", e.PatientID(), e.Clock(), clock)
		}
		want[e.PatientID()], reviews[e.PatientID()] = e.Snapshot(), aar.Of(e)
	}
	lagging := 0
	for id := range want {
		if storedT(t, r.store, r.s.ID(), id) < clock {
			lagging++
		}
	}
	if lagging == 0 {
		t.Errorf("every patient was stored at the clock after a quiet /wait 5s; want the untouched ones left as they were")
	}

	r.restart()
	if err := r.s.sim.wakeAll(); err != nil {
		t.Fatal(err)
	}
	for id, w := range want {
		if got := r.engine(id).Snapshot(); !reflect.DeepEqual(got, w) {
			t.Errorf("%s resumed at second %d in state %s, want second %d in state %s, identical", id, got.T, got.State, w.T, w.State)
		}
	}
	for id, review := range reviews {
		got, err := records.AAR(r.store, r.s.cfg.Scenarios, id)
		if err != nil || !reflect.DeepEqual(got, review) {
			t.Errorf("ward aar of %s read from the store differs from the running engine's (%v)", id, err)
		}
	}
	for id, sum := range r.dump().Sim {
		if int64(sum.T) != clock-want[id].Admitted || sum.State != want[id].State {
			t.Errorf("dump of %s: second %v in %s, want %d in %s", id, sum.T, sum.State, clock-want[id].Admitted, want[id].State)
		}
	}
}

// TestClearArchivesEveryEngineAtTheClock: a clear stores every engine as it is at the clear,
// so its archive, read back without the session, is the shift as it ended.
func TestClearArchivesEveryEngineAtTheClock(t *testing.T) {
	r := newRig(t)
	for _, line := range []string{"/admit patient_1", "/admit patient_2", "/wait 30s"} {
		r.turn(line)
	}
	clock := int64(r.s.sim.ward.Clock())
	r.turn("/clear")
	d := r.dump()
	if len(d.Archives) != 1 {
		t.Fatalf("%d archives after a clear, want 1", len(d.Archives))
	}
	for id, doc := range d.Archives[0].Sim {
		var snap physio.Snapshot
		if err := json.Unmarshal(doc, &snap); err != nil {
			t.Fatal(err)
		}
		if snap.T != clock {
			t.Errorf("%s archived at second %d, want the clock of the clear, %d", id, snap.T, clock)
		}
	}
}
