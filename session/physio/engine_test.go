package physio

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/ward-sim/ward/session/action"
	sc "github.com/ward-sim/ward/session/scenario"
)

// Headless: the asthma patient's baseline NEWS2 is 8,
// oxygen raises SpO2 within 3 sim minutes, and the AAR lists the actions
// with their times.
// What the trainee sees changes only when someone measures: their own check, or the nurse's
// next observation, due a minute after a NEWS2 of 7 or more.
func TestMeasuredVitalsOnlyWhenChecked(t *testing.T) {
	e := NewEngine("patient_1", scenario(t, "opioid-overdose"), 1, 0)
	if _, ok := e.Measured(); ok {
		t.Fatal("nothing measured yet, but Measured says ok")
	}
	e.Apply(action.Action{Kind: sc.KindCheckVitals})
	first, _ := e.Measured()
	if first.NEWS2 < 7 {
		t.Fatalf("the overdose should arrive with NEWS2 7 or more: %+v", first)
	}
	e.AdvanceTo(59, nil)
	if later, _ := e.Measured(); later.T != first.T || later.SpO2 != first.SpO2 {
		t.Errorf("measured vitals changed without a check: %+v then %+v", first, later)
	}
	e.AdvanceTo(300, nil)
	if later, _ := e.Measured(); later.Source != "nurse" || later.T != 300 {
		t.Errorf("the nurse should have observed every minute since: last reading %+v", later)
	}
	if e.TrueVitals().SpO2 >= first.SpO2 {
		t.Errorf("true SpO2 should have fallen while nobody treated him")
	}
	if first.Rhythm != "" || first.EtCO2 != 0 {
		t.Errorf("rhythm and EtCO2 need a monitor: %+v", first)
	}
}

func TestMonitorReadsContinuously(t *testing.T) {
	e := NewEngine("patient_1", scenario(t, "opioid-overdose"), 1, 0)
	events := e.Apply(action.Action{Kind: sc.KindAttachMonitor})
	events = e.AdvanceTo(185, events)
	if n := len(eventsOf(events, EventVitals)); n != 4 {
		t.Errorf("want a reading on attach and each minute (4), got %d", n)
	}
	live, _ := e.Measured()
	if live.T != 185 || live.Rhythm == "" || live.EtCO2 == 0 {
		t.Errorf("monitored reading should be live with rhythm and EtCO2: %+v", live)
	}
}

func TestEffectsActWithOnsetNotAtOnce(t *testing.T) {
	e := NewEngine("patient_1", scenario(t, "asthma-exacerbation"), 7, 0)
	e.Apply(action.Action{Kind: sc.KindOxygen, Device: "nrb", FlowLPM: 15})
	e.AdvanceTo(5, nil)
	if got := e.TrueVitals().SpO2; got > 89 {
		t.Errorf("SpO2 %d five seconds after oxygen; effects must not be instant", got)
	}
	control := NewEngine("patient_1", scenario(t, "asthma-exacerbation"), 7, 0)
	e.AdvanceTo(420, nil)
	control.AdvanceTo(420, nil)
	if got, without := e.TrueVitals().SpO2, control.TrueVitals().SpO2; got < without+6 || got > 97 {
		t.Errorf("SpO2 %d after seven minutes of oxygen, %d without; want the oxygen's 8 points, within its cap of 97", got, without)
	}
	e.Apply(action.Action{Kind: sc.KindStopOxygen})
	e.AdvanceTo(470, nil)
	if got := e.TrueVitals().SpO2; e.OnOxygen() || got > 93 {
		t.Errorf("SpO2 %d (on oxygen %v) after stopping oxygen; want it falling back", got, e.OnOxygen())
	}
}

