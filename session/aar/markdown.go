package aar

import (
	"fmt"
	"strings"

	"github.com/ward-sim/ward/session/physio"
)

// Markdown renders the review for reading or export: what went wrong first, never cut, then the
// rest of the debrief, how the score was reached, and the record it all comes from.
func (r Report) Markdown() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# After Action Review — %s\n\n", r.Title)
	p("**Patient:** %s (%s) · **Presentation:** %s · **Time since arrival:** %s · **Final state:** %s · **NEWS2:** %s\n\n",
		r.Patient, r.PatientID, r.Presentation, physio.SimTime(r.Duration), r.FinalState, r.news2Course())
	p("**Judged on:** %s.\n\n", strings.Join(r.JudgedOn, "; "))
	p("## Critical errors\n\n")
	list(&b, r.lines(PointCriticalError), "None.")
	p("\n## Missed critical actions\n\n")
	list(&b, r.lines(PointMissed), "None.")
	if near := r.lines(PointNearMiss); len(near) > 0 {
		p("\n## Near misses\n\n")
		list(&b, near, "")
	}
	if end := append(r.lines(PointDiagnosis), r.lines(PointDisposition)...); len(end) > 0 {
		p("\n## Diagnosis and disposition\n\n")
		list(&b, end, "")
	}
	if refl := r.lines(PointReflection); len(refl) > 0 {
		p("\n## Reflection\n\n")
		list(&b, refl, "")
	}
	if injected := r.lines(PointInstructor); len(injected) > 0 {
		p("\n## What the instructor injected\n\n")
		list(&b, injected, "")
	}
	p("\n## Debrief\n\n### Plus\n\n")
	list(&b, r.lines(PointPlus), "(none)")
	p("\n### Delta\n\n")
	list(&b, r.lines(PointDelta), "(none)")
	p("\n## Score: %d / %d\n\n| Part | Points | Why |\n|---|---|---|\n", r.Score.Total, r.Score.Max)
	for _, sp := range r.Score.Parts {
		p("| %s | %d / %d | %s |\n", sp.Name, sp.Points, sp.Max, cell(sp.Why))
	}
	p("\nThe actions' part, item by item:\n\n| Item | Points | Why |\n|---|---|---|\n")
	for _, l := range r.Score.Breakdown {
		points := fmt.Sprint(l.Points)
		switch {
		case l.NotApplicable:
			points = "n/a"
		case l.Max > 0:
			points = fmt.Sprintf("%d / %d", l.Points, l.Max)
		}
		p("| %s | %s | %s |\n", cell(l.Item), points, cell(l.Why))
	}
	p("\n## Critical actions\n\n")
	for _, o := range r.CriticalActions {
		status := "**Missed**"
		switch {
		case o.Moot:
			status = "**Does not apply**"
		case o.Met:
			status = "**Met** at " + physio.SimTime(*o.At)
		case o.Done:
			status = "**Late** at " + physio.SimTime(*o.At)
		}
		p("- %s — %s (%s)\n", status, o.Description, o.Rule)
	}
	if len(r.SafetyWarnings) > 0 {
		p("\n## Safety warnings\n\n")
		for _, w := range r.SafetyWarnings {
			p("- %s — %s: %s\n", physio.SimTime(w.T-r.Arrived), w.Drug, w.Reason)
		}
	}
	r.arrestMarkdown(&b)
	r.teamMarkdown(&b)
	p("\n## Timeline\n\n| Time | Event |\n|---|---|\n")
	for _, t := range r.Timeline {
		p("| %s | %s |\n", physio.SimTime(t.Elapsed), cell(t.Text))
	}
	p("\n## Learning objectives\n\n")
	list(&b, r.Objectives, "(none)")
	return b.String()
}

// Digest is the debrief as plain lines for a prompt: every critical error and missed critical
// action, then plus and delta, then how the score was reached.
func (r Report) Digest() string {
	var lines []string
	for _, pt := range r.Debrief {
		lines = append(lines, pt.Labelled())
	}
	lines = append(lines, r.arrestDigest()...)
	lines = append(lines, r.teamDigest()...)
	return strings.Join(append(lines, r.Score.HowScored()), "\n")
}

// news2Course is the first and last measured NEWS2.
func (r Report) news2Course() string {
	if r.NEWS2AtArrival == nil {
		return "never measured"
	}
	return fmt.Sprintf("%s at %s → %s at %s", r.NEWS2AtArrival.Text, physio.SimTime(r.NEWS2AtArrival.Elapsed), r.NEWS2Now.Text, physio.SimTime(r.NEWS2Now.Elapsed))
}

// lines are the debrief's points of one kind, as lines.
func (r Report) lines(kind string) []string {
	var out []string
	for _, pt := range r.Debrief {
		if pt.Kind == kind {
			out = append(out, pt.Line())
		}
	}
	return out
}

func cell(s string) string { return strings.ReplaceAll(s, "|", "/") }

func list(b *strings.Builder, items []string, none string) {
	if len(items) == 0 {
		b.WriteString(none + "\n")
	}
	for _, it := range items {
		fmt.Fprintf(b, "- %s\n", it)
	}
}
