package session

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/session/aar"
	"github.com/ward-sim/ward/session/action"
)

var (
	alice = Member{Name: "alice", Role: aar.RoleLeader}
	bob   = Member{Name: "bob", Role: aar.RoleCirculation}
	carol = Member{Name: "carol", Role: aar.RoleDrugs}
	three = []Member{alice, bob, carol}
)

// teamVF is a team of three running the VF arrest to ROSC (seed 1: at the second shock): the leader orders, the
// circulation and drugs members say each order back done, one order (adrenaline) is never said
// done, and the drugs member gives oxygen, the airway's work, when the team has no airway.
var teamVF = append([]string{"alice /admit patient_1 arrest-vf-ward"}, teamScript("../testdata/team-vf-arrest.txt")...)

// teamScript reads a team's script, one step a line: the VF arrest is played here and over SSH
// (the root package's TestSSHTeam) from one file.
func teamScript(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

// playTeam plays a team's script on s: each step "[MM:SS] NAME LINE", a /wait (said by the
// leader) to its time first. It returns every event.
func playTeam(t *testing.T, s *Session, team []Member, script []string) []Event {
	t.Helper()
	var events []Event
	emit := func(e Event) { events = append(events, e) }
	who := map[string]Member{}
	for _, m := range team {
		who[m.Name] = m
	}
	clock := 0
	for _, step := range script {
		if at, rest, ok := strings.Cut(step, " "); ok && strings.Contains(at, ":") {
			var mm, ss int
			if _, err := fmt.Sscanf(at, "%d:%d", &mm, &ss); err != nil {
				t.Fatalf("step %q: %v", step, err)
			}
			if d := mm*60 + ss - clock; d > 0 {
				s.TeamTurn(context.Background(), team[0], team, fmt.Sprintf("/wait %ds", d), emit)
			}
			clock, step = mm*60+ss, rest
		}
		name, line, _ := strings.Cut(step, " ")
		m, ok := who[name]
		if !ok {
			t.Fatalf("step %q: no member %s", step, name)
		}
		s.TeamTurn(context.Background(), m, team, line, emit)
	}
	return events
}

// teamReview is the leader's /aar: the review, and what the Preceptor said of it.
func teamReview(t *testing.T, s *Session) (aar.Report, string) {
	t.Helper()
	var reviews []AAREvent
	var debrief string
	s.TeamTurn(context.Background(), alice, three, "/aar", func(e Event) {
		switch e := e.(type) {
		case AAREvent:
			reviews = append(reviews, e)
		case MessageEvent:
			if e.Agent == "Preceptor" {
				debrief = e.Text
			}
		}
	})
	if len(reviews) != 1 {
		t.Fatalf("%d reviews", len(reviews))
	}
	return reviews[0].Report, debrief
}

// A team runs the VF arrest to ROSC: every line is stored headed by its member and role, the
// leader's orders to a member wait for them, and the review scores each loop.
func TestTeamRunsVFArrestToROSC(t *testing.T) {
	r := newRigWith(t, func(c *Config) { c.Seed = 1 })
	events := playTeam(t, r.s, three, teamVF)
	rev, debrief := teamReview(t, r.s)

	if rev.Arrest == nil || !strings.Contains(rev.Arrest.Outcome, "ROSC") {
		t.Fatalf("the arrest did not end in ROSC: %+v", rev.Arrest)
	}
	tm := rev.Team
	if tm == nil {
		t.Fatal("the review has no team section")
	}
	// Orders to a member: CPR, pads and charge, stop ×3, shock ×2, IV access, charge, adrenaline.
	if tm.Addressed != 10 || tm.Closed != 9 {
		t.Errorf("closed %d of %d orders, want 9 of 10:\n%s", tm.Closed, tm.Addressed, rev.Markdown())
	}
	open := tm.Unacknowledged()
	if len(open) != 1 || open[0].For != "carol" || !strings.Contains(open[0].Text, "adrenaline") {
		t.Errorf("unacknowledged: %+v, want carol's adrenaline", open)
	}
	// The adrenaline never said done was never given: the order alone does nothing.
	for _, d := range rev.Arrest.Drugs {
		if strings.Contains(d.Drug, "adrenaline") { // as the review names it: "adrenaline 1 mg IV"
			t.Errorf("adrenaline was given though no one said it was done: %+v", d)
		}
	}
	// CPR ordered at 00:35 and said started at 00:36: the loop closed a second later.
	cpr := tm.Orders[0]
	if cpr.Text != "start CPR" || cpr.DoneBy != "bob" || cpr.Done == nil || *cpr.Done-cpr.At != 1 {
		t.Errorf("the first order: %+v", cpr)
	}
	member := func(name string) aar.MemberReview {
		for _, m := range tm.Members {
			if m.Name == name {
				return m
			}
		}
		t.Fatalf("no member %s in %+v", name, tm.Members)
		return aar.MemberReview{}
	}
	if b := member("bob"); b.Role != aar.RoleCirculation || len(b.Actions) != 9 {
		t.Errorf("bob's actions: %+v", b)
	}
	c := member("carol")
	last := c.Actions[len(c.Actions)-1]
	if len(last.Outside) != 1 || last.Outside[0] != aar.RoleAirway {
		t.Errorf("carol's oxygen is not marked outside her role: %+v", last)
	}
	md := rev.Markdown()
	for _, want := range []string{"## The team", "alice (leader), bob (circulation), carol (drugs)", "Closed-loop rate: 9 of 10",
		`alice to carol at`, `"give 1 mg adrenaline IV"`, "outside their role: airway", "hands-off time", "### bob (circulation)"} {
		if !strings.Contains(md, want) {
			t.Errorf("the debrief lacks %q:\n%s", want, md)
		}
	}

	// The Preceptor debriefs the team from its part of the review too.
	for _, want := range []string{"**The team**", "closed-loop rate 9 of 10", "alice's order to carol at 03:30 was never said done",
		"carol (drugs) said 2 lines that acted, 1 outside their role"} {
		if !strings.Contains(debrief, want) {
			t.Errorf("the Preceptor's debrief lacks %q:\n%s", want, debrief)
		}
	}

	// Each of the leader's orders for a member was answered by ward's word of whom it waits for;
	// the loops the members closed were told to the team.
	var closed int
	for _, e := range events {
		if n, ok := e.(NoteEvent); ok && n.Stop == "team" {
			closed++
		}
	}
	if closed != 9 {
		t.Errorf("%d loops were told closed, want 9", closed)
	}

	// The stored history is the record: every member's line with its member and role, in order.
	msgs, _, err := r.s.Recent("patient_1", math.MaxInt)
	if err != nil {
		t.Fatal(err)
	}
	var said []string
	for _, m := range msgs {
		if m.Role == memory.RoleUser && !strings.HasPrefix(m.Content, "/") {
			if m.TeamRole == "" || m.By == "" {
				t.Errorf("a member's line is stored without its member: %+v", m)
			}
			said = append(said, m.By+" "+m.Content)
		}
	}
	var want []string
	for _, step := range teamVF[1:] {
		_, rest, _ := strings.Cut(step, " ")
		want = append(want, rest)
	}
	if strings.Join(said, "\n") != strings.Join(want, "\n") {
		t.Errorf("the stored lines:\n%s\nwant:\n%s", strings.Join(said, "\n"), strings.Join(want, "\n"))
	}
}

// An order no member's role holds is the nurse's, carried out at once; the leader's own part,
// and a line for two members' parts, are no order.
func TestTeamOrderedTo(t *testing.T) {
	pair := []Member{alice, bob}
	for _, c := range []struct {
		by   Member
		line string
		want string
	}{
		{alice, "shock 150 J", "bob"},
		{alice, "give 1 mg adrenaline IV", aar.Nurse},
		{alice, "crash call", ""},
		{alice, "start CPR, IV access", ""},
		{alice, "how are you feeling", ""},
		{bob, "give 1 mg adrenaline IV", ""},
	} {
		if got := orderedTo(c.by, pair, nil, action.Parse(c.line)); got != c.want {
			t.Errorf("%s says %q: ordered to %q, want %q", c.by, c.line, got, c.want)
		}
	}
}

// With no patient active, the leader's order is not held for a member (there is no one to give
// it to yet): the line goes through the turn as any line does, and is stored as no order.
func TestTeamOrderWithNoPatientIsNoOrder(t *testing.T) {
	r := newRigWith(t, func(c *Config) {})
	r.s.TeamTurn(context.Background(), alice, three, "start CPR", func(Event) {})
	msgs, _, err := r.s.Recent("", math.MaxInt)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) == 0 || msgs[0].Content != "start CPR" || msgs[0].By != "alice" || msgs[0].For != "" {
		t.Errorf("the shift's history: %+v", msgs)
	}
}

