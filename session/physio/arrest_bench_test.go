package physio

import (
	"testing"

	"github.com/ward-sim/ward/session/action"
	sc "github.com/ward-sim/ward/session/scenario"
)

// BenchmarkWardTickOneInArrest is one sim second of a ward of 8 patients, one of them in VF with
// compressions going. Target: within 50 µs.
func BenchmarkWardTickOneInArrest(b *testing.B) {
	lib := library(b)
	w := NewWard(42, 0)
	ids := []string{"arrest-vf-ward", "acs-sildenafil", "anaphylaxis", "asthma-exacerbation", "copd-exacerbation",
		"hypoglycaemia", "opioid-overdose", "sepsis-urosepsis"}
	for i, id := range ids {
		s, _ := lib.Get(id)
		if _, err := w.Admit(string(rune('a'+i)), s); err != nil {
			b.Fatal(err)
		}
	}
	w.Advance(40)
	arrest := w.Engine("a")
	for _, a := range action.Parse("crash call, start CPR, attach the monitor") {
		arrest.Apply(a)
	}
	if !arrest.CPRGoing() {
		b.Fatal("the arrest has no compressions going")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		w.Advance(1)
	}
}

// BenchmarkTraceFrame is the samples of one frame of the strip at 120 columns (2 dot columns a
// cell, 4 samples a dot column), for an organised rhythm and for VF.
func BenchmarkTraceFrame(b *testing.B) {
	dst := make([]float64, 120*2*4)
	for _, r := range []sc.Rhythm{sc.SinusTachycardia, sc.CoarseVF} {
		tr := Trace{Rhythm: r, T: 100, Beat: 180, Rate: 110, CPR: true, Seed: 7}
		b.Run(string(r), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				tr.Samples(dst, 92.8, 100)
			}
		})
	}
}
