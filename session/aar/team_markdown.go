package aar

import (
	"fmt"
	"strings"

	"github.com/ward-sim/ward/session/physio"
)

// teamMarkdown writes the team's review: the closed-loop rate, every order and its loop, the
// orders never said done, the arrest's measures as the team's, then each member's part.
func (r Report) teamMarkdown(b *strings.Builder) {
	t := r.Team
	if t == nil {
		return
	}
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("\n## The team\n\n")
	var roster []string
	for _, m := range t.Members {
		roster = append(roster, m.Name+" ("+m.Role+")")
	}
	p("Members: %s.\n\n", strings.Join(roster, ", "))
	p("Closed-loop rate: %d of %d orders said to a member were said back done (%.0f %%).\n\n",
		t.Closed, t.Addressed, 100*t.Rate())
	if len(t.Orders) > 0 {
		p("| Ordered | By | To | Order | Done | Said done by |\n|---|---|---|---|---|---|\n")
		for _, o := range t.Orders {
			done, by := "never", "—"
			if o.Done != nil {
				done, by = fmt.Sprintf("%g s later", *o.Done-o.At), o.DoneBy
			}
			p("| %s | %s | %s | %s | %s | %s |\n", physio.SimTime(o.At), cell(o.By), cell(o.For), cell(o.Text), done, cell(by))
		}
		p("\n")
	}
	p("Orders never said done:\n\n")
	var open []string
	for _, o := range t.Unacknowledged() {
		open = append(open, fmt.Sprintf("%s to %s at %s: %q", o.By, o.For, physio.SimTime(o.At), o.Text))
	}
	list(b, open, "None.")
	if v := r.Arrest; v != nil {
		p("\nThe team's ALS measures: hands-off time %g s, compression fraction %.0f %%, longest pause %g s",
			v.HandsOff(), 100*v.Fraction, v.LongestPause)
		if v.Shockable {
			p(", first shock %s after the collapse", fromCollapse(v.FirstShock))
		}
		var drugs []string
		for _, d := range v.Drugs {
			drugs = append(drugs, fmt.Sprintf("%s at %s (%s)", d.Drug, d.When(), d.Verdict))
		}
		if len(drugs) > 0 {
			p("; drugs: %s", strings.Join(drugs, "; "))
		}
		p(".\n")
	}
	for _, m := range t.Members {
		p("\n### %s (%s)\n\n", m.Name, m.Role)
		var did []string
		for _, a := range m.Actions {
			line := fmt.Sprintf("%s %q", physio.SimTime(a.At), a.Text)
			switch {
			case a.Order:
				line += " (an order)"
			case a.Closes != "":
				line += fmt.Sprintf(" (said done: %q)", a.Closes)
			}
			if len(a.Outside) > 0 {
				line += " — outside their role: " + strings.Join(a.Outside, ", ")
			}
			did = append(did, line)
		}
		list(b, did, "Nothing that acted on the patient.")
	}
}

// teamDigest is the team's part as lines for the Preceptor's prompt: the closed loops, the
// orders never said done, and each member's part.
func (r Report) teamDigest() []string {
	t := r.Team
	if t == nil {
		return nil
	}
	lines := []string{fmt.Sprintf("Team: closed-loop rate %d of %d orders said to a member were said back done.", t.Closed, t.Addressed)}
	for _, o := range t.Unacknowledged() {
		lines = append(lines, fmt.Sprintf("Team: %s's order to %s at %s was never said done: %q.", o.By, o.For, physio.SimTime(o.At), o.Text))
	}
	for _, m := range t.Members {
		lines = append(lines, fmt.Sprintf("Team: %s (%s) said %d lines that acted, %d outside their role.", m.Name, m.Role, len(m.Actions), m.OutsideRole()))
	}
	return lines
}
