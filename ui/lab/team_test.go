package lab

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session"
	gossh "golang.org/x/crypto/ssh"
)

var red = Team{Name: "red", Scenario: "arrest-vf-ward", Members: []session.Member{
	{Name: "alice", Role: "leader"}, {Name: "bob", Role: "circulation"}, {Name: "carol", Role: "drugs"}}}

// newTeamLab serves a database on which alice (leader), bob (circulation) and carol (drugs) are
// team red, on the VF arrest; it returns their keys.
func newTeamLab(t *testing.T) (*testLab, map[string]gossh.Signer) {
	t.Helper()
	l := newLab(t, nil, func(c *Config) { c.Teams = strings.TrimSuffix(c.Keys, ".keys") + ".teams" })
	keys := map[string]gossh.Signer{}
	for _, m := range red.Members {
		keys[m.Name] = l.enrol(m.Name, false)
	}
	all, err := ReadEnrolments(l.cfg.Keys)
	if err != nil {
		t.Fatal(err)
	}
	if err := FormTeam(l.cfg.Teams, red, all, session.TeamRoles); err != nil {
		t.Fatal(err)
	}
	return l, keys
}

// Three members connect with their own keys to one shift: each line reaches every member's
// screen headed by who said it and in which role; the leader's order waits for the member who
// holds it, whose word closes it; a member who drops and returns finds the same arrest.
func TestATeamSharesOneShift(t *testing.T) {
	l, keys := newTeamLab(t)
	screens := map[string]*client{}
	for _, m := range red.Members {
		screens[m.Name] = l.dial(m.Name, keys[m.Name])
		screens[m.Name].waitFor("Graham Holt")
		screens[m.Name].waitFor("you are " + m.Name + " (" + m.Role + ")")
	}
	alice, bob, carol := screens["alice"], screens["bob"], screens["carol"]

	// The instructor's board shows the team as one row, its members in role order; watching it
	// shows the shared screen.
	teacher := l.dial("jones", l.enrol("jones", true))
	row := "team red: alice (leader), bob (circulation), carol (drugs)"
	teacher.waitFor(row)
	if trainees := l.srv.Class().Trainees(); len(trainees) != 1 || trainees[0].Name != row || trainees[0].Live == nil {
		t.Errorf("the class is %+v; want team red as one row", trainees)
	}
	if frame, ok := l.srv.Class().Frame(row); !ok || !strings.Contains(frame, "Graham Holt") {
		t.Errorf("the team's row has no frame of the shared screen (%v):\n%s", ok, frame)
	}
	// What the instructor injects through the team's row reaches every member's screen.
	inject := session.Injection{Kind: session.InjectResult, PatientID: "patient_1", Text: "K+ 3.1"}
	if err := l.srv.Class().Trainees()[0].Live.Inject(context.Background(), inject); err != nil {
		t.Fatal(err)
	}
	for _, c := range screens {
		c.waitFor("K+ 3.1")
	}
	alice.typeLine("he's in cardiac arrest, crash call")
	alice.typeLine("start CPR")
	for _, c := range screens {
		c.waitFor("alice · leader")
		c.waitFor("Order for bob (circulation)")
	}
	bob.typeLine("CPR started")
	for _, c := range screens {
		c.waitFor("bob · circulation")
		c.waitFor("closed the loop")
	}

	bob.conn.Close() // bob's laptop lid closes mid-arrest
	carol.typeLine("IV access done")
	carol.waitFor("carol · drugs")
	bob = l.dial("bob", keys["bob"])
	bob.waitFor("Graham Holt")
	bob.waitFor("carol · drugs") // what was said while he was away
	bob.waitFor("CPR started")

	// Every member leaves: the last one out saves the shift; the first back resumes it.
	for _, c := range []*client{alice, bob, carol} {
		c.conn.Close()
	}
	l.waitTeamClosed("red")
	alice = l.dial("alice", keys["alice"])
	alice.waitFor("Graham Holt")
	alice.waitFor("IV access done")

	msgs := l.latestChat(red.Trainee(), "", "patient_1")
	var said []string
	for _, m := range msgs {
		if m.Role == "user" && m.TeamRole != "" {
			said = append(said, m.By+"/"+m.TeamRole+"/"+m.For+": "+m.Content)
		}
	}
	want := []string{"alice/leader/: he's in cardiac arrest, crash call", "alice/leader/bob: start CPR",
		"bob/circulation/: CPR started", "carol/drugs/: IV access done"}
	if strings.Join(said, "\n") != strings.Join(want, "\n") {
		t.Errorf("the team's shift holds:\n%s\nwant:\n%s", strings.Join(said, "\n"), strings.Join(want, "\n"))
	}
}

