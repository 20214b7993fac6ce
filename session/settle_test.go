package session

import (
	"testing"
)

// On a screen that asks, a new patient named in free text waits for a yes once the shift has
// patients: nothing is admitted, the typed text is kept where it was typed, and the question
// carries the exact line a yes sends. Explicit /admit and ward run never ask.
func TestFreeTextAdmissionAsksFirst(t *testing.T) {
	r := newRigWith(t, func(c *Config) { c.ConfirmAdmissions = true })
	r.turn("review patient_1") // the first patient of an empty shift needs no yes
	events := r.turn("how about patient 6?")
	confirm := onlyOne(t, only[ConfirmEvent](events), "confirm event")
	if confirm.Line != "/admit patient_6" {
		t.Errorf("confirm line %q, want /admit patient_6", confirm.Line)
	}
	if _, admitted := r.s.reg.Patients["patient_6"]; admitted || r.s.Active() != "patient_1" {
		t.Fatalf("the question admitted or switched: roster %v, active %s", r.s.roster, r.s.Active())
	}
	if h := r.dump().Histories["patient_1"]; h[len(h)-1].Content != "how about patient 6?" {
		t.Errorf("the typed text is not kept with patient_1: %+v", h[len(h)-1])
	}
	r.turn(confirm.Line)
	if r.s.Active() != "patient_6" {
		t.Errorf("a yes did not admit patient_6 (active %s)", r.s.Active())
	}

	headless := newRig(t)
	headless.turn("review patient_1")
	if len(only[ConfirmEvent](headless.turn("review patient_6"))) != 0 || headless.s.Active() != "patient_6" {
		t.Error("ward run must admit at once, without a question")
	}
}
