package records

import (
	"fmt"
	"strings"

	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/session/aar"
)

// MemberOf names the team member who said a line, and their role ("alice · leader"); "" for a
// line of a shift of one, or one no member said.
func MemberOf(m memory.Message) string {
	if m.Role != memory.RoleUser || m.TeamRole == "" {
		return ""
	}
	return m.By + " · " + m.TeamRole
}

// TeamLines are the lines members of a resuscitation team said in msgs (a line's By, TeamRole
// and For), timed in seconds from arrived (ward time).
func TeamLines(msgs []memory.Message, arrived float64) []aar.TeamLine {
	var out []aar.TeamLine
	for _, m := range msgs {
		if m.Role == memory.RoleUser && m.TeamRole != "" {
			out = append(out, aar.TeamLine{At: m.Sim - arrived, By: m.By, Role: m.TeamRole, For: m.For, Text: m.Content})
		}
	}
	return out
}

// WithTeam adds the team's part to a patient's review when a team played them: read from their
// whole conversation, msgs.
func WithTeam(r *aar.Report, msgs []memory.Message) {
	if lines := TeamLines(msgs, r.Arrived); len(lines) > 0 {
		r.Team = aar.Team(lines)
	}
}

// teamsMarkdown is the report's team view of a team's shifts: each patient a team played, its
// members and roles, the closed-loop rate, the orders never said done and each member's part.
func teamsMarkdown(b *strings.Builder, shifts []ShiftResult) {
	var rows []string
	for i, s := range shifts {
		for _, p := range s.Patients {
			t := p.Team
			if t == nil {
				continue
			}
			var members, open []string
			for _, m := range t.Members {
				members = append(members, fmt.Sprintf("%s (%s): lines that acted %d, outside their role %d", m.Name, m.Role, len(m.Actions), m.OutsideRole()))
			}
			for _, o := range t.Unacknowledged() {
				open = append(open, fmt.Sprintf("%s to %s: %q", o.By, o.For, o.Text))
			}
			if len(open) == 0 {
				open = []string{"none"}
			}
			rows = append(rows, fmt.Sprintf("| %d | %s | %s | %d/%d (%.0f%%) | %s |\n", i+1, mdCell(p.PatientID),
				mdCell(strings.Join(members, "<br>")), t.Closed, t.Addressed, 100*t.Rate(), mdCell(strings.Join(open, "<br>"))))
		}
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("\n### The team\n\n| # | patient | members | closed loop | orders never said done |\n| ---: | --- | --- | ---: | --- |\n")
	for _, r := range rows {
		b.WriteString(r)
	}
}
