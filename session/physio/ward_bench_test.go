package physio

import (
	"testing"

	"github.com/ward-sim/ward/session/action"
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

// BenchmarkNEWS2 scores one set of observations, as every measured reading is scored.
func BenchmarkNEWS2(b *testing.B) {
	v := Vitals{HR: 128, RR: 32, SpO2: 88, SBP: 138, DBP: 86, TempC: 37, GCS: 15, AVPU: "A"}
	b.ReportAllocs()
	for b.Loop() {
		NEWS2(v, 1, false)
	}
}

// BenchmarkWardAdvanceOnCourse is the tick of the multi-casualty shift's 8 patients in their first
// ten minutes, while every state drifts along its course and a drug given to each is still on
// its way to its peak: the engine's busiest seconds. Every ten sim minutes the ward is admitted
// afresh, outside the timer.
func BenchmarkWardAdvanceOnCourse(b *testing.B) {
	lib, err := sc.Load()
	if err != nil {
		b.Fatal(err)
	}
	shift, err := lib.Shift("multi-casualty")
	if err != nil {
		b.Fatal(err)
	}
	treat := action.Parse("IV access, oxygen 15 L via non-rebreather, naloxone 400 micrograms IM, salbutamol 5 mg nebulised")
	admit := func() *Ward {
		w := NewWard(1, 0)
		for _, p := range shift.Patients {
			s, _ := lib.Get(p.Scenario)
			e, err := w.Admit(p.ID, s)
			if err != nil {
				b.Fatal(err)
			}
			for _, a := range treat {
				e.Apply(a)
			}
		}
		return w
	}
	w := admit()
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		if n++; n%600 == 0 {
			b.StopTimer()
			w = admit()
			b.StartTimer()
		}
		w.Advance(1)
	}
}
