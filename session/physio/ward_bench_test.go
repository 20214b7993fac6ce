package physio

import (
	"testing"

	sc "github.com/ward-sim/ward/session/scenario"
)

func BenchmarkWardAdvanceMultiCasualty(b *testing.B) {
	lib, err := sc.Load()
	if err != nil {
		b.Fatal(err)
	}
	shift, err := lib.Shift("multi-casualty")
	if err != nil {
		b.Fatal(err)
	}
	w := NewWard(1, 0)
	for _, p := range shift.Patients {
		s, _ := lib.Get(p.Scenario)
		if _, err := w.Admit(p.ID, s); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		w.Advance(1)
	}
}
