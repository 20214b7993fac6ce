package aar

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ward-sim/ward/session/physio"
)

// Headless: the asthma patient's baseline NEWS2 is 8,
// oxygen raises SpO2 within 3 sim minutes, and the AAR lists the actions
// with their times.
func TestAsthmaEndToEnd(t *testing.T) {
	e, events := play(t, "asthma-exacerbation", 4*60,
		step{0, "check vitals"},
		step{30, "applying oxygen 15 L NRB"},
		step{210, "recheck vitals"},
	)
	var vitals []physio.Event // the trainee's checks; a nurse observes a NEWS2 of 8 every minute too
	for _, ev := range eventsOf(events, physio.EventVitals) {
		if ev.Reading.Source == "check" {
			vitals = append(vitals, ev)
		}
	}
	if len(vitals) != 2 {
		t.Fatalf("want 2 checked readings, got %d", len(vitals))
	}
	base, after := vitals[0].Reading, vitals[1].Reading
	if base.NEWS2 != 8 || base.HR != 128 || base.RR != 32 || base.SpO2 != 88 || base.SBP != 138 || base.DBP != 86 || base.AVPU != "A" {
		t.Fatalf("baseline %+v, want the reference patient with NEWS2 8", base)
	}
	if after.T-30 > 180 || after.SpO2 < 94 {
		t.Fatalf("SpO2 %d at %gs after oxygen at 30s; want ≥ 94 within 3 min", after.SpO2, after.T)
	}
	r := Of(e)
	md := r.Markdown()
	for _, want := range []string{"| 00:00 | check vitals |", "| 00:30 | oxygen nrb 15 L/min |", "| 03:30 | check vitals |"} {
		if !strings.Contains(md, want) {
			t.Errorf("AAR lacks %q:\n%s", want, md)
		}
	}
	var actions []float64
	for _, te := range r.Timeline {
		if te.Kind == "action" {
			actions = append(actions, te.Elapsed)
		}
	}
	if !reflect.DeepEqual(actions, []float64{0, 30, 210}) {
		t.Errorf("action times %v", actions)
	}
}
