package aar

import (
	"slices"
	"strings"
	"testing"

	"github.com/ward-sim/ward/session/action"
	"github.com/ward-sim/ward/session/physio"
	sc "github.com/ward-sim/ward/session/scenario"
)

// An alarm acknowledged and then reviewed in time is credited in the debrief and costs nothing
// (physio's TestAcknowledgingAloneDoesNotEndAnAlarm plays the same alarm on the engine).
func TestAnAlarmReviewedInTimeIsCredited(t *testing.T) {
	snap := physio.NewEngine("patient_1", scenario(t, "opioid-overdose"), 1, 0).Snapshot()
	snap.Monitored, snap.NextReading = true, 30 // put on a monitor by the scenario, not the trainee
	e, err := physio.Restore(snap, scenario(t, "opioid-overdose"))
	if err != nil {
		t.Fatal(err)
	}
	e.AdvanceTo(31, nil)
	if n := e.Acknowledge(); n != 1 {
		t.Fatalf("acknowledged %d alarms, want 1", n)
	}
	e.AdvanceTo(181, nil)
	e.Apply(action.Action{Kind: sc.KindCheckVitals})
	r := Of(e)
	if o := r.Alerts[0]; o.ReviewedAfter == nil || *o.ReviewedAfter != 151 {
		t.Errorf("reviewed after %v, want 151 s", o.ReviewedAfter)
	}
	if !slices.Contains(r.lines(PointPlus), "00:30 — Monitor alarm (RR 6 (below 8), SpO2 77 (below 90)): reviewed 02:31 later") {
		t.Errorf("the debrief does not credit the review in time: %q", r.lines(PointPlus))
	}
	if slices.ContainsFunc(r.Score.Breakdown, func(l ScoreLine) bool { return strings.HasPrefix(l.Item, "alert not reviewed") }) {
		t.Errorf("an alert reviewed in time cost points: %+v", r.Score.Breakdown)
	}
}