func TestThresholdMustHoldForItsDuration(t *testing.T) {
	// Anaphylaxis goes to shock when SBP < 75 holds for 60 s (or after 5 min).
	e := NewEngine("patient_1", scenario(t, "anaphylaxis"), 3, 0)
	e.Apply(action.Action{Kind: sc.KindMedication, Drug: "nitroglycerin", DoseMg: 0.4, Route: "SL"}) // SBP 84 < 90: hard stop, pressure crashes
	var shockAt float64
	for t := 1.0; t <= 300 && shockAt == 0; t++ {
		for _, ev := range e.AdvanceTo(t, nil) {
			if ev.Kind == EventState && ev.State.To == "shock" {
				shockAt = ev.State.T
			}
		}
	}
	if shockAt == 0 || shockAt >= 300 {
		t.Fatalf("shock at %g; the held threshold should fire before the 5-minute rule", shockAt)
	}
}

func TestAllModeNeedsEveryCondition(t *testing.T) {
	// Sepsis improves only with fluids and antibiotics both given.
	e, _ := playFrom(t, cannulated(t, "sepsis-urosepsis", 42), 600, step{10, "500 mL saline bolus"})
	if e.State() != "sepsis" {
		t.Fatalf("fluids alone moved sepsis to %s", e.State())
	}
	e.Apply(action.Action{Kind: sc.KindMedication, Drug: "meropenem", DoseMg: 1000, Route: "IV"})
	if e.State() != "sepsis" {
		t.Fatalf("the antibiotic acted before its onset: state %s", e.State())
	}
	e.AdvanceTo(e.Clock()+5*60, nil) // meropenem IV: onset 5 minutes
	if e.State() != "improving" {
		t.Fatalf("fluids then antibiotics: state %s", e.State())
	}
}

func TestCOPDHarmedByHighFlowOxygen(t *testing.T) {
	e, events := play(t, "copd-exacerbation", 12*60, step{10, "oxygen 15 L via non-rebreather"})
	errs := eventsOf(events, EventCriticalError)
	if len(errs) != 1 || errs[0].Error.ID != "high-flow-oxygen" {
		t.Fatalf("critical errors %+v", errs)
	}
	v := e.TrueVitals()
	if e.State() != "co2-narcosis" || v.EtCO2 <= 60 || v.GCS >= 14 {
		t.Fatalf("state %s, EtCO2 %d, GCS %d; want rising CO2 and drowsiness", e.State(), v.EtCO2, v.GCS)
	}
	if n := e.TrueNEWS2(); n.Scale != 1 || n.Parts.SpO2 != 0 {
		t.Errorf("no target was prescribed, so SpO2 %d scores on Scale 1 as 0: got Scale %d, %d", v.SpO2, n.Scale, n.Parts.SpO2)
	}
}

func TestScenarioCriticalErrorOnlyInItsStates(t *testing.T) {
	e := NewEngine("patient_1", scenario(t, "hypoglycaemia"), 5, 0)
	ok := e.Apply(action.Action{Kind: sc.KindMedication, Drug: "glucose", Route: "BUCCAL", DoseMg: 15000})
	if len(eventsOf(ok, EventCriticalError)) != 0 {
		t.Fatal("buccal glucose while he can swallow is not an error")
	}
	late := NewEngine("patient_1", scenario(t, "hypoglycaemia"), 5, 0)
	late.AdvanceTo(11*60, nil)
	bad := late.Apply(action.Action{Kind: sc.KindMedication, Drug: "glucose", Route: "PO", DoseMg: 15000, Override: true})
	if errs := eventsOf(bad, EventCriticalError); len(errs) != 1 || errs[0].Error.ID != "oral-when-unsafe" {
		t.Fatalf("oral glucose when drowsy: %+v", errs)
	}
}

