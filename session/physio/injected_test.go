package physio

import (
	"encoding/json"
	"errors"
	"testing"
)

// The instructor's injections are the case's own record: they survive a snapshot, and a case the
// instructor ended takes nothing more and stands still.
func TestInjectedAndEnded(t *testing.T) {
	e := NewEngine("patient_1", scenario(t, "anaphylaxis"), 1, 0)
	e.AdvanceTo(60, nil)
	ev, err := e.Deteriorate("shock")
	if err != nil || ev.Kind != EventState || ev.State.To != "shock" || ev.State.Reason != "injected by the instructor" {
		t.Fatalf("Deteriorate: %+v, %v", ev, err)
	}
	if err := e.Record(InjectResult, "tryptase raised"); err != nil {
		t.Fatal(err)
	}
	if rs := e.Results(); len(rs) == 0 || rs[len(rs)-1].String() != "result tryptase raised" {
		t.Errorf("results = %+v", rs)
	}
	doc, err := json.Marshal(e.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	var snap Snapshot
	if err := json.Unmarshal(doc, &snap); err != nil {
		t.Fatal(err)
	}
	back, err := Restore(snap, e.Scenario())
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Injections(); len(got) != 2 || got[0].String() != "a deterioration to shock" || got[0].T != 60 {
		t.Errorf("restored injections = %+v", got)
	}
	if err := back.End(); err != nil {
		t.Fatal(err)
	}
	at := back.Clock()
	back.AdvanceTo(at+600, nil)
	_, detErr := back.Deteriorate("recovered")
	if back.Clock() != at || !errors.Is(back.End(), ErrClosed) || !errors.Is(back.Record(InjectCall, "hello"), ErrClosed) || !errors.Is(detErr, ErrClosed) {
		t.Error("an ended case moved on or took more")
	}
	if d, _ := back.Disposition(); d.Place != PlaceEnded || d.Accepted {
		t.Errorf("disposition = %+v", d)
	}
}
