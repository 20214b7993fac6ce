package aar

import (
	"slices"
	"strings"
	"testing"
)

// An overdose stopped is a near miss: nothing given, no critical error, the body untouched. The
// same overdose overridden is given: the toxicity plays out and it is a critical error.
func TestOverdoseStoppedThenOverridden(t *testing.T) {
	control, _ := play(t, "anaphylaxis", 240, step{10, "adrenaline 0.5 mg IM"})
	stopped, _ := play(t, "anaphylaxis", 240, step{10, "adrenaline 0.5 mg IM"}, step{30, "adrenaline 5 mg IM"})
	overridden, _ := play(t, "anaphylaxis", 240, step{10, "adrenaline 0.5 mg IM"}, step{30, "adrenaline 5 mg IM"},
		step{40, "adrenaline 5 mg IM override"})

	if n := len(stopped.CriticalErrors()); n != 0 {
		t.Errorf("a stopped order made %d critical errors", n)
	}
	if stopped.TrueVitals() != control.TrueVitals() {
		t.Errorf("a stopped order changed the body: %+v, not %+v", stopped.TrueVitals(), control.TrueVitals())
	}
	r := Of(stopped)
	if len(r.NearMisses) != 1 || !slices.ContainsFunc(r.lines(PointNearMiss), func(l string) bool {
		return strings.HasPrefix(l, "00:30 — the Pharmacist stopped adrenaline 5 mg IM — adrenaline 5 mg IM is 10× the usual")
	}) {
		t.Errorf("the review does not report the near miss: %q", r.lines(PointNearMiss))
	}

	errs := overridden.CriticalErrors()
	if len(errs) != 1 || !strings.Contains(errs[0].Description, "overrode the Pharmacist's stop and gave adrenaline 5 mg IM") {
		t.Fatalf("critical errors %+v, want the override", errs)
	}
	if strings.Contains(errs[0].Description, "STOP") || strings.Contains(errs[0].Description, "override\"") {
		t.Errorf("the error keeps the Pharmacist's shouting: %s", errs[0].Description)
	}
	tox, ctl := overridden.TrueVitals(), control.TrueVitals()
	if tox.HR < ctl.HR+20 || tox.SBP < ctl.SBP+20 {
		t.Errorf("adrenaline overdose: HR %d SBP %d, against %d and %d without; want tachycardia and hypertension",
			tox.HR, tox.SBP, ctl.HR, ctl.SBP)
	}
	if r := Of(overridden); len(r.NearMisses) != 0 || len(r.OutOfRange) != 1 {
		t.Errorf("an overridden stop is an error and a dose out of range, not a near miss: %+v", r.Debrief)
	}
}
