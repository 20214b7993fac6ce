package aar

import (
	"strings"
	"testing"

	"github.com/ward-sim/ward/session/physio"
)

// Without a return of circulation, nothing to be done after ROSC is missed: the 12-lead and the
// referral do not apply, and the actions' part is scored out of what did.
func TestAfterROSCItemsDoNotApplyWithoutROSC(t *testing.T) {
	e, _ := play(t, "arrest-vf-ward", 400, step{40, "crash call, start CPR"}, step{60, "pads on"})
	r := Of(e)
	for _, o := range r.CriticalActions {
		if o.ID == "ecg-after-rosc" && (!o.Moot || !strings.Contains(o.MootWhy, "never reached rosc")) {
			t.Errorf("12-lead after ROSC without ROSC: %+v", o)
		}
	}
	if d := points(r, PointMissed); strings.Contains(d, "after ROSC") {
		t.Errorf("missed without ROSC:\n%s", d)
	}
	if l := scoreLine(r, "A 12-lead ECG after ROSC"); !l.NotApplicable {
		t.Errorf("score line %+v", l)
	}
	// recognise 10, cpr 20, pads 10 of the 75 that applied (first shock and rhythm missed)
	if a := part(r, PartActions); !strings.Contains(a.Why, "of the 75 that applied") {
		t.Errorf("actions part %+v", a)
	}
}

// One dose is never both praised and faulted: adrenaline the arrest review calls early is not
// also "rightly without waiting".
func TestEarlyAdrenalineIsNotAlsoPraised(t *testing.T) {
	e, _ := play(t, "arrest-vf-ward", 300, step{40, "start CPR"}, step{60, "pads on"},
		step{70, "stop CPR, rhythm check"}, step{75, "IV access, adrenaline 1 mg IV"}, step{80, "resume CPR"})
	r := Of(e)
	all := points(r, PointPlus) + "\n" + points(r, PointDelta)
	if !strings.Contains(all, "early") {
		t.Fatalf("the arrest review does not call the adrenaline early:\n%s", all)
	}
	if plus := points(r, PointPlus); strings.Contains(plus, "Adrenaline in cardiac arrest") {
		t.Errorf("the early adrenaline is praised too:\n%s", plus)
	}
}

// Compressions asked for before the arrest are not started (the patient has a pulse): the nurse
// says so, and nothing in the record says they were going.
func TestCompressionsBeforeTheArrestAreNotStarted(t *testing.T) {
	e, events := play(t, "arrest-vf-ward", 60, step{10, "start CPR"})
	var refused []string
	for _, ev := range events {
		if ev.Kind == physio.EventOrder && ev.Order.Refused {
			refused = append(refused, ev.Order.Say)
		}
		if ev.Kind == physio.EventAction && ev.Action.Kind == "cpr" {
			t.Errorf("compressions recorded on a beating heart at %g", ev.Action.T)
		}
	}
	if len(refused) != 1 || !strings.Contains(refused[0], "not in cardiac arrest") {
		t.Errorf("refusals %q", refused)
	}
	r := Of(e)
	if plus := points(r, PointPlus); strings.Contains(plus, "compressions") {
		t.Errorf("praised for compressions never given:\n%s", plus)
	}
}

// Hands off and on again in one sim second (the clock paused, or lines sent at once) is a pause
// no timer measures: the review says the metrics count sim time and how many pauses it missed.
func TestInstantPausesAreNamedNotCountedAsPerfect(t *testing.T) {
	e, _ := play(t, "arrest-vf-ward", 120, step{35, "crash call, start CPR"}, step{50, "pads on"},
		step{60, "stop compressions, rhythm check"}, step{60, "resume CPR"})
	r := Of(e)
	if r.Arrest.InstantPauses != 1 {
		t.Fatalf("instant pauses %d, want 1", r.Arrest.InstantPauses)
	}
	all := points(r, PointPlus) + "\n" + points(r, PointDelta)
	if !strings.Contains(all, "counted in sim time: 1 pause(s) began and ended in the same sim second") {
		t.Errorf("the debrief does not say how the metrics were counted:\n%s", all)
	}
	if !strings.Contains(r.Markdown(), "The compression fraction and the pauses are counted in sim time") {
		t.Errorf("the review does not say how the metrics were counted")
	}
}
