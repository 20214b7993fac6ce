package records

import (
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/session/aar"
)

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
