package session

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestArrestRunPaths(t *testing.T) {
	cases := []struct {
		name, scenario string
		script         []string
		course         []string
		cycles         []string
		score          int
		debrief        []string
	}{
		{"shockable done well", "arrest-vf-ward", vfWell,
			[]string{"30 vf-arrest", "183 rosc", "270 post-rosc-stable"},
			[]string{"coarse VF: 00:00 collapse; 00:05 arrest call; 00:20 pads on; 00:20 charged 150 J during compressions",
				"coarse VF: 00:30 rhythm check: coarse VF; 00:33 rhythm named VF — right; 00:33 shock 150 J — no change; 01:00 IV/IO access; 01:00 causes considered; 02:20 charged 200 J during compressions",
				"coarse VF: 02:30 rhythm check: coarse VF; 02:33 shock 200 J — the heart restarted; 02:33 ROSC"},
			100, []string{"Arrest: first shock at 00:33 after the collapse (aim: within 02:00)", "Arrest: named the rhythm \"VF\" at 00:33 — right",
				"2 of 2 shocks charged during compressions"}},
		{"shockable done late", "arrest-vf-ward", vfLate,
			[]string{"30 vf-arrest"},
			[]string{"coarse VF: 00:00 collapse; 03:00 arrest call; 04:30 pads on",
				"coarse VF: 05:00 rhythm check: coarse VF; 05:05 rhythm named VF — right; 05:05 shock 150 J — no change",
				"coarse VF: 07:05 rhythm check: coarse VF; 07:08 shock 200 J — no change",
				"coarse VF: 09:08 rhythm check: coarse VF; 09:11 shock 200 J — no change; 09:30 IV/IO access; 12:30 adrenaline 1 mg IV; 12:30 amiodarone 300 mg IV",
				"coarse VF: 13:08 rhythm check: coarse VF; 13:11 shock 200 J — no change; 13:18 rhythm changed VF has become fine; 15:11 pulse check: fine VF"},
			0, []string{"Arrest: recognised and help called at 03:00", "Arrest: first shock at 05:05", "adrenaline 1 mg IV at 12:30 — late",
				"0 of 4 shocks charged during compressions"}},
		{"shockable done wrong", "arrest-vf-ward", vfWrong,
			[]string{"30 vf-arrest", "195 rosc", "240 !shock-not-shockable"},
			[]string{"coarse VF: 00:00 collapse; 00:30 pads on",
				"coarse VF: 00:40 rhythm check: coarse VF; 00:45 rhythm named asystole — wrong: it was coarse VF; 00:45 IV/IO access; 00:45 adrenaline 1 mg IV",
				"coarse VF: 02:40 rhythm check: coarse VF; 02:45 shock 150 J — the heart restarted; 02:45 ROSC"},
			0, []string{"a shock delivered on a perfusing rhythm (sinus tachycardia)", "named the rhythm \"asystole\" at 00:45 — it was coarse VF",
				"adrenaline 1 mg IV at 01:45 (ordered at 00:45, in once access was) — early"}},
		{"non-shockable done well", "arrest-pea-tension", peaWell,
			[]string{"45 pea-arrest", "430 rosc", "540 post-rosc-stable"},
			[]string{"PEA: 00:00 collapse; 00:05 arrest call; 00:15 pads on",
				"PEA: 00:25 rhythm check: PEA; 00:29 rhythm named PEA — right; 00:45 IV/IO access; 00:45 adrenaline 1 mg IO; 00:55 causes considered; 01:15 cause treated tension pneumothorax",
				"PEA: 02:25 rhythm check: PEA; 02:25 pulse check: PEA",
				"PEA: 04:25 rhythm check: PEA; 04:25 pulse check: PEA; 04:30 adrenaline 1 mg IO; 06:25 rhythm check: PEA; 06:25 ROSC"},
			100, []string{"the cause, tension pneumothorax, was treated at 01:15", "adrenaline 1 mg IO at 01:15 (ordered at 00:45, in once access was) — on time"}},
		{"non-shockable done late", "arrest-pea-tension", peaLate,
			[]string{"45 pea-arrest"},
			[]string{"PEA: 00:00 collapse; 02:15 arrest call; 02:15 pads on",
				"PEA: 02:45 rhythm check: PEA; 02:50 rhythm named PEA — right; 03:15 IV/IO access; 08:15 causes considered; 08:45 adrenaline 1 mg IV; 11:15 cause treated tension pneumothorax",
				"PEA: 12:15 pulse check: PEA", "PEA: 14:15 pulse check: PEA; 16:15 pulse check: PEA"},
			0, []string{"adrenaline 1 mg IV at 08:45 — late", "the cause, tension pneumothorax, was treated at 11:15"}},
		{"non-shockable done wrong", "arrest-pea-tension", peaWrong,
			[]string{"45 pea-arrest", "165 !shock-not-shockable"},
			[]string{"PEA: 00:00 collapse; 01:45 pads on",
				"PEA: 01:55 rhythm check: PEA; 02:00 rhythm named VT — wrong: it was PEA; 02:00 shock 150 J on PEA, which is not shockable — no change; 04:15 IV/IO access; 04:15 amiodarone 300 mg IV",
				"PEA: 06:15 pulse check: PEA; 09:15 pulse check: PEA"},
			0, []string{"a shock delivered on PEA, which is not shockable", "amiodarone 300 mg IV at 05:15 (ordered at 04:15, in once access was) — wrong rhythm", "the reversible causes were not considered"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			events, aar := arrestRun(t, c.scenario, c.script...)
			if got := runCourse(events); strings.Join(got, "|") != strings.Join(c.course, "|") {
				t.Errorf("course:\n%q\nwant\n%q", got, c.course)
			}
			if got := cycles(aar); strings.Join(got, "|") != strings.Join(c.cycles, "|") {
				t.Errorf("cycles:\n%q\nwant\n%q", got, c.cycles)
			}
			if got := reviewScore(aar); got != c.score {
				t.Errorf("score %d, want %d", got, c.score)
			}
			d := debrief(aar)
			for _, want := range c.debrief {
				if !strings.Contains(d, want) {
					t.Errorf("debrief lacks %q:\n%s", want, d)
				}
			}
		})
	}
}

