package action

import sc "github.com/ward-sim/ward/session/scenario"

// referrals read a call for a team: "call the cath lab for primary PCI", "refer to ICU". A team
// named without a verb that calls it ("is he for PCI?") is no call, but an ambulance's pre-alert
// is a call in its own words ("pre-alert the major trauma centre").
func (c clause) referrals() []placed {
	i := c.index(catTeam, 0)
	if i < 0 || c.negated(i) || !(c.has(catCall) || c.has(catGive) || c.has(catCheck) || c[i].val == "prealert") {
		return nil
	}
	return []placed{{c[i].pos, Action{Kind: sc.KindRefer, Team: c[i].val}}}
}