// A member closes the loop as a team speaks, in few words: "IV's in", "adrenaline in" carry out
// the leader's order as the leader said it (the dose and route the member did not repeat), and
// close it; "done" alone says back nothing and closes nothing.
func TestTeamSaysBackInFewWords(t *testing.T) {
	r := newRigWith(t, func(c *Config) { c.Seed = 1 })
	events := playTeam(t, r.s, three, []string{
		"alice /admit patient_1 arrest-vf-ward",
		"00:10 alice he's in cardiac arrest, crash call",
		"00:10 alice start CPR",
		"00:11 bob compressions started",
		"00:20 alice IV access",
		"00:40 carol IV's in",
		"00:50 alice give 1 mg adrenaline IV",
		"01:00 carol adrenaline in",
		"01:10 alice charge to 150 J",
		"01:11 bob done",
	})
	rev, _ := teamReview(t, r.s)
	tm := rev.Team
	if tm == nil || tm.Addressed != 4 || tm.Closed != 3 {
		t.Fatalf("the team's loops: %+v", tm)
	}
	if open := tm.Unacknowledged(); len(open) != 1 || open[0].Text != "charge to 150 J" {
		t.Errorf("unacknowledged: %+v, want bob's charge (\"done\" said back nothing)", open)
	}
	adrenaline := tm.Orders[2]
	if adrenaline.DoneBy != "carol" || adrenaline.Done == nil || *adrenaline.Done-adrenaline.At != 10 {
		t.Errorf("the adrenaline order: %+v", adrenaline)
	}
	given := false
	for _, d := range rev.Arrest.Drugs {
		given = given || d.Drug == "adrenaline 1 mg IV"
	}
	if !given {
		t.Errorf("carol's \"adrenaline in\" gave no adrenaline 1 mg IV: %+v", rev.Arrest.Drugs)
	}
	var told []string
	for _, e := range events {
		if n, ok := e.(NoteEvent); ok && n.Stop == "team" {
			told = append(told, n.Text)
		}
	}
	want := `carol closed the loop on alice's order "give 1 mg adrenaline IV" after 00:10.`
	if len(told) != 3 || told[2] != want {
		t.Errorf("the team was told:\n%s\nwant the third: %s", strings.Join(told, "\n"), want)
	}
	c := tm.Members[2]
	if c.Name != "carol" || len(c.Actions) != 2 || c.Actions[1].Closes != "give 1 mg adrenaline IV" {
		t.Errorf("carol's actions: %+v", c)
	}
}