// The same script under the same seed plays the same arrest: every engine event, and the review.
func TestArrestRunIsDeterministic(t *testing.T) {
	sim := func() string {
		events, aar := arrestRun(t, "arrest-vf-ward", vfLate...)
		var b strings.Builder
		for _, e := range events {
			switch e.kind() {
			case "state", "action", "critical_error", "ecg", "vitals":
				j, _ := json.Marshal(e)
				b.Write(append(j, '\n'))
			}
		}
		j, _ := json.Marshal(aar["arrest"])
		return b.String() + string(j)
	}
	if a, b := sim(), sim(); a != b {
		t.Error("two runs of the same script under seed 42 differ")
	}
}

// The run's output holds four seconds of the trace, unnamed, whenever the monitor goes on, the
// rhythm is checked or the rhythm changes: the monitor at 0:05, the collapse at 0:30, the pads
// at 0:50, the checks at 1:00 and 3:00, ROSC at 3:03. VF swings wide.
func TestArrestRunWritesTheStrip(t *testing.T) {
	events, _ := arrestRun(t, "arrest-vf-ward", vfWell...)
	strips := ofKind(events, "ecg")
	var at []string
	for _, s := range strips {
		at = append(at, fmt.Sprint(s.num("t")))
	}
	if strings.Join(at, " ") != "5 30 50 60 180 183" {
		t.Fatalf("ecg events at %v", at)
	}
	for _, s := range strips {
		if _, named := s["rhythm"]; named {
			t.Errorf("the strip names its rhythm: %v", s)
		}
		if n := len(s["samples"].([]any)); n != 200 || s.num("hz") != 50 {
			t.Errorf("strip of %d samples at %g Hz, want 200 at 50", n, s.num("hz"))
		}
	}
	vf := strips[1]["samples"].([]any)
	lo, hi := 0.0, 0.0
	for _, v := range vf {
		lo, hi = min(lo, v.(float64)), max(hi, v.(float64))
	}
	if hi-lo < 0.5 {
		t.Errorf("the strip at the first rhythm check spans %g mV; VF with compressions paused should swing wide", hi-lo)
	}
}
