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

// BenchmarkParseActions parses the five-part compound message, which every turn's parse resembles.
func BenchmarkParseActions(b *testing.B) {
	const text = "applying oxygen via non-rebreather at 15L/min, checking vitals… What medications? Any allergies? When did this start?"
	b.ReportAllocs()
	for b.Loop() {
		ParseActions(text)
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
