package physio

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/ward-sim/ward/session/action"
	sc "github.com/ward-sim/ward/session/scenario"
)

func TestObsInterval(t *testing.T) {
	cases := []struct {
		news2 int
		band  string
		want  float64
	}{
		{0, BandLow, 3600}, {1, BandLow, 1200}, {4, BandLow, 1200}, {3, BandLowMedium, 300},
		{5, BandMedium, 300}, {6, BandMedium, 300}, {7, BandHigh, 60}, {15, BandHigh, 60},
	}
	for _, c := range cases {
		if got := ObsInterval(c.news2, c.band); got != c.want {
			t.Errorf("NEWS2 %d (%s): every %gs, want %gs", c.news2, c.band, got, c.want)
		}
	}
}

// A monitored patient alarms once when a vital crosses its limit, then sounds again every two
// minutes until the trainee has both acknowledged it and reviewed the patient.
func TestAlarmRepeatsUntilAcknowledgedAndReviewed(t *testing.T) {
	e := NewEngine("patient_1", scenario(t, "opioid-overdose"), 1, 0)
	events := e.Apply(action.Action{Kind: sc.KindAttachMonitor}) // RR 6, SpO2 78: both below their limits
	alarms := eventsOf(events, EventAlarm)
	a := onlyEvent(t, alarms).Alert
	if a.Level != LevelAlarm || !strings.HasPrefix(a.Text, "Alarm: RR ") || !strings.Contains(a.Text, "(below 8)") ||
		!strings.Contains(a.Text, "SpO2 ") || !strings.Contains(a.Text, "(below 90)") {
		t.Fatalf("alarm %+v", a)
	}
	// The trainee attached the monitor, so they reviewed the patient: only acknowledgement is missing.
	events = e.AdvanceTo(5*60, nil)
	if n := len(eventsOf(events, EventAlarm)); n != 2 {
		t.Errorf("%d repeats in five minutes, want 2 (every two minutes)", n)
	}
	if n := len(e.Alerts()); n != 1 {
		t.Errorf("a vital that stays low raised %d alarms, want 1 repeating", n)
	}
	e.Acknowledge()
	if w, ok := e.Waiting(); ok {
		t.Errorf("acknowledged and reviewed, yet still waiting: %+v", w)
	}
	if events = e.AdvanceTo(350, nil); len(eventsOf(events, EventAlarm)) != 0 {
		t.Errorf("an answered alarm sounded again while the same limits stay crossed: %+v", e.Alerts())
	}
	// A limit crossed anew is a new alarm: his heart rate falls below 40 at seven minutes.
	events = e.AdvanceTo(430, nil)
	if a := onlyEvent(t, eventsOf(events, EventAlarm)).Alert; a.Repeats != 0 || !strings.Contains(a.Text, "HR ") {
		t.Errorf("new alarm %+v, want one naming the heart rate", a)
	}
}

// The trainee changes a limit per patient: a CO2 retainer's SpO2 of 87 is expected.
func TestAlarmLimitsPerPatient(t *testing.T) {
	e := NewEngine("patient_1", scenario(t, "copd-exacerbation"), 1, 0)
	limit := func(v sc.Vital, below bool) float64 {
		for _, l := range e.AlarmLimits() {
			if l.Vital == v && l.Below == below {
				return l.Value
			}
		}
		return -1
	}
	if got := limit(sc.SpO2, true); got != 86 {
		t.Errorf("the COPD scenario's SpO2 limit is %g, want its own 86", got)
	}
	e.SetAlarmLimit(sc.AlarmLimit{Vital: sc.SpO2, Below: true, Value: 84})
	e.SetAlarmLimit(sc.AlarmLimit{Vital: sc.HR, Value: 150})
	if limit(sc.SpO2, true) != 84 || limit(sc.HR, false) != 150 || limit(sc.HR, true) != 40 {
		t.Errorf("limits %v", e.AlarmLimits())
	}
}