func TestSnapshotRestoreGivesIdenticalFutures(t *testing.T) {
	// Taken at 50 s, while the adrenaline (onset 1 minute) and the cannula are still to come.
	e, _ := play(t, "anaphylaxis", 50, step{20, "adrenaline 0.5 mg IM, oxygen 15L NRB, attach monitor, site a cannula"})
	if len(e.s.Pending) == 0 || e.s.AccessAt <= 50 {
		t.Fatalf("nothing pending at 50 s: %+v, access at %d", e.s.Pending, e.s.AccessAt)
	}
	data, err := json.Marshal(e.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	var snap Snapshot
	if err := json.Unmarshal(data, &snap); err != nil {
		t.Fatal(err)
	}
	twin, err := Restore(snap, e.Scenario())
	if err != nil {
		t.Fatal(err)
	}
	future := func(x *Engine) string {
		x.AdvanceTo(400, nil)
		x.Apply(action.Action{Kind: sc.KindFluids, VolumeML: 500})
		x.Apply(action.Action{Kind: sc.KindCheckVitals})
		x.AdvanceTo(1500, nil)
		out, _ := json.Marshal(x.Snapshot())
		return string(out)
	}
	if a, b := future(e), future(twin); a != b {
		t.Fatalf("futures differ:\n%s\n%s", a, b)
	}
}

func TestRestoreRejectsAMismatchedScenario(t *testing.T) {
	snap := NewEngine("patient_1", scenario(t, "anaphylaxis"), 1, 0).Snapshot()
	if _, err := Restore(snap, scenario(t, "hypoglycaemia")); err == nil {
		t.Fatal("restored an anaphylaxis snapshot into hypoglycaemia")
	}
	snap.State = "nowhere"
	if _, err := Restore(snap, scenario(t, "anaphylaxis")); err == nil {
		t.Fatal("restored into an unknown state")
	}
}

func TestSameSeedSameRun(t *testing.T) {
	a, _ := play(t, "sepsis-urosepsis", 900)
	b, _ := play(t, "sepsis-urosepsis", 900)
	if a.TrueVitals() != b.TrueVitals() {
		t.Fatal("same seed and clock gave different vitals")
	}
	c := NewEngine("patient_1", scenario(t, "sepsis-urosepsis"), 43, 0)
	c.AdvanceTo(900, nil)
	if c.Snapshot().RNG == a.Snapshot().RNG {
		t.Fatal("different seeds share a random state")
	}
}

func TestWardAdvancesEveryPatient(t *testing.T) {
	w := NewWard(9, 100)
	shift, err := library(t).Shift("busy-ed")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range shift.Patients {
		if _, err := w.Admit(p.ID, scenario(t, p.Scenario)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Admit("patient_1", scenario(t, "anaphylaxis")); err == nil {
		t.Fatal("admitted patient_1 twice")
	}
	w.Engine("patient_2").Apply(action.Action{Kind: sc.KindAttachMonitor})
	events := w.Advance(30 * 60)
	for _, e := range w.Engines() {
		if e.Clock() != 100+30*60 || e.Elapsed() != 30*60 {
			t.Errorf("%s at %g (elapsed %g)", e.PatientID(), e.Clock(), e.Elapsed())
		}
		if e.State() == e.Scenario().InitialState {
			t.Errorf("%s never moved from %s though nobody treated it", e.PatientID(), e.State())
		}
	}
	seen := map[string]bool{}
	for _, ev := range events {
		seen[ev.PatientID+" "+ev.Kind] = true
	}
	if !seen["patient_2 vitals"] || !seen["patient_4 state"] {
		t.Errorf("events lack monitor readings or state changes: %v", seen)
	}
	snap := w.Engine("patient_3").Snapshot()
	w2 := NewWard(9, w.Clock())
	if _, err := w2.Restore(snap, scenario(t, "fracture-morphine-allergy")); err != nil {
		t.Fatal(err)
	}
	w.Advance(60)
	w2.Advance(60)
	if w.Engine("patient_3").TrueVitals() != w2.Engine("patient_3").TrueVitals() {
		t.Error("a restored patient diverged on another ward")
	}
}

func TestEventJSONMatchesTheRunContract(t *testing.T) {
	e := cannulated(t, "fracture-morphine-allergy", 1)
	var events []Event
	events = append(events, e.Apply(action.Action{Kind: sc.KindCheckVitals})...)
	events = append(events, e.Apply(action.Action{Kind: sc.KindMedication, Drug: "morphine", DoseMg: 5, Route: "IV"})...)
	events = e.AdvanceTo(20*60, events)
	want := map[string][]string{
		EventVitals:        {"event", "patient_id", "t", "hr", "rr", "spo2", "sbp", "dbp", "temp_c", "gcs", "on_oxygen", "news2", "news2_parts"},
		EventAction:        {"event", "patient_id", "t", "action", "drug", "dose_mg", "route"},
		EventSafety:        {"event", "patient_id", "t", "level", "drug", "reason"},
		EventState:         {"event", "patient_id", "t", "from", "to", "reason"},
		EventCriticalError: {"event", "patient_id", "t", "id", "description"},
		EventOrder:         {"event", "patient_id", "t", "drug", "route", "dose", "verdict", "given"},
		EventEscalation:    {"event", "patient_id", "t", "raised", "kind", "level", "news2", "text"},
	}
	got := map[string]bool{}
	for _, ev := range events {
		data, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		if m["event"] != ev.Kind || m["patient_id"] != "patient_1" || m["t"] != ev.T() {
			t.Errorf("bad header in %s", data)
		}
		keys := want[ev.Kind]
		if ev.Kind == EventAction && ev.Action.Kind != sc.KindMedication {
			keys = keys[:4]
		}
		for _, k := range keys {
			if _, ok := m[k]; !ok {
				t.Errorf("%s event lacks %q: %s", ev.Kind, k, data)
			}
		}
		got[ev.Kind] = true
	}
	if len(got) != len(want) {
		t.Errorf("saw event kinds %v, want all of %v", got, want)
	}
}

// The log accessors show what a snapshot holds, and a caller's append to one
// does not share the engine's spare capacity.
func TestLogAccessorsMatchTheSnapshot(t *testing.T) {
	e, _ := playFrom(t, cannulated(t, "anaphylaxis", 42), 120, step{10, "any allergies?"}, step{20, "check vitals, amoxicillin 1 g IV"})
	snap := e.Snapshot()
	if !reflect.DeepEqual(e.Readings(), snap.Readings) || !reflect.DeepEqual(e.SafetyRecords(), snap.Safety) ||
		!reflect.DeepEqual(e.Actions(), snap.Actions) || !reflect.DeepEqual(e.CriticalErrors(), snap.Errors) {
		t.Fatal("accessors differ from the snapshot")
	}
	if len(snap.Readings) == 0 || len(snap.Safety) == 0 || !e.AllergiesAsked() {
		t.Fatalf("play recorded too little to compare: %+v", snap)
	}
	for cap(e.s.Readings) == len(e.s.Readings) { // leave the log spare capacity to share
		e.Apply(action.Action{Kind: sc.KindCheckVitals})
	}
	mine := append(e.Readings(), Reading{Source: "mine"})
	e.Apply(action.Action{Kind: sc.KindCheckVitals})
	if mine[len(mine)-1].Source != "mine" {
		t.Fatal("the caller's appended reading shares memory with the engine's log")
	}
}

// TestEncodeJSONIsTheSnapshots: what the store keeps of an engine, encoded where its state lies,
// is byte for byte the JSON of its Snapshot, in every case, as its course runs and the trainee acts.
func TestEncodeJSONIsTheSnapshots(t *testing.T) {
	for _, s := range library(t).List() {
		e, _ := play(t, s.ID, 0, step{30, "attach monitor, oxygen 15L NRB, site a cannula, check vitals"}, step{400, "fluids 500 mL"})
		for _, at := range []float64{400, 401, 1800, 4 * 3600} {
			e.AdvanceTo(at, nil)
			got, err := e.EncodeJSON()
			if err != nil {
				t.Fatal(err)
			}
			want, err := json.Marshal(e.Snapshot())
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s at %v s: EncodeJSON\n%s\nwant\n%s", s.ID, at, got, want)
			}
		}
	}
}