// On an encrypted database each member signs in with their own passphrase and the team's shift
// opens through it: the first member makes the team's key, a member joining while another is in
// gets it, and comes back to the shift alone later; a member who never joined with one who holds
// it is refused with a line that says what to do, audited.
func TestATeamOnAnEncryptedDatabase(t *testing.T) {
	l := newLab(t, func(s *persist.Store) {
		if err := s.Protect([]byte("the instructor's long passphrase 42")); err != nil {
			t.Fatal(err)
		}
	}, func(c *Config) { c.Teams = strings.TrimSuffix(c.Keys, ".keys") + ".teams" })
	keys := map[string]gossh.Signer{}
	for _, name := range []string{"alice", "bob", "carol"} {
		keys[name] = l.enrol(name, false)
	}
	all, err := ReadEnrolments(l.cfg.Keys)
	if err != nil {
		t.Fatal(err)
	}
	if err := FormTeam(l.cfg.Teams, red, all, session.TeamRoles); err != nil {
		t.Fatal(err)
	}
	firstTime := func(name string) *client {
		c := l.dial(name, keys[name])
		c.waitFor("choose a passphrase")
		c.typeLine(name + "'s own passphrase 7")
		c.waitFor("The same again")
		c.typeLine(name + "'s own passphrase 7")
		return c
	}
	alice := firstTime("alice")
	alice.waitFor("you are alice (leader)")
	bob := firstTime("bob")
	bob.waitFor("you are bob (circulation)")
	alice.typeLine("he's in cardiac arrest, crash call")
	bob.waitFor("alice · leader")
	for _, c := range []*client{alice, bob} {
		c.conn.Close()
	}
	l.waitTeamClosed("red")

	// bob, alone, opens it with his own passphrase and finds the arrest where it was.
	bob = l.dial("bob", keys["bob"])
	bob.waitFor("Passphrase of trainee bob")
	bob.typeLine("bob's own passphrase 7")
	bob.waitFor("Graham Holt")
	bob.waitFor("crash call")

	// carol never joined with a member in: alone, she is refused and told why.
	bob.conn.Close()
	l.waitTeamClosed("red")
	carol := firstTime("carol")
	if code := carol.waitExit(); code == 0 {
		t.Errorf("the refused member's session exited %d", code)
	}
	carol.waitFor("connect while one of them is in it")
	if !l.hasAudit(persist.AuditRefused, "trainee carol") {
		t.Errorf("the refusal is not audited: %+v", l.audited())
	}

	// The team's lines are sealed: the file holds none of them in the clear.
	data, err := os.ReadFile(l.db)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "crash call") {
		t.Error("the team's line is in the file in the clear")
	}
}

