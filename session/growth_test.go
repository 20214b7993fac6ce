package session

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ward-sim/ward/memory"
)

// bedside is a realistic mix of what a trainee says to an asthma patient over a shift: questions,
// checks and treatments, so memory and the window fill as they would.
var bedside = []string{
	"hello, I'm the nurse looking after you. How are you feeling?",
	"checking vitals",
	"any allergies to medicines?",
	"what medications do you take?",
	"applying oxygen via non-rebreather at 15 L/min",
	"when did this start?",
	"give salbutamol 5 mg nebulised",
	"is the tightness any better?",
	"checking vitals again",
	"give prednisolone 40 mg PO",
	"have you been admitted with asthma before?",
	"try to slow your breathing down with me",
}

// TestBoundedGrowth plays 40 exchanges in 20 sim minutes through the real pipeline, once per
// window mode, and compares ward's own prompt estimates (what llm_call reports) with full
// history. Run with -v to see the table that BENCHMARKS.md records.
func TestBoundedGrowth(t *testing.T) {
	modes := []struct {
		name   string
		window memory.Window
	}{
		{"block (default)", memory.DefaultWindow()},
		{"sliding", memory.SlidingWindow()},
		{"full history", memory.Window{Mode: memory.WindowSliding, Early: 1 << 20, Late: 1 << 20}},
	}
	var table strings.Builder
	fmt.Fprintf(&table, "%-16s %6s %6s %6s %6s %8s\n", "mode", "ex 1", "ex 10", "ex 20", "ex 40", "40 / 10")
	for _, m := range modes {
		tokens, window := growth(t, m.window)
		ratio := float64(tokens[39]) / float64(tokens[9])
		fmt.Fprintf(&table, "%-16s %6d %6d %6d %6d %8.2f\n", m.name, tokens[0], tokens[9], tokens[19], tokens[39], ratio)
		switch {
		case m.window.Early < 1<<20 && ratio > 1.15:
			t.Errorf("%s: exchange 40 is %.2f × exchange 10, want at most 1.15", m.name, ratio)
		case m.window.Early < 1<<20 && tokens[39] >= 6400:
			t.Errorf("%s: %d tokens at exchange 40, want under the 6,400 BENCHMARKS.md compares with", m.name, tokens[39])
		case m.window.Early == 1<<20 && window[39] < window[19]*9/5:
			// Memory stops including everything at 10 sim minutes, so the total bends there; the
			// conversation itself must double from exchange 20 to 40.
			t.Errorf("full history's window should grow linearly: %d tokens at exchange 20, %d at 40", window[19], window[39])
		}
	}
	t.Log("\n" + table.String())
}

// growth returns the estimated prompt tokens of the Patient's call at each of 40 exchanges,
// thirty sim seconds apart, in all and for the window alone.
func growth(t *testing.T, w memory.Window) (tokens, window []int) {
	t.Helper()
	r := newRig(t)
	r.cfg.Window = w
	r.restart()
	r.turn("/admit patient_1 asthma-exacerbation")
	for i := range 40 {
		in := bedside[i%len(bedside)]
		r.turn(in)
		calls := r.s.turns[len(r.s.turns)-1].Calls
		if len(calls) == 0 {
			t.Fatalf("exchange %d (%q) made no call", i+1, in)
		}
		total := 0
		for _, n := range calls[0].Trace.Sections {
			total += n
		}
		tokens = append(tokens, total)
		window = append(window, calls[0].Trace.Sections["window"])
		r.turn("/wait 30s")
	}
	return tokens, window
}
