package aar

import (
	"slices"

	"github.com/ward-sim/ward/session/action"
	sc "github.com/ward-sim/ward/session/scenario"
)

// A resuscitation team shares one patient: a leader who decides and says the orders, and members
// who each hold a part of the work and carry out the orders of their part. RCUK ALS 2021 teaches
// the roles and closed-loop communication: an order is said to a named person, who says it back
// and says when it is done, so the leader knows it happened and nothing is done twice or never.

// The roles of a resuscitation team.
const (
	RoleLeader      = "leader"      // decides, reads the rhythm, says the orders, keeps the plan
	RoleAirway      = "airway"      // airway, oxygen and ventilation
	RoleCirculation = "circulation" // compressions, pads, the defibrillator and its shocks
	RoleDrugs       = "drugs"       // vascular access, drugs and fluids
	RoleRecorder    = "recorder"    // times and records; holds no action of the algorithm
)

// Roles are the team's roles, in the order a team is listed.
var Roles = []string{RoleLeader, RoleAirway, RoleCirculation, RoleDrugs, RoleRecorder}

// Nurse is who carries out an order no member's role holds: the ward's nurse, as in a shift of
// one.
const Nurse = "nurse"

// roleOf is the role whose part of the work an action is; "" for actions any member may do
// (asking the patient, examining).
var roleOf = map[sc.ActionKind]string{
	sc.KindArrestCall: RoleLeader, sc.KindRhythmCheck: RoleLeader, sc.KindNameRhythm: RoleLeader,
	sc.KindCauses: RoleLeader, sc.KindStopResus: RoleLeader, sc.KindRefer: RoleLeader,
	sc.KindBPTarget: RoleLeader, sc.KindTempControl: RoleLeader,

	sc.KindAirway: RoleAirway, sc.KindVentilate: RoleAirway, sc.KindOxygen: RoleAirway, sc.KindStopOxygen: RoleAirway,

	sc.KindCPR: RoleCirculation, sc.KindStopCPR: RoleCirculation, sc.KindPads: RoleCirculation,
	sc.KindCharge: RoleCirculation, sc.KindShock: RoleCirculation, sc.KindAttachMonitor: RoleCirculation,
	sc.KindCardioversion: RoleCirculation, sc.KindPacing: RoleCirculation,

	sc.KindIVAccess: RoleDrugs, sc.KindMedication: RoleDrugs, sc.KindFluids: RoleDrugs,
	sc.KindGlucoseCheck: RoleDrugs, sc.KindTreatCause: RoleDrugs,
}

// RoleOf is the role whose part of the work a is; "" when any member may do it.
func RoleOf(a action.Action) string { return roleOf[a.Kind] }

// RoleRank orders a team's roles: every team's in the order of Roles, then those a case names.
func RoleRank(role string) int {
	if i := slices.Index(Roles, role); i >= 0 {
		return i
	}
	return len(Roles)
}

// IsRole says whether role is one of a team's roles.
func IsRole(role string) bool { return slices.Contains(Roles, role) }

// TeamLine is one line a member of a team said, as the shift stored it.
type TeamLine struct {
	At   float64 // seconds since the patient arrived
	By   string  // the member's name
	Role string  // the member's role
	// For is whom the line orders to carry it out: a member's name, or Nurse; "" for a line that
	// is no order (the member acts, or says it is done).
	For  string
	Text string
}

// TeamReview is how a team worked: its orders and whether each loop was closed, and what each
// member did. The ALS measures are the team's: they are the arrest's review (Report.Arrest).
type TeamReview struct {
	Members []MemberReview `json:"members"`
	Orders  []TeamOrder    `json:"orders"`
	// Addressed counts the orders said to a member, Closed those the member said were done; the
	// closed-loop rate is Closed / Addressed. Orders the nurse carried out are in neither.
	Addressed int `json:"addressed"`
	Closed    int `json:"closed"`
}

// TeamOrder is one order and its loop.
type TeamOrder struct {
	At   float64 `json:"at"`
	By   string  `json:"by"`
	For  string  `json:"for"` // a member's name, or Nurse
	Text string  `json:"text"`
	// Done is when the loop closed (the member said it was done, or the nurse carried it out);
	// nil while it is open. DoneBy is who said so: For, or another member who did it instead.
	Done   *float64 `json:"done,omitempty"`
	DoneBy string   `json:"done_by,omitempty"`
	keys   []string
}

// MemberReview is one member and everything they said that did something.
type MemberReview struct {
	Name    string         `json:"name"`
	Role    string         `json:"role"`
	Actions []MemberAction `json:"actions"`
}

// MemberAction is one line of a member's that did something: an order they gave, or what they
// did. Outside lists the roles of its actions that are not the member's own.
type MemberAction struct {
	At      float64  `json:"at"`
	Text    string   `json:"text"`
	Order   bool     `json:"order,omitempty"`
	Outside []string `json:"outside_role,omitempty"`
	Closes  string   `json:"closes,omitempty"` // the order it closed, as said
}