// waitTeamClosed waits until the team's shift is closed: every member gone, and it saved.
func (l *testLab) waitTeamClosed(team string) {
	l.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for l.srv.teamOpen(team) {
		if time.Now().After(deadline) {
			l.t.Fatalf("team %s's shift is still open with every member gone", team)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// teamOpen says whether the team's shift is open: a member is connected.
func (s *Server) teamOpen(name string) bool {
	s.teamsMu.Lock()
	defer s.teamsMu.Unlock()
	return s.teams[name] != nil
}

// ward team refuses what cannot be a team: a role that is none of the five, a member named
// twice, one not enrolled, too many members.
func TestFormTeamRefuses(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/ward.db.teams"
	key := newKey(t)
	enrolled := Enrolments{{Name: "alice", Key: key.PublicKey()}, {Name: "bob", Key: newKey(t).PublicKey()},
		{Name: "boss", Instructor: true, Key: newKey(t).PublicKey()}}
	for _, c := range []struct {
		team Team
		want string
	}{
		{Team{Name: "red", Members: []session.Member{{Name: "alice", Role: "pilot"}}}, "none of leader"},
		{Team{Name: "red", Members: []session.Member{{Name: "alice", Role: "leader"}, {Name: "alice", Role: "drugs"}}}, "named twice"},
		{Team{Name: "red", Members: []session.Member{{Name: "carol", Role: "leader"}}}, "not an enrolled trainee"},
		{Team{Name: "red", Members: []session.Member{{Name: "boss", Role: "leader"}}}, "not an enrolled trainee"},
		{Team{Name: "red"}, "1 to 8 members"},
		{Team{Name: "red", Members: make([]session.Member, 9)}, "1 to 8 members"},
		{Team{Name: "-red", Members: []session.Member{{Name: "alice", Role: "leader"}}}, "cannot be an enrolled name"},
	} {
		if err := FormTeam(path, c.team, enrolled, session.TeamRoles); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.team, err, c.want)
		}
	}
	// A team formed again is its last line; a trainee in two teams is in the later one.
	ok := func(team Team) {
		if err := FormTeam(path, team, enrolled, session.TeamRoles); err != nil {
			t.Fatal(err)
		}
	}
	ok(Team{Name: "red", Members: []session.Member{{Name: "alice", Role: "leader"}}})
	ok(Team{Name: "blue", Scenario: "arrest-vf-ward", Members: []session.Member{{Name: "bob", Role: "drugs"}, {Name: "alice", Role: "airway"}}})
	ok(Team{Name: "red", Members: []session.Member{{Name: "alice", Role: "recorder"}}})
	all, err := ReadTeams(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 {
		t.Fatalf("teams: %+v", all)
	}
	if team, _ := all.Of("alice"); team.Name != "red" || team.Members[0].Role != "recorder" {
		t.Errorf("alice is in %+v", team)
	}
	if team, _ := all.Of("bob"); team.Name != "blue" || team.Scenario != "arrest-vf-ward" {
		t.Errorf("bob is in %+v", team)
	}
}

// A trainee cannot be enrolled under a name a team's shift is stored under.
func TestEnrolRefusesATeamsName(t *testing.T) {
	path := t.TempDir() + "/ward.db.keys"
	if _, err := Enrol(path, Enrolment{Name: "team-red", Key: newKey(t).PublicKey()}); err == nil || !strings.Contains(err.Error(), "teams' shifts") {
		t.Errorf("enrolling team-red: %v", err)
	}
}

func FuzzParseTeam(f *testing.F) {
	f.Add("team red arrest-vf-ward alice:leader bob:circulation")
	f.Add("team red - alice:leader")
	f.Add("team a b c:d:e")
	f.Fuzz(func(t *testing.T, line string) {
		team, err := parseTeam(line)
		if err != nil {
			return
		}
		if back, err := parseTeam(strings.TrimSpace(team.line())); err != nil || back.line() != team.line() {
			t.Errorf("%q read back as %q (%v)", team.line(), back.line(), err)
		}
	})
}

// The instructor forms a team on the board over SSH, as `ward team` would: a name, the case,
// each member's role, the case's own roles among them. It is written to the teams like any
// other, and its members' next connections are its shift, each in their role.
func TestTheInstructorFormsATeamOnTheBoard(t *testing.T) {
	l := newLab(t, nil, func(c *Config) { c.Teams = strings.TrimSuffix(c.Keys, ".keys") + ".teams" })
	alice, bob := l.enrol("alice", false), l.enrol("bob", false)
	enrolled, err := ReadEnrolments(l.cfg.Keys)
	if err != nil {
		t.Fatal(err)
	}
	if err := FormTeam(l.cfg.Teams, Team{Name: "red", Members: []session.Member{{Name: "alice", Role: "drugs"}}}, enrolled, session.TeamRoles); err != nil {
		t.Fatal(err)
	}
	teacher := l.dial("jones", l.enrol("jones", true))
	teacher.waitFor("t form team")
	teacher.typeKeys("t")
	teacher.waitFor("The team's name")
	teacher.typeLine("blue")
	teacher.waitFor("which case")
	const down, right, left = "\x1b[B", "\x1b[C", "\x1b[D"
	at := slices.Index(boardTeams{l.srv}.Cases(), "paediatric-arrest")
	teacher.typeKeys(strings.Repeat(down, at+1) + "\r")
	teacher.waitFor("roles: leader, airway, circulation, drugs, recorder, timekeeper")
	teacher.waitFor("now in team red")           // alice, whom the new team takes from red
	teacher.typeKeys(right + down + left + "\r") // alice leads, bob keeps time
	teacher.waitFor("team blue: formed: alice (leader), bob (timekeeper)")

	all, err := ReadTeams(l.cfg.Teams)
	if err != nil {
		t.Fatal(err)
	}
	want := Team{Name: "blue", Scenario: "paediatric-arrest", Members: []session.Member{{Name: "alice", Role: "leader"}, {Name: "bob", Role: "timekeeper"}}}
	if team, _ := all.Of("bob"); team.line() != want.line() {
		t.Fatalf("the teams hold %q, want %q", team.line(), want.line())
	}
	screen := l.dial("bob", bob)
	screen.waitFor("you are bob (timekeeper), who keeps the time")
	screen.waitFor("Poppy Clarke")
	l.dial("alice", alice).waitFor("you are alice (leader);")
	teacher.waitFor("team blue: alice (leader), bob (timekeeper)")
}
