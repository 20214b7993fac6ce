package physio

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// The nurse's words and the times were written with fmt before they were appended by hand; these
// are that oracle.
func fmtObs(r Reading) string {
	air := "on air"
	if r.OnOxygen {
		air = "on oxygen"
	}
	return fmt.Sprintf("RR %d, SpO2 %d%% %s, BP %d/%d, HR %d, temp %.1f, GCS %d",
		r.RR, r.SpO2, air, r.SBP, r.DBP, r.HR, r.TempC, r.GCS)
}

func fmtSimTime(sec float64) string {
	s := int(sec)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s%3600/60, s%60)
	}
	return fmt.Sprintf("%02d:%02d", s/60, s%60)
}

func TestNurseWordsWriteAsFmt(t *testing.T) {
	r := rand.New(rand.NewPCG(36, 8))
	n := func() int {
		if r.IntN(4) == 0 {
			return r.IntN(2001) - 1000
		}
		return r.IntN(200)
	}
	temps := []float64{36.85, 38.25, 0, -0.05, 0.05, 41.95, math.NaN(), math.Inf(1), 1e21}
	for i := range 20000 {
		rd := Reading{Vitals: Vitals{RR: n(), SpO2: n(), SBP: n(), DBP: n(), HR: n(), GCS: n(), OnOxygen: i%2 == 0},
			NEWS2: n(), Scale: r.IntN(3)}
		rd.TempC = 30 + r.Float64()*12
		if i < len(temps) {
			rd.TempC = temps[i]
		}
		if got, want := obsText(rd), fmtObs(rd); got != want {
			t.Fatalf("obsText = %q, want %q", got, want)
		}
		for _, level := range []string{LevelUrgent, LevelEmergency} {
			call := fmt.Sprintf("NEWS2 %d (Scale %d) — %s. %s", rd.NEWS2, max(1, rd.Scale), fmtObs(rd), askFor(level))
			if got := string(appendCall(nil, rd, level)); got != call {
				t.Fatalf("a call = %q, want %q", got, call)
			}
			e := &Engine{s: Snapshot{Admitted: int64(r.IntN(100))}}
			a := AlertRecord{Kind: AlertEscalation, Level: level, Raised: float64(r.IntN(20000))}
			first := "T+" + fmtSimTime(a.Raised-float64(e.s.Admitted))
			if escalationLevel(rd) == "" {
				want := fmt.Sprintf("Settled since the call at %s: NEWS2 %d (Scale %d) — %s. Please acknowledge the call.", first, rd.NEWS2, max(1, rd.Scale), fmtObs(rd))
				if got := e.again(a, rd); got != want {
					t.Fatalf("a settled call again = %q, want %q", got, want)
				}
				continue
			}
			want := fmt.Sprintf("Still waiting for a review (first called at %s): %s", first, call)
			if got := e.again(a, rd); got != want {
				t.Fatalf("a call again = %q, want %q", got, want)
			}
			seen := a.Raised + float64(r.IntN(600))
			a.Reviewed = &seen
			want = fmt.Sprintf("Still unwell after your review at T+%s (first called at T+%s): NEWS2 %d (Scale %d) — %s. What is the plan?",
				fmtSimTime(seen-float64(e.s.Admitted)), fmtSimTime(a.Raised-float64(e.s.Admitted)), rd.NEWS2, max(1, rd.Scale), fmtObs(rd))
			if got := e.again(a, rd); got != want {
				t.Fatalf("a call again after a review = %q, want %q", got, want)
			}
		}
	}
	for _, sec := range []float64{0, 0.9, 9, 59, 60, 599, 3599.9, 3600, 3661, 36000, 359999, -1, -61, -3600, -4000} {
		if got, want := SimTime(sec), fmtSimTime(sec); got != want {
			t.Fatalf("SimTime(%v) = %q, want %q", sec, got, want)
		}
	}
}
