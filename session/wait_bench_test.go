package session

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// BenchmarkWaitPatients is /wait 1m on a shift of 1 and of 100 admitted patients (each its own
// case: admittedShift's library holds copies of the built-in cases): every engine
// steps sixty seconds, its events are remembered and the patients they changed are stored. Every
// thirty sim minutes the shift is admitted afresh, outside the timer, so the patients stay in
// their first half hour.
func BenchmarkWaitPatients(b *testing.B) { benchWait(b, "patients", admittedShift, 1) }

// BenchmarkWait10mPatients is BenchmarkWaitPatients waiting ten minutes a turn, the issue's
// "/wait 10m, 100 patients ÷ 1".
func BenchmarkWait10mPatients(b *testing.B) { benchWait(b, "patients", admittedShift, 10) }

// benchWait times /wait of so many minutes on shifts of 1 and 100 that shift makes, made afresh
// every thirty sim minutes outside the timer.
func benchWait(b *testing.B, label string, shift func(testing.TB, int) *Session, minutes int) {
	for _, n := range []int{1, 100} {
		b.Run(fmt.Sprintf("%s=%d", label, n), func(b *testing.B) {
			s := shift(b, n)
			ctx, discard := context.Background(), func(Event) {}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i > 0 && i%(30/minutes) == 0 {
					b.StopTimer()
					s = shift(b, n)
					b.StartTimer()
				}
				s.Turn(ctx, fmt.Sprintf("/wait %dm", minutes), discard)
			}
		})
	}
}

// BenchmarkTickFlushPatients is the TUI's clock on a shift of 1 and of 100 patients: five
// one-second ticks, then the flush that saves what they changed, as a trainee's screen does
// every few seconds while they read or type.
func BenchmarkTickFlushPatients(b *testing.B) {
	for _, n := range []int{1, 100} {
		b.Run(fmt.Sprintf("patients=%d", n), func(b *testing.B) {
			s := admittedShift(b, n)
			discard := func(Event) {}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i > 0 && i%360 == 0 { // thirty sim minutes
					b.StopTimer()
					s = admittedShift(b, n)
					b.StartTimer()
				}
				for range 5 {
					s.Tick(time.Second, discard)
				}
				if err := s.Flush(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkWaitOneInCare is /wait 1m on a roster of 1 and of 100 where only patient_1 is still
// in care: the other 99 have gone home (/dispo), so their engines stand still and nothing of
// theirs changes. What /wait costs beyond the one-patient shift is what it pays for the roster
// rather than for the patients who changed.
func BenchmarkWaitOneInCare(b *testing.B) { benchWait(b, "roster", oneInCare, 1) }

// oneInCare is a shift of n patients of whom all but patient_1 have been sent home.
func oneInCare(b testing.TB, n int) *Session {
	s := admittedShift(b, n)
	ctx, discard := context.Background(), func(Event) {}
	for p := 2; p <= n; p++ {
		s.Turn(ctx, fmt.Sprintf("/switch patient_%d", p), discard)
		s.Turn(ctx, "/dispo home", discard)
	}
	s.Turn(ctx, "/switch patient_1", discard)
	return s
}

// TestWaitAllocatesByThePatientsWhoChanged: /wait 10m on admittedShift's 100 patients, all
// deteriorating on monitors, allocates at most perChangedPatient more per patient than on one
// patient, leaving out each shift's first wait, which grows the patients' logs and the file
// from nothing. It measures about 55; at 02b95fb about 107, when each pruned reading's line,
// each nurse's call, each event told and each engine stored allocated apiece. What remains
// grows with the patients who changed: their readings, calls and summaries, and their engine
// and memory written to the store. (BenchmarkWaitOneInCare shows what the roster itself costs
// when one patient changes.)
func TestWaitAllocatesByThePatientsWhoChanged(t *testing.T) {
	if testing.Short() {
		t.Skip("admits 100 patients")
	}
	if raceDetector {
		t.Skip("the race detector's runtime allocates as it instruments: .ci/run counts this without it")
	}
	const perChangedPatient = 64
	allocs := func(patients int) float64 {
		sum := 0.0
		for range 2 { // a fresh shift each time, three waits: the first is AllocsPerRun's warm-up
			s := admittedShift(t, patients)
			sum += testing.AllocsPerRun(2, func() { s.Turn(context.Background(), "/wait 10m", func(Event) {}) })
		}
		return sum / 2
	}
	one, hundred := allocs(1), allocs(100)
	per := (hundred - one) / 99
	t.Logf("allocations a /wait 10m: %.0f with 1 patient, %.0f with 100 (%.1f×; %.1f a patient who changed)", one, hundred, hundred/one, per)
	if per > perChangedPatient {
		t.Errorf("/wait 10m allocates %.1f more for each patient who changed, more than %d", per, perChangedPatient)
	}
}
