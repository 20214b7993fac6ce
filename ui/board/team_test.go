package board

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ward-sim/ward/session"
)

// fakeTeams forms teams as ui/lab would, keeping what it was asked to form: enrolled trainees,
// two cases (the arrest's with a role of its own), and a team refused when a member is no
// trainee.
type fakeTeams struct {
	formed []string
}

func (f *fakeTeams) Enrolled() ([]Enrolled, error) {
	return []Enrolled{{Name: "alice"}, {Name: "bob", Team: "blue"}, {Name: "carol"}}, nil
}
func (f *fakeTeams) Cases() []string { return []string{"anaphylaxis", "arrest-vf-ward"} }
func (f *fakeTeams) Roles(scenario string) ([]string, error) {
	if scenario == "arrest-vf-ward" {
		return append(slices.Clone(session.TeamRoles), "timekeeper"), nil
	}
	return session.TeamRoles, nil
}

func (f *fakeTeams) Form(name, scenario string, members []session.Member) error {
	if name == "refused" {
		return errors.New("the teams cannot be written")
	}
	f.formed = append(f.formed, name+" "+scenario+" "+describeMembers(members))
	return nil
}

// The instructor forms a team on the board: a name, the case, then a role for each member they
// choose (→ moves a trainee's role on, ← back), each shown with the team they are in now; a
// trainee left without a role is not a member.
// The status line says the team was formed, and the board is back.
func TestFormATeamFromTheBoard(t *testing.T) {
	teams := &fakeTeams{}
	m := New(&fakeClass{}, teams, plainTheme(t)).(*model)
	press(m, "t")
	if v := view(m); !strings.Contains(v, "The team's name") {
		t.Fatalf("the team dialog asks:\n%s", v)
	}
	if cmd := press(m, "enter"); cmd != nil || m.team.step != teamName {
		t.Fatal("a team with no name went on")
	}
	typeText(m, "red")
	press(m, "enter")
	v := view(m)
	for _, want := range []string{"Team red: which case", serversShift, "anaphylaxis", "arrest-vf-ward"} {
		if !strings.Contains(v, want) {
			t.Errorf("the case step lacks %q:\n%s", want, v)
		}
	}
	press(m, "down", "down", "enter")
	if cmd := press(m, "enter"); cmd != nil || !strings.Contains(view(m), "give at least one trainee a role") {
		t.Fatalf("a team of no one went on:\n%s", view(m))
	}
	// alice leads; bob is moved past leader and airway to circulation; carol to the case's
	// timekeeper (back from none, the last role) and then left out again.
	press(m, "right", "down", "right", "right", "right", "down", "left")
	v = view(m)
	for _, want := range []string{"Team red, arrest-vf-ward", "timekeeper", "alice", "leader", "bob", "circulation", "now in team blue"} {
		if !strings.Contains(v, want) {
			t.Errorf("the roles step lacks %q:\n%s", want, v)
		}
	}
	if !strings.Contains(v, "carol                timekeeper") {
		t.Errorf("carol is not the timekeeper:\n%s", v)
	}
	assertFits(t, v, 80, 24)
	press(m, "right") // none: carol is not a member
	finish(t, m, press(m, "enter"))
	if want := []string{"red arrest-vf-ward alice (leader), bob (circulation)"}; !slices.Equal(teams.formed, want) {
		t.Errorf("formed %q, want %q", teams.formed, want)
	}
	if m.mode != modeBoard || !strings.Contains(view(m), "team red: formed: alice (leader), bob (circulation)") {
		t.Errorf("after forming, the board says:\n%s", view(m))
	}
}

// A team the server refuses is not formed, and the status line says why; esc leaves the dialog
// at any step with nothing formed.
func TestFormATeamRefusedOrCancelled(t *testing.T) {
	teams := &fakeTeams{}
	m := New(&fakeClass{}, teams, plainTheme(t)).(*model)
	press(m, "t")
	typeText(m, "refused")
	press(m, "enter", "enter", "right")
	finish(t, m, press(m, "enter"))
	if v := view(m); !strings.Contains(v, "team refused: not done — the teams cannot be written") {
		t.Errorf("a refused team's status:\n%s", v)
	}
	press(m, "t")
	typeText(m, "blue")
	press(m, "enter", "esc")
	if m.mode != modeBoard || len(teams.formed) != 0 {
		t.Errorf("esc left mode %d, formed %q", m.mode, teams.formed)
	}
}
