package aar

import (
	"fmt"
	"strings"

	"github.com/ward-sim/ward/session/physio"
	sc "github.com/ward-sim/ward/session/scenario"
)

// cycles cut the arrest into its two-minute cycles at each rhythm check (or a pulse check on its
// own), with the compressions and what was done in each.
func cycles(e *physio.Engine, a *physio.ArrestRecord) []Cycle {
	end := arrestEnd(e)
	bounds := []int64{a.Onset}
	for _, s := range a.Steps {
		last := bounds[len(bounds)-1]
		if (s.What == physio.StepCheck && s.T > last || s.What == physio.StepPulse && s.T > last+30) && s.T < end {
			bounds = append(bounds, s.T)
		}
	}
	bounds = append(bounds, end)
	on := compressionSpans(a, end)
	var out []Cycle
	for i := 0; i+1 < len(bounds); i++ {
		from, to := bounds[i], bounds[i+1]
		c := Cycle{N: i, From: float64(from - a.Onset), To: float64(to - a.Onset), Rhythm: rhythmAt(a, from)}
		for _, sp := range on {
			c.Compressing += float64(max(0, min(to, sp[1])-max(from, sp[0])))
		}
		for _, s := range a.Steps {
			if s.T >= from && (s.T < to || i+2 == len(bounds) && s.T == to) && shown(s) {
				c.Events = append(c.Events, line(s, a.Onset))
			}
		}
		out = append(out, c)
	}
	return out
}

// compressionSpans are the spans [start, end) with compressions going on.
func compressionSpans(a *physio.ArrestRecord, end int64) [][2]int64 {
	var out [][2]int64
	start := int64(-1)
	for _, s := range a.Steps {
		switch {
		case s.What == physio.StepCPR && start < 0:
			start = s.T
		case (s.What == physio.StepCPRStop || s.What == physio.StepROSC || s.What == physio.StepStop) && start >= 0:
			out, start = append(out, [2]int64{start, s.T}), -1
		}
	}
	if start >= 0 {
		out = append(out, [2]int64{start, end})
	}
	return out
}

func rhythmAt(a *physio.ArrestRecord, t int64) (r sc.Rhythm) {
	for _, s := range a.Steps {
		if s.T > t {
			break
		}
		r = s.Rhythm
	}
	return r
}

// shown: a cycle lists what was done in it, not the compressions starting and stopping, which its
// compression seconds already say.
func shown(s physio.ArrestStep) bool { return s.What != physio.StepCPR && s.What != physio.StepCPRStop }

// line is the step as the debrief's cycle writes it: "01:05 shock 150 J — worked".
func line(s physio.ArrestStep, onset int64) string {
	text := physio.SimTime(float64(s.T-onset)) + " " + s.What
	if s.Detail != "" {
		text += " " + s.Detail
	}
	switch s.What {
	case physio.StepShock:
		text += map[bool]string{true: " — the heart restarted", false: " — no change"}[s.OK]
	case physio.StepNamed:
		text += map[bool]string{true: " — right", false: " — wrong: it was " + string(s.Rhythm)}[s.OK]
	case physio.StepCheck, physio.StepPulse:
		text = physio.SimTime(float64(s.T-onset)) + " " + s.What + ": " + string(s.Rhythm)
	}
	return text
}

// arrestLines are the arrest's part of the score: penalties for what the algorithm asks that was
// done badly, each saying why.
func arrestLines(e *physio.Engine, r Report) []ScoreLine {
	v := r.Arrest
	if v == nil {
		return nil
	}
	var out []ScoreLine
	pen := func(points int, item, why string) {
		out = append(out, ScoreLine{Item: item, Points: -points, Why: why})
	}
	if v.FirstCPR != nil && v.Fraction < 0.6 {
		pen(10, "compression fraction under 60 %", fmt.Sprintf("%.0f %% of the time since the first compression", 100*v.Fraction))
	}
	if v.LongestPause > 10 {
		pen(5, "a pause in compressions over 10 seconds", fmt.Sprintf("the longest was %g s", v.LongestPause))
	}
	for _, d := range v.Drugs {
		if judged(d.Verdict) {
			pen(5, fmt.Sprintf("%s %s", d.Drug, d.Verdict), d.Why)
		}
	}
	for _, n := range v.Named {
		if !n.OK {
			pen(5, "rhythm named wrong: "+n.Detail, "it was "+string(n.Rhythm))
		}
	}
	if !v.CausesOK {
		pen(5, "reversible causes", v.Causes)
	}
	for _, c := range v.PostROSC {
		if c.At == nil {
			pen(2, "after ROSC: "+c.Item, "not done")
		}
	}
	if v.Stop != nil && !v.Stop.InLine {
		pen(10, "the decision to stop", v.Stop.Why)
	}
	return out
}