// OutsideRole counts the member's lines that did another role's work.
func (m MemberReview) OutsideRole() int {
	n := 0
	for _, a := range m.Actions {
		if len(a.Outside) > 0 {
			n++
		}
	}
	return n
}

// Rate is the closed-loop rate: the orders said to a member that the member said were done; 0
// with none.
func (t TeamReview) Rate() float64 {
	if t.Addressed == 0 {
		return 0
	}
	return float64(t.Closed) / float64(t.Addressed)
}

// Unacknowledged are the orders said to a member that no one said were done.
func (t TeamReview) Unacknowledged() []TeamOrder {
	var out []TeamOrder
	for _, o := range t.Orders {
		if o.Done == nil {
			out = append(out, o)
		}
	}
	return out
}

// Team reviews the team's lines, in the order they were said, its members listed by role (the
// leader first), then in the order they first spoke. A line ordering a member opens an
// order; a member's line whose actions match an open order's (the same kind, the same drug)
// closes the oldest such order; an order for the nurse is carried out as it is said.
func Team(lines []TeamLine) *TeamReview {
	t := &TeamReview{}
	members := map[string]int{}
	for _, l := range lines {
		i, ok := members[l.By]
		if !ok {
			i = len(t.Members)
			members[l.By] = i
			t.Members = append(t.Members, MemberReview{Name: l.By, Role: l.Role})
		}
		acts := action.Parse(l.Text)
		back := -1
		if l.For == "" {
			back = t.saidBack(l.By, l.Text, acts)
		}
		if back >= 0 {
			acts = action.Parse(t.Orders[back].Text) // the member did the order as it was said
		}
		if len(acts) == 0 {
			continue
		}
		did := MemberAction{At: l.At, Text: l.Text, Order: l.For != "", Outside: outside(l.Role, acts)}
		switch {
		case l.For != "":
			did.Outside = nil // an order gives the work to its role
			t.order(l, acts)
		case back >= 0:
			did.Closes = t.closeOrder(back, l)
		default:
			did.Closes = t.close(l, acts)
		}
		t.Members[i].Actions = append(t.Members[i].Actions, did)
	}
	slices.SortStableFunc(t.Members, func(a, b MemberReview) int { return RoleRank(a.Role) - RoleRank(b.Role) })
	return t
}

// order opens the line's order; one for the nurse is done as it is said.
func (t *TeamReview) order(l TeamLine, acts []action.Action) {
	o := TeamOrder{At: l.At, By: l.By, For: l.For, Text: l.Text, keys: keys(acts)}
	if l.For == Nurse {
		o.Done, o.DoneBy = &l.At, Nurse
	} else {
		t.Addressed++
	}
	t.Orders = append(t.Orders, o)
}

// close closes the oldest open order the line's actions match, and says which.
func (t *TeamReview) close(l TeamLine, acts []action.Action) string {
	said := keys(acts)
	for i := range t.Orders {
		o := &t.Orders[i]
		if o.Done != nil || !slices.ContainsFunc(o.keys, func(k string) bool { return slices.Contains(said, k) }) {
			continue
		}
		return t.closeOrder(i, l)
	}
	return ""
}

// closeOrder closes the order at i with the line, and says which.
func (t *TeamReview) closeOrder(i int, l TeamLine) string {
	o := &t.Orders[i]
	o.Done, o.DoneBy = &l.At, l.By
	if l.By == o.For { // done by another, it was carried out, but the loop was not closed
		t.Closed++
	}
	return o.Text
}

// SaidBack is the member's open order that line says back as done in few words ("adrenaline
// in", "charged": action.SaysBack), the oldest if several: the line carries it out as the order
// said it. False when the line says back none, or does something of its own beside.
func (t *TeamReview) SaidBack(member, line string) (TeamOrder, bool) {
	if i := t.saidBack(member, line, action.Parse(line)); i >= 0 {
		return t.Orders[i], true
	}
	return TeamOrder{}, false
}

func (t *TeamReview) saidBack(member, line string, acts []action.Action) int {
	said := keys(acts)
	for i, o := range t.Orders {
		beside := slices.ContainsFunc(said, func(k string) bool { return !slices.Contains(o.keys, k) })
		if o.Done == nil && o.For == member && !beside && action.SaysBack(line, o.Text) {
			return i
		}
	}
	return -1
}

// keys name what actions do, to match a done with its order: the kind, and the drug for a drug.
func keys(acts []action.Action) []string {
	var out []string
	for _, a := range acts {
		out = append(out, string(a.Kind)+":"+a.Drug)
	}
	return out
}

// outside is the roles of acts that are another's part of the work than role's.
func outside(role string, acts []action.Action) []string {
	var out []string
	for _, a := range acts {
		if r := RoleOf(a); r != "" && r != role && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}
