package aar

import (
	"fmt"
	"strings"

	"github.com/ward-sim/ward/session/physio"
)

// arrestMarkdown writes the arrest's review: the times that matter, then each cycle with its
// rhythm, its compressions and what was done in it.
func (r Report) arrestMarkdown(b *strings.Builder) {
	v := r.Arrest
	if v == nil {
		return
	}
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("\n## Cardiac arrest\n\n")
	p("Collapse at %s since arrival; %s. Recognised: %s · compressions: %s", physio.SimTime(v.Collapse), v.Outcome,
		fromCollapse(v.Recognised), fromCollapse(v.FirstCPR))
	if v.Shockable {
		p(" · first shock: %s", fromCollapse(v.FirstShock))
	}
	p(" · shocks: %d · compression fraction %.0f %% · longest pause %g s · causes: %s.\n\n",
		v.Shocks, 100*v.Fraction, v.LongestPause, v.Causes)
	p("| Cycle | From | To | Rhythm at its start | Compressing | What was done |\n|---|---|---|---|---|---|\n")
	for _, c := range v.Cycles {
		p("| %d | %s | %s | %s | %g s | %s |\n", c.N, physio.SimTime(c.From), physio.SimTime(c.To), c.Rhythm, c.Compressing,
			cell(strings.Join(c.Events, "; ")))
	}
	if len(v.PostROSC) > 0 {
		p("\nAfter ROSC:\n\n")
		for _, c := range v.PostROSC {
			p("- %s: %s\n", c.Item, fromROSC(c.At))
		}
	}
	p("\nReference: %s\n", v.Source)
}

func fromCollapse(at *float64) string {
	if at == nil {
		return "never"
	}
	return physio.SimTime(*at)
}

func fromROSC(at *float64) string {
	if at == nil {
		return "not done"
	}
	return physio.SimTime(*at) + " after ROSC"
}

// arrestDigest is the arrest's cycles as lines for the Preceptor's prompt, so a debrief can walk
// through them one by one.
func (r Report) arrestDigest() []string {
	if r.Arrest == nil {
		return nil
	}
	var out []string
	for _, c := range r.Arrest.Cycles {
		out = append(out, fmt.Sprintf("Arrest cycle %d, %s–%s, %s at its start, %g s of compressions: %s",
			c.N, physio.SimTime(c.From), physio.SimTime(c.To), c.Rhythm, c.Compressing, strings.Join(c.Events, "; ")))
	}
	return out
}