// arrestPoints are the arrest's teaching points: the times that decide survival, the
// compressions, each drug's timing, the rhythms named, the causes and the care after ROSC.
func arrestPoints(e *physio.Engine, r Report) []Point {
	v := r.Arrest
	if v == nil {
		return nil
	}
	var out []Point
	add := func(good bool, format string, args ...any) {
		kind := PointDelta
		if good {
			kind = PointPlus
		}
		out = append(out, Point{Kind: kind, Text: "Arrest: " + fmt.Sprintf(format, args...)})
	}
	timed := func(what string, at *float64, target float64) {
		if at == nil {
			add(false, "%s never happened", what)
			return
		}
		add(*at <= target, "%s at %s after the collapse (aim: within %s)", what, physio.SimTime(*at), physio.SimTime(target))
	}
	timed("recognised and help called", v.Recognised, 30)
	timed("compressions started", v.FirstCPR, 60)
	if v.Shockable {
		timed("first shock", v.FirstShock, 120)
	}
	for _, s := range e.Arrest().StepsOf(physio.StepShock) {
		if strings.Contains(s.Detail, "nobody stood clear") {
			add(false, "a shock at %s was given with compressions going: stop and stand clear for the shock, then resume at once", physio.SimTime(float64(s.T-e.Arrest().Onset)))
		}
	}
	if shocks, pre := preCharged(e); shocks > 0 {
		add(pre == shocks, "%d of %d shocks charged during compressions, which keeps the pause before the shock short", pre, shocks)
	}
	if v.FirstCPR != nil {
		how := ""
		if note := v.SimTimeNote(); note != "" {
			how = "; " + note
		}
		add(v.Fraction >= 0.8, "compression fraction %.0f %% (aim above 80 %%)%s", 100*v.Fraction, how)
		add(v.LongestPause <= 10, "longest pause in compressions %g s (aim: 10 s or less)%s", v.LongestPause, how)
	}
	for _, d := range v.Drugs {
		add(!judged(d.Verdict), "%s at %s — %s: %s", d.Drug, d.When(), d.Verdict, d.Why)
	}
	for _, n := range v.Named {
		add(n.OK, "named the rhythm %q at %s — %s", n.Detail, physio.SimTime(float64(n.T)-float64(e.Arrest().Onset)), map[bool]string{true: "right", false: "it was " + string(n.Rhythm)}[n.OK])
	}
	if len(v.Named) == 0 {
		add(false, "the rhythm was never named aloud; say what you see (\"VF\", \"this is PEA\")")
	}
	add(v.CausesOK, "%s", v.Causes)
	for _, c := range v.PostROSC {
		if c.At == nil {
			add(false, "after ROSC, %s was not done", c.Item)
		}
	}
	if v.Stop != nil {
		add(v.Stop.InLine, "the decision to stop: %s", v.Stop.Why)
	}
	if at, ok := tubeUnconfirmed(e); ok {
		add(false, "a tracheal tube went in at %s with no waveform capnography to confirm it", physio.SimTime(at))
	}
	return out
}

// tubeUnconfirmed reports a tracheal tube placed in the arrest with no waveform capnography (a
// monitor put on, or asked for, within a minute either side), and when it went in.
func tubeUnconfirmed(e *physio.Engine) (float64, bool) {
	a := e.Arrest()
	for _, s := range a.StepsOf(physio.StepAirway) {
		if s.Detail != "ett" {
			continue
		}
		for _, act := range e.Actions() {
			if act.Kind == sc.KindAttachMonitor && act.T >= float64(s.T-60) && act.T <= float64(s.T+60) {
				return 0, false
			}
		}
		return float64(s.T - a.Onset), true
	}
	return 0, false
}

// preCharged counts the arrest's shocks on a shockable rhythm, and those whose defibrillator was
// charged during compressions in the minute before.
func preCharged(e *physio.Engine) (shocks, pre int) {
	a := e.Arrest()
	for i, s := range a.Steps {
		if s.What != physio.StepShock || !s.Rhythm.Shockable() {
			continue
		}
		shocks++
		for _, c := range a.Steps[:i] {
			if c.What == physio.StepCharge && c.OK && s.T-c.T <= 60 {
				pre++
				break
			}
		}
	}
	return shocks, pre
}
