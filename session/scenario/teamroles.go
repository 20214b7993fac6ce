package scenario

import (
	"fmt"
	"regexp"
	"slices"
)

// TeamRole is a role a case's resuscitation team may have beyond the five every team may
// (leader, airway, circulation, drugs, recorder: session/aar): a paediatric arrest's
// timekeeper, who calls each two-minute cycle (RCUK PLS 2021), or an obstetric haemorrhage's
// midwife at the uterus (RCOG Green-top 52). Holds are the action kinds that are the role's part
// of the work: the leader's order of one goes to the member in the role. None: the role holds
// no action, as the recorder holds none.
type TeamRole struct {
	Name   string       `yaml:"name" required:"true"`
	Does   string       `yaml:"does" required:"true"` // what the member in the role does, as they are told
	Holds  []ActionKind `yaml:"holds"`
	Source string       `yaml:"source" required:"true"`
}

// teamRoleRe is what a role's name may be: one lowercase word, hyphens allowed, as a member is
// named NAME:ROLE.
var teamRoleRe = regexp.MustCompile(`^[a-z][a-z-]{0,31}$`)

// Holder is the role of roles that holds kind; "" for none.
func Holder(roles []TeamRole, kind ActionKind) string {
	for _, r := range roles {
		if slices.Contains(r.Holds, kind) {
			return r.Name
		}
	}
	return ""
}

// checkTeamRoles refuses a role with a name a member cannot be given, named twice, or holding an
// unknown kind or a kind another of the case's roles holds.
func (c *checker) checkTeamRoles(s *Scenario) {
	for i, r := range s.TeamRoles {
		p := fmt.Sprintf("team_roles[%d]", i)
		if !teamRoleRe.MatchString(r.Name) {
			c.at(p+".name", "a team role's name %q must be one lowercase word (letters and -, up to 32)", r.Name)
		}
		if slices.ContainsFunc(s.TeamRoles[:i], func(o TeamRole) bool { return o.Name == r.Name }) {
			c.at(p+".name", "team role %q is named twice", r.Name)
		}
		for j, k := range r.Holds {
			switch other := Holder(s.TeamRoles[:i], k); {
			case !slices.Contains(ActionKinds, k):
				c.at(fmt.Sprintf("%s.holds[%d]", p, j), "unknown action kind %q (want one of %v)", k, ActionKinds)
			case other != "":
				c.at(fmt.Sprintf("%s.holds[%d]", p, j), "%s is held by team role %s already", k, other)
			}
		}
	}
}