// An unmonitored patient is observed by a nurse, who escalates when NEWS2 reaches 5 (urgent) and
// 7 (emergency), naming the numbers, and calls again while nobody answers.
func TestNurseEscalatesAnUnseenPatient(t *testing.T) {
	e := NewEngine("patient_2", scenario(t, "acs-sildenafil"), 3, 0)
	events := e.AdvanceTo(40*60, nil)
	var levels []string
	for _, ev := range eventsOf(events, EventEscalation) {
		if ev.Alert.Repeats == 0 {
			levels = append(levels, ev.Alert.Level)
		}
	}
	if len(levels) == 0 || levels[len(levels)-1] != LevelEmergency {
		t.Fatalf("escalations %v over 40 unseen minutes of a STEMI, want one ending in an emergency", levels)
	}
	w, ok := e.Waiting()
	if !ok || w.Level != LevelEmergency || !strings.HasPrefix(w.Text, "NEWS2 ") || !strings.Contains(w.Text, "BP ") ||
		!strings.HasSuffix(w.Text, "please come now.") {
		t.Errorf("waiting %+v", w)
	}
	if !slicesHasSource(e.Readings(), "nurse") {
		t.Error("no nurse observations")
	}
	if len(eventsOf(events, EventEscalation)) <= len(levels) {
		t.Error("an unanswered escalation never sounded again")
	}
}

func slicesHasSource(rs []Reading, source string) bool {
	for _, r := range rs {
		if r.Source == source {
			return true
		}
	}
	return false
}

// A scenario may say nobody watches a patient: no nurse, no alarms.
func TestUnwatchedPatientHasNoObservations(t *testing.T) {
	s := *scenario(t, "acs-sildenafil")
	s.Monitoring.Mode = sc.MonitorNone
	e := NewEngine("patient_2", &s, 3, 0)
	if events := e.AdvanceTo(40*60, nil); len(events) != len(eventsOf(events, EventState)) {
		t.Errorf("an unwatched patient reported more than state changes: %+v", events)
	}
}

func TestContinuousMonitoringFromArrival(t *testing.T) {
	s := *scenario(t, "opioid-overdose")
	s.Monitoring.Mode = sc.MonitorContinuous
	e := NewEngine("patient_1", &s, 3, 0)
	events := e.AdvanceTo(1, nil)
	if !e.Monitored() || len(eventsOf(events, EventVitals)) != 1 || len(eventsOf(events, EventAlarm)) != 1 {
		t.Errorf("monitored %v, events %+v", e.Monitored(), events)
	}
}

// Alerts and orders survive a snapshot, and the copy shares nothing with the engine.
func TestAlertsRoundTripASnapshot(t *testing.T) {
	e, _ := play(t, "opioid-overdose", 200, step{5, "put him on the monitor"}, step{10, "give naloxone some"})
	e.Acknowledge()
	data, err := json.Marshal(e.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	var snap Snapshot
	if err := json.Unmarshal(data, &snap); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(snap, e.Snapshot()) {
		t.Errorf("snapshot changed through JSON:\n%+v\n%+v", snap, e.Snapshot())
	}
	if len(snap.Alerts) == 0 || len(snap.Orders) == 0 {
		t.Fatalf("nothing to compare: %+v", snap)
	}
	*snap.Alerts[0].Acknowledged = -5
	if *e.s.Alerts[0].Acknowledged == -5 {
		t.Error("a snapshot shares the acknowledgement time with the engine")
	}
}

// A nurse tells the doctor at the bedside rather than calling them: no escalation while the
// trainee has acted for the patient within two minutes, a call at the first observation after.
func TestNurseDoesNotCallTheDoctorAtTheBedside(t *testing.T) {
	_, events := play(t, "opioid-overdose", 400, step{0, "check vitals"}, step{100, "check vitals"})
	esc := eventsOf(events, EventEscalation)
	if len(esc) == 0 || esc[0].Alert.Raised != 220 {
		t.Fatalf("escalations %+v, want the first at 220 s (two minutes after the last check at 100)", esc)
	}
	if n := len(eventsOf(events, EventVitals)); n < 6 {
		t.Errorf("%d readings: the nurse should have observed every minute all along", n)
	}
}

func TestAcknowledgingAloneDoesNotEndAnAlarm(t *testing.T) {
	w := NewWard(1, 0)
	e, _ := w.Admit("patient_1", scenario(t, "opioid-overdose"))
	e.s.Monitored, e.s.NextReading = true, 30 // put on a monitor by the scenario, not the trainee
	w.Advance(31)
	if n := e.Acknowledge(); n != 1 {
		t.Fatalf("acknowledged %d alarms, want 1", n)
	}
	events := w.Advance(150)
	if n := len(eventsOf(events, EventAlarm)); n != 1 {
		t.Errorf("an alarm acknowledged but not reviewed sounded %d times in 150 s, want once", n)
	}
	e.Apply(action.Action{Kind: sc.KindCheckVitals})
	if _, ok := e.Waiting(); ok {
		t.Error("acknowledged and reviewed, yet still waiting")
	}
}
