package physio

import (
	"fmt"
	"strings"
)

// Markdown renders the review for reading or export.
func (r Report) Markdown() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# After Action Review — %s\n\n", r.Title)
	p("**Patient:** %s (%s) · **Time since arrival:** %s · **Final state:** %s · **NEWS2:** %d → %d\n\n",
		r.Patient, r.PatientID, SimTime(r.Duration), r.FinalState, r.NEWS2AtArrival, r.NEWS2Now)
	p("## Score: %d / %d\n\n| Item | Points |\n|---|---|\n", r.Score.Total, r.Score.Max)
	for _, l := range r.Score.Breakdown {
		if l.Max > 0 {
			p("| %s | %d / %d |\n", l.Item, l.Points, l.Max)
		} else {
			p("| %s | %d |\n", l.Item, l.Points)
		}
	}
	p("\n## Critical actions\n\n")
	for _, o := range r.CriticalActions {
		status := "**Missed**"
		switch {
		case o.Met:
			status = "**Met** at " + SimTime(*o.At)
		case o.Done:
			status = "**Late** at " + SimTime(*o.At)
		}
		p("- %s — %s (%s)\n", status, o.Description, o.Rule)
	}
	p("\n## Critical errors\n\n")
	if len(r.CriticalErrors) == 0 {
		p("None.\n")
	}
	for _, er := range r.CriticalErrors {
		p("- %s — %s\n", SimTime(er.T-r.Arrived), er.Description)
	}
	if len(r.SafetyWarnings) > 0 {
		p("\n## Safety warnings\n\n")
		for _, w := range r.SafetyWarnings {
			p("- %s — %s: %s\n", SimTime(w.T-r.Arrived), w.Drug, w.Reason)
		}
	}
	p("\n## Timeline\n\n| Time | Event |\n|---|---|\n")
	for _, t := range r.Timeline {
		p("| %s | %s |\n", SimTime(t.Elapsed), strings.ReplaceAll(t.Text, "|", "/"))
	}
	p("\n## Debrief\n\n### Plus\n\n")
	list(&b, r.Plus)
	p("\n### Delta\n\n")
	list(&b, r.Delta)
	p("\n## Learning objectives\n\n")
	list(&b, r.Objectives)
	return b.String()
}

func list(b *strings.Builder, items []string) {
	if len(items) == 0 {
		b.WriteString("- (none)\n")
	}
	for _, it := range items {
		fmt.Fprintf(b, "- %s\n", it)
	}
}
