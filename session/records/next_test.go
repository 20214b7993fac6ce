package records

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/ward-sim/ward/session/scenario"
)

// A trainee who missed oxygen in two cases is offered a case that asks for it again, not one of
// their last shift, and told why; a weakness missed once does not outrank it.
func TestNextShiftTestsWhatTheTraineeMissesMost(t *testing.T) {
	lib, err := scenario.Load()
	if err != nil {
		t.Fatal(err)
	}
	missed := func(id string, actions ...string) PatientResult {
		return PatientResult{Attempted: true, Scenario: id, Missed: actions}
	}
	p := Progress{Shifts: []ShiftResult{
		{Session: "s1", Patients: []PatientResult{missed("pulmonary-embolism", "oxygen", "anticoagulation"), missed("upper-gi-bleed")}},
		{Session: "s2", Patients: []PatientResult{missed("asthma-exacerbation", "oxygen"), missed("anaphylaxis")}},
	}}
	next, ok := p.Suggest(lib)
	if !ok {
		t.Fatal("no next shift offered")
	}
	offered, _ := lib.Get(next.Scenario)
	if next.Action != "oxygen" || !asksFor(offered, "oxygen") {
		t.Errorf("offered %s for %q; want a case that asks for oxygen", next.Scenario, next.Action)
	}
	if slices.Contains([]string{"asthma-exacerbation", "anaphylaxis"}, next.Scenario) {
		t.Errorf("offered %s, a case of the last shift", next.Scenario)
	}
	if list := lib.List(); list[next.Number-1].ID != next.Scenario {
		t.Errorf("case %d of /scenarios is %s, not %s", next.Number, list[next.Number-1].ID, next.Scenario)
	}
	for _, want := range []string{`"oxygen"`, "2 case(s)", "pulmonary-embolism", "asthma-exacerbation"} {
		if !strings.Contains(next.Reason, want) {
			t.Errorf("the reason %q does not say %s", next.Reason, want)
		}
	}
	p.Next = &next
	var b bytes.Buffer
	if err := p.Table(&b); err != nil || !strings.Contains(b.String(), "Next shift: ward run --new, then /admit ID") ||
		!strings.Contains(b.String(), next.Reason) {
		t.Errorf("the progress table does not offer the next shift (%v):\n%s", err, b.String())
	}
	if _, ok := (Progress{Shifts: []ShiftResult{{Patients: []PatientResult{missed("svt")}}}}).Suggest(lib); ok {
		t.Error("a trainee who missed nothing is offered a shift to make it up")
	}
}