// A role the case names holds its kinds when a member has it: the midwife of an obstetric
// haemorrhage is ordered to the uterus; without one, anyone may do it and no one is ordered.
func TestTeamOrderedToACaseRole(t *testing.T) {
	lib, err := LoadLibrary("")
	if err != nil {
		t.Fatal(err)
	}
	pph, _ := lib.Get("postpartum-haemorrhage")
	dana := Member{Name: "dana", Role: "midwife"}
	fundus := action.Parse("rub up the fundus")
	if got := orderedTo(alice, []Member{alice, carol, dana}, pph.TeamRoles, fundus); got != "dana" {
		t.Errorf("the fundus ordered to %q, want dana, the midwife (%+v)", got, fundus)
	}
	if got := orderedTo(alice, three, pph.TeamRoles, fundus); got != "" {
		t.Errorf("with no midwife, the fundus ordered to %q", got)
	}
	if got := orderedTo(alice, []Member{alice, carol, dana}, pph.TeamRoles, action.Parse("give oxytocin 5 units IV")); got != "carol" {
		t.Errorf("the oxytocin ordered to %q, want carol (drugs)", got)
	}

	// In the shift, the order waits for the midwife, whose word closes it.
	r := newRigWith(t, func(c *Config) { c.Seed = 1 })
	events := playTeam(t, r.s, []Member{alice, carol, dana}, []string{"alice /admit patient_1 postpartum-haemorrhage",
		"00:10 alice rub up the fundus", "00:20 dana fundus rubbed up"})
	var said []string
	for _, e := range events {
		switch e := e.(type) {
		case NoteEvent:
			said = append(said, e.Text)
		case MessageEvent:
			said = append(said, e.Text)
		}
	}
	for _, want := range []string{"Order for dana (midwife)", `dana closed the loop on alice's order "rub up the fundus" after 00:10.`} {
		if !slices.ContainsFunc(said, func(s string) bool { return strings.Contains(s, want) }) {
			t.Errorf("the team was not told %q:\n%s", want, strings.Join(said, "\n"))
		}
	}
}

// The roles a case's team may have are every team's and the case's own; a case not in the
// library is named.
func TestTeamRolesFor(t *testing.T) {
	lib, err := LoadLibrary("")
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{
		"":                       "leader airway circulation drugs recorder",
		"arrest-vf-ward":         "leader airway circulation drugs recorder",
		"paediatric-arrest":      "leader airway circulation drugs recorder timekeeper",
		"postpartum-haemorrhage": "leader airway circulation drugs recorder midwife",
	} {
		if roles, err := TeamRolesFor(lib, id); err != nil || strings.Join(roles, " ") != want {
			t.Errorf("%q: %v (%v), want %s", id, roles, err, want)
		}
	}
	if _, err := TeamRolesFor(lib, "no-such-case"); err == nil || !strings.Contains(err.Error(), "no such scenario no-such-case") {
		t.Errorf("an unknown case: %v", err)
	}
	if TeamRoles[len(TeamRoles)-1] != "recorder" {
		t.Errorf("TeamRolesFor changed TeamRoles: %v", TeamRoles)
	}
}
