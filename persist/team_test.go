package persist

import (
	"errors"
	"strings"
	"testing"

	"github.com/ward-sim/ward/memory"
)

// A team's shift in an encrypted file opens through each member's own passphrase: the first
// member to join makes the team's key, a member joining while one who holds it is in the shift
// gets it boxed for them, a member who never joined with such a one cannot open it, the
// instructor opens it with theirs, and a trainee outside the team finds nothing of it.
func TestATeamsShiftOpensThroughEachMember(t *testing.T) {
	s, _ := openTemp(t)
	const instructor = "the instructor's long passphrase 42"
	if err := s.Protect([]byte(instructor)); err != nil {
		t.Fatal(err)
	}
	enrol := func(name string) *Store {
		v, err := s.EnrolAs(name, []byte(name+"'s own passphrase 7"))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	alice, bob, carol := enrol("alice"), enrol("bob"), enrol("carol")

	team, err := alice.TeamAs("team-red")
	if err != nil {
		t.Fatal(err)
	}
	if err := team.CreateSession(SessionInfo{ID: "s-red", CreatedAt: t0, Trainee: "team-red"}); err != nil {
		t.Fatal(err)
	}
	appendMsgs(t, team, "s-red", "patient_1", memory.Message{Role: "user", Content: "start CPR", By: "alice", TeamRole: "leader", For: "bob", At: t0})
	if err := team.ShareTeam(bob); err != nil {
		t.Fatal(err)
	}
	team.Close()

	// bob, alone now, opens the team's shift with his own passphrase.
	bob, err = s.As(Person{Trainee: "bob"}, []byte("bob's own passphrase 7"))
	if err != nil {
		t.Fatal(err)
	}
	byBob, err := bob.TeamAs("team-red")
	if err != nil {
		t.Fatal(err)
	}
	if got := history(t, byBob, "s-red", "patient_1"); len(got) != 1 || got[0].Content != "start CPR" || got[0].For != "bob" {
		t.Errorf("bob reads %+v", got)
	}
	// carol never joined with one who holds the key.
	if _, err := carol.TeamAs("team-red"); !errors.Is(err, ErrNoAccess) {
		t.Errorf("carol opened the team's shift with no box of its key: %v", err)
	}
	if err := carol.View("s-red", func(*Tx) error { return nil }); err == nil {
		t.Error("carol's own view opens the team's shift")
	}
	boss, err := s.As(Person{Instructor: true}, []byte(instructor))
	if err != nil {
		t.Fatal(err)
	}
	if got := history(t, boss, "s-red", "patient_1"); len(got) != 1 || got[0].By != "alice" {
		t.Errorf("the instructor reads %+v", got)
	}
	// Once she joins while bob is in the shift, carol holds it too.
	if err := byBob.ShareTeam(carol); err != nil {
		t.Fatal(err)
	}
	byCarol, err := carol.TeamAs("team-red")
	if err != nil {
		t.Fatal(err)
	}
	if got := history(t, byCarol, "s-red", "patient_1"); len(got) != 1 {
		t.Errorf("carol reads %+v", got)
	}
}

// A plain file needs no key for a team: the view acts for the team, and neither joining nor
// sharing writes to the file (no commit, no sync, as a member connects).
func TestATeamInAPlainFile(t *testing.T) {
	s, path := openTemp(t)
	alice, err := s.As(Person{Trainee: "alice"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := fileHash(t, path)
	team, err := alice.TeamAs("team-red")
	if err != nil || team.Person().Trainee != "team-red" {
		t.Fatalf("%v %+v", err, team)
	}
	if err := team.ShareTeam(alice); err != nil {
		t.Error(err)
	}
	if fileHash(t, path) != before {
		t.Error("joining a team in a plain file wrote to it")
	}
}

// A team's shifts in a file ward encrypt converted are sealed for the instructor alone, as every
// trainee's: no member's key opens them, and the refusal says what to do.
func TestATeamConvertedByEncrypt(t *testing.T) {
	plain, path := openTemp(t)
	fillShift(t, plain, "s-alice", "alice")
	fillShift(t, plain, "s-red", "team-red")
	plain.Close()
	const instructor = "the night sister holds the keys"
	if _, err := Encrypt(path, []byte(instructor), "owner"); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	boss, err := s.As(Person{Instructor: true}, []byte(instructor))
	if err != nil {
		t.Fatal(err)
	}
	if err := boss.SetPassphrase("alice", []byte("alice's own passphrase 7")); err != nil {
		t.Fatal(err)
	}
	alice, err := s.As(Person{Trainee: "alice"}, []byte("alice's own passphrase 7"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := alice.TeamAs("team-red"); !errors.Is(err, ErrNoAccess) || !strings.Contains(err.Error(), "form the team again under another name") {
		t.Errorf("alice opening a converted team's shift: %v", err)
	}
}
