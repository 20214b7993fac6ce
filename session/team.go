package session

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/session/aar"
	"github.com/ward-sim/ward/session/action"
	"github.com/ward-sim/ward/session/physio"
	"github.com/ward-sim/ward/session/records"
	"github.com/ward-sim/ward/session/scenario"
)

// A resuscitation team shares one shift: one engine, one clock, one record. Each member's line
// is a turn of the shift, stored with who said it and in which role (memory.Message's By and
// TeamRole). An order from the leader whose every action is another member's part of the work
// is that member's to carry out: it is stored with whom it is for and does nothing to the
// patient until the member says it is done (their line acts, and closes the loop): in their own
// words, or saying it back in few ("adrenaline in": the order is carried out as the leader said
// it, aar.TeamReview.SaidBack). An order no member's role holds is the nurse's, carried out at
// once as in a shift of one. The review reads the loops back from the stored lines (aar.Team).

// TeamRoles are the roles a member may have, the leader first (aar.Roles).
var TeamRoles = aar.Roles

// RoleRank orders a team's roles: TeamRoles in their order, then those a case names.
var RoleRank = aar.RoleRank

// TeamRolesFor are the roles a member of a team may have when its shift starts with the case id
// of lib ("" for the server's shift): TeamRoles, then those the case names (Scenario.TeamRoles).
// An error names a case lib lacks.
func TeamRolesFor(lib *scenario.Library, id string) ([]string, error) {
	if id == "" {
		return TeamRoles, nil
	}
	sc, ok := lib.Get(id)
	if !ok {
		return nil, fmt.Errorf("no such scenario %s (ward scenarios list)", id)
	}
	roles := slices.Clone(TeamRoles)
	for _, r := range sc.TeamRoles {
		if !slices.Contains(roles, r.Name) { // one every team has: ward scenarios check says so
			roles = append(roles, r.Name)
		}
	}
	return roles, nil
}

// Member is one member of a team: their name and role (TeamRoles).
type Member struct{ Name, Role string }

func (m Member) String() string { return m.Name + " (" + m.Role + ")" }

// TeamTurn runs one line a member of team said. Lines reach it one at a time, in the order they
// were said (live.Live keeps that order).
func (s *Session) TeamTurn(ctx context.Context, by Member, team []Member, text string, emit func(Event)) {
	s.begin(llm.TraceInput{Op: llm.InputTurn, Text: text}, emit)
	t := newTurn(text, emit)
	t.by = by
	defer s.endTurn(t)
	defer s.observeCalls(t)()
	line := strings.TrimSpace(text)
	if strings.HasPrefix(line, "/") {
		s.restoreFromRegistry(t)
		s.command(ctx, t, line)
		return
	}
	s.restoreFromRegistry(t)
	if o, ok := aar.Team(records.TeamLines(s.chat.history, 0)).SaidBack(by.Name, line); ok {
		t.carries = o.Text // "adrenaline in": the order done as the leader said it
	}
	switch to := orderedTo(by, team, s.caseRoles(t), action.Parse(line)); {
	case to == aar.Nurse:
		t.orderFor = to // carried out at once, as in a shift of one
	case to != "" && s.active != "": // with no patient active, the line finds its patient and acts
		t.orderFor = to
		s.holdOrder(t, team)
		return
	}
	if st, ok := s.settle(ctx, t); ok {
		s.respond(ctx, t, st)
	}
	s.noteClosed(t)
}

// orderedTo is whom a member's line orders to carry it out: the member whose role holds every
// one of its actions, or the nurse when no member's role holds any of them; "" when the line is
// no order (said by a member who is not the leader, or acting in the leader's own part). A role
// the case names (caseRoles) holds its kinds when a member has it.
func orderedTo(by Member, team []Member, caseRoles []scenario.TeamRole, acts []action.Action) string {
	if by.Role != aar.RoleLeader || len(acts) == 0 {
		return ""
	}
	holder := ""
	for _, a := range acts {
		role := aar.RoleOf(a)
		if held := scenario.Holder(caseRoles, a.Kind); held != "" && slices.ContainsFunc(team, func(m Member) bool { return m.Role == held }) {
			role = held
		}
		if role == "" || role == aar.RoleLeader {
			return "" // the leader does it: an order must be wholly another's part
		}
		who := aar.Nurse
		for _, m := range team {
			if m.Role == role && m.Name != by.Name {
				who = m.Name
				break
			}
		}
		if holder != "" && who != holder {
			return "" // parts for two people: the leader says them one at a time
		}
		holder = who
	}
	return holder
}

// caseRoles are the roles the active patient's case names; none with no patient.
func (s *Session) caseRoles(t *turn) []scenario.TeamRole {
	if s.active == "" {
		return nil
	}
	if e := s.engine(t, s.active); e != nil {
		return e.Scenario().TeamRoles
	}
	return nil
}

// holdOrder stores an order for a member with ward's word of whom it waits for: nothing happens
// to the patient until that member says it is done.
func (s *Session) holdOrder(t *turn, team []Member) {
	t.hold(s.typed(t)) // stored by the commit of ward's word below
	t.decision = DecisionUnchanged
	who := t.orderFor
	for _, m := range team {
		if m.Name == who {
			who = m.String()
		}
	}
	word := fmt.Sprintf("Order for %s: %q. It is done when %s says it back as done.", who, strings.TrimSpace(t.input), t.orderFor)
	s.record(t, []memory.Message{s.wardSays(t, word)}, nil)
}

// noteClosed tells the team when a member's line closed an order's loop, and after how long.
func (s *Session) noteClosed(t *turn) {
	if t.by.Name == "" || t.orderFor != "" || s.active == "" {
		return
	}
	lines := records.TeamLines(s.chat.history, 0)
	if len(lines) == 0 || lines[len(lines)-1].By != t.by.Name {
		return // the line was not this patient's
	}
	said := lines[len(lines)-1].At
	for _, o := range aar.Team(lines).Orders {
		if o.DoneBy == t.by.Name && o.Done != nil && *o.Done == said && o.For != aar.Nurse {
			t.emit(NoteEvent{PatientID: s.active, Stop: "team", Text: fmt.Sprintf("%s closed the loop on %s's order %q after %s.",
				t.by.Name, o.By, o.Text, physio.SimTime(*o.Done-o.At))})
		}
	}
}

// review is the After Action Review of the patient, with the team's part when a team played
// them: read from the whole stored conversation, not the part held in memory.
func (s *Session) review(e *physio.Engine) aar.Report {
	r := aar.Of(e)
	if msgs, _, err := s.Recent(e.PatientID(), math.MaxInt); err == nil {
		records.WithTeam(&r, msgs)
	}
	return r
}
