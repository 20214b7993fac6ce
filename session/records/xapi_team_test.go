package records_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/records"
	"github.com/ward-sim/ward/session/scenario"
	"github.com/ward-sim/ward/session/sessiontest"
)

// teamShift is team-red's shift of the VF arrest: alice (leader) orders CPR, which bob
// (circulation) says started, and pads, which he never says on. The store is signed in as the
// instructor.
func teamShift(t *testing.T) (*sessiontest.Rig, *scenario.Library) {
	t.Helper()
	lib, err := scenario.Load()
	if err != nil {
		t.Fatal(err)
	}
	r := sessiontest.Trainee(t, "team-red")
	alice, bob := session.Member{Name: "alice", Role: "leader"}, session.Member{Name: "bob", Role: "circulation"}
	team := []session.Member{alice, bob}
	say := func(m session.Member, line string) {
		r.S.TeamTurn(context.Background(), m, team, line, func(session.Event) {})
	}
	say(alice, "/admit patient_1 arrest-vf-ward")
	say(alice, "/wait 35s")
	say(alice, "he's in cardiac arrest, crash call")
	say(alice, "start CPR")
	say(bob, "CPR started")
	say(alice, "pads on")
	signIn(t, r, persist.Person{Instructor: true})
	return r, lib
}

// ward report's team view: the team's shift under its name, with the members, the closed-loop
// rate and the order never said done.
func TestClassReportTeamView(t *testing.T) {
	r, lib := teamShift(t)
	report, err := records.ReadClassReport(r.Store, lib)
	if err != nil {
		t.Fatal(err)
	}
	md := report.Markdown()
	for _, want := range []string{"## team-red", "### The team", "alice (leader): lines that acted 3, outside their role 0",
		"bob (circulation): lines that acted 1", "| 1/2 (50%) |", `alice to bob: "pads on"`} {
		if !strings.Contains(md, want) {
			t.Errorf("the class report lacks %q:\n%s", want, md)
		}
	}
}

// A team's shift is exported as each member's statements of the case, the team an identified
// xAPI Group in their context with every member, the member's role an extension; no two
// statements share an id.
func TestXAPIStatementsOfATeam(t *testing.T) {
	r, lib := teamShift(t)
	statements, err := records.ReadXAPI(r.Store, lib, records.XAPINames{Base: records.DefaultXAPIBase})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	by := map[string]int{}
	for _, s := range statements {
		if ids[s.ID] {
			t.Errorf("two statements share the id %s", s.ID)
		}
		ids[s.ID] = true
		by[s.Actor.Account.Name]++
		team := s.Context.Team
		if team == nil || team.ObjectType != "Group" || team.Account.Name != "team-red" || len(team.Member) != 2 ||
			team.Member[0].Name != "alice" || team.Member[1].Name != "bob" {
			t.Fatalf("a statement's team: %+v", team)
		}
		role := s.Context.Extensions[records.DefaultXAPIBase+"extensions/team-role"]
		if want := map[string]string{"alice": "leader", "bob": "circulation"}[s.Actor.Name]; role != want {
			t.Errorf("%s's statement has the role %v, want %s", s.Actor.Name, role, want)
		}
	}
	if by["alice"] == 0 || by["alice"] != by["bob"] || len(by) != 2 {
		t.Errorf("statements by actor: %v; want alice and bob, the same number each", by)
	}
}

// A transcript of a team's shift heads each member's line with who said it and in which role.
func TestTranscriptNamesTheMember(t *testing.T) {
	r, _ := teamShift(t)
	tr, err := records.Export(r.Store, "patient_1")
	if err != nil {
		t.Fatal(err)
	}
	md := tr.Markdown()
	for _, want := range []string{"alice · leader", "bob · circulation"} {
		if !strings.Contains(md, want) {
			t.Errorf("the transcript lacks %q:\n%s", want, md)
		}
	}
}
