//go:build !race

package physio

import "testing"

// In steady state — no readings or state changes due — advancing the ward
// allocates nothing.
func TestWardAdvanceDoesNotAllocate(t *testing.T) {
	w := NewWard(1, 0)
	shift, err := library(t).Shift("multi-casualty")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range shift.Patients {
		if _, err := w.Admit(p.ID, scenario(t, p.Scenario)); err != nil {
			t.Fatal(err)
		}
	}
	w.Advance(3 * 3600) // let every scenario reach a state it stays in
	if n := testing.AllocsPerRun(200, func() { w.Advance(1) }); n != 0 {
		t.Fatalf("Advance allocated %g times per tick", n)
	}
}
