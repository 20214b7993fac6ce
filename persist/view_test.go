package persist

import (
	"errors"
	"testing"
)

// Views of one store act each for their own person: a trainee's view opens only their own
// shifts, in a plain file too; closing a view leaves the file open for the others.
func TestViewsActEachForTheirOwnPerson(t *testing.T) {
	s, _ := openTemp(t)
	alice, err := s.As(Person{Trainee: "alice"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	bob, err := s.As(Person{Trainee: "bob"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := alice.CreateSession(SessionInfo{ID: "s-alice", CreatedAt: t0, Trainee: "alice"}); err != nil {
		t.Fatal(err)
	}
	if err := alice.Update("s-alice", func(tx *Tx) error { return tx.Append("", msg("user", "alice's line", 1)) }); err != nil {
		t.Fatal(err)
	}
	if list, err := bob.Sessions(); err != nil || len(list) != 0 {
		t.Errorf("bob lists %+v (%v); want none", list, err)
	}
	if err := bob.View("s-alice", func(*Tx) error { return nil }); !errors.Is(err, ErrNoAccess) {
		t.Errorf("bob opened alice's shift: %v", err)
	}
	if err := bob.Update("s-alice", func(tx *Tx) error { return tx.Append("", msg("user", "bob's line", 2)) }); !errors.Is(err, ErrNoAccess) {
		t.Errorf("bob wrote to alice's shift: %v", err)
	}
	if err := bob.Close(); err != nil {
		t.Fatal(err)
	}
	if latest, ok, err := alice.LatestSession(); err != nil || !ok || latest.ID != "s-alice" {
		t.Errorf("after bob's view closed, alice's latest is %+v, %v (%v)", latest, ok, err)
	}
	if p := s.Person(); p != (Person{}) {
		t.Errorf("the views changed whom the store acts for: %v", p)
	}
}

// In an encrypted file a view opens with the trainee's passphrase; a wrong one is audited and
// makes no view; a new trainee's view enrols them; a closed view forgets their key.
func TestViewsOfAnEncryptedFile(t *testing.T) {
	s, path := openTemp(t)
	if err := s.Protect([]byte("the instructor's long passphrase 42")); err != nil {
		t.Fatal(err)
	}
	const pass = "alice's own passphrase 7"
	alice, err := s.EnrolAs("alice", []byte(pass))
	if err != nil {
		t.Fatal(err)
	}
	if err := alice.CreateSession(SessionInfo{ID: "s-alice", CreatedAt: t0, Trainee: "alice"}); err != nil {
		t.Fatal(err)
	}
	alice.Close()
	if err := alice.CreateSession(SessionInfo{ID: "s-again", CreatedAt: t0, Trainee: "alice"}); !errors.Is(err, ErrNoAccess) {
		t.Errorf("a closed view still holds alice's key: %v", err)
	}
	if _, err := s.As(Person{Trainee: "alice"}, []byte("not hers at all")); !errors.Is(err, ErrWrongPassphrase) {
		t.Fatalf("a wrong passphrase: %v", err)
	}
	entries, err := ReadAudit(AuditPath(path))
	if err != nil || len(entries) != 2 || entries[0].Action != AuditEnrol || entries[1].Action != AuditFailed {
		t.Errorf("the audit holds %+v (%v); want the enrolment, then the failed passphrase", entries, err)
	}
	again, err := s.As(Person{Trainee: "alice"}, []byte(pass))
	if err != nil {
		t.Fatal(err)
	}
	if err := again.View("s-alice", func(*Tx) error { return nil }); err != nil {
		t.Errorf("alice's own view cannot open her shift: %v", err)
	}
}
