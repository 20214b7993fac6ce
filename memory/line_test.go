package memory

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// fmtVitals and fmtClock are how a reading and a moment were written with fmt before they were
// appended by hand: the oracle the hand-written ones are held to.
func fmtVitals(v Vitals) string {
	number := func(x float64) string {
		if x == float64(int64(x)) {
			return fmt.Sprintf("%d", int64(x))
		}
		return fmt.Sprintf("%.1f", x)
	}
	var b strings.Builder
	add := func(label string, x float64, unit string) {
		if x == 0 {
			return
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s %s%s", label, number(x), unit)
	}
	add("HR", v.HR, "")
	add("RR", v.RR, "")
	add("SpO2", v.SpO2, "%")
	if v.SBP != 0 || v.DBP != 0 {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "BP %s/%s", number(v.SBP), number(v.DBP))
	}
	add("T", v.Temp, "")
	add("GCS", v.GCS, "")
	return b.String()
}

func fmtClock(elapsed float64) string {
	sign := "+"
	if elapsed < 0 {
		sign, elapsed = "-", -elapsed
	}
	sec := int64(math.Round(elapsed))
	if sec >= 3600 {
		return fmt.Sprintf("T%s%d:%02d:%02d", sign, sec/3600, sec/60%60, sec%60)
	}
	return fmt.Sprintf("T%s%02d:%02d", sign, sec/60, sec%60)
}

// checkLine holds a reading's line and its parts to the fmt oracle.
func checkLine(t *testing.T, v Vitals, at, start float64) {
	t.Helper()
	if got, want := v.String(), fmtVitals(v); got != want {
		t.Fatalf("%+v.String() = %q, want %q", v, got, want)
	}
	if got, want := Clock(at-start), fmtClock(at-start); got != want {
		t.Fatalf("Clock(%v) = %q, want %q", at-start, got, want)
	}
	line := Selection{Start: start}.Line(Selected{Category: VitalsMeasurements, Item: Item{T: at, Vitals: &v}})
	if want := fmtClock(at-start) + " " + fmtVitals(v); line != want {
		t.Fatalf("Line = %q, want %q", line, want)
	}
}

func TestVitalsLineWritesAsFmt(t *testing.T) {
	edges := []float64{0, -0.0, 1, 9, 10, 0.05, 0.04, 0.95, 36.85, 38.25, -1, -0.5, 1e6, 1e15, 1e20, -1e20,
		math.MaxInt64, math.MinInt64, 1e-9, math.Inf(1), math.Inf(-1), math.NaN()}
	for _, x := range edges {
		checkLine(t, Vitals{HR: x, SBP: x, Temp: x}, x, 0)
		checkLine(t, Vitals{DBP: x}, 3600+x, x)
	}
	for _, at := range []float64{0, 0.4, 0.5, 59.5, 599.6, 3599.4, 3599.5, 3600, 35999, 360000, -0.4, -0.6, -3600, -4000.2} {
		checkLine(t, Vitals{HR: 90}, at, 0)
	}
	r := rand.New(rand.NewPCG(36, 10))
	value := func() float64 {
		switch r.IntN(4) {
		case 0:
			return 0
		case 1:
			return float64(r.IntN(250))
		case 2:
			return math.Round(r.Float64()*4000) / 100
		}
		return r.NormFloat64() * 100
	}
	for range 20000 {
		v := Vitals{HR: value(), RR: value(), SpO2: value(), SBP: value(), DBP: value(), Temp: value(), GCS: value()}
		checkLine(t, v, r.Float64()*20000-1000, r.Float64()*1000)
	}
}

func FuzzVitalsLine(f *testing.F) {
	f.Add(118.0, 26.0, 91.0, 104.0, 68.0, 38.2, 15.0, 754.0, 0.0)
	f.Add(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -90.0, 30.0)
	f.Fuzz(func(t *testing.T, hr, rr, spo2, sbp, dbp, temp, gcs, at, start float64) {
		checkLine(t, Vitals{HR: hr, RR: rr, SpO2: spo2, SBP: sbp, DBP: dbp, Temp: temp, GCS: gcs}, at, start)
	})
}
