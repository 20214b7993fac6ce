package persist

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"
)

// The curriculum outlives the store that set it, and clearing it leaves none.
func TestCurriculumIsKeptAndCleared(t *testing.T) {
	s, path := openTemp(t)
	if got, err := s.Curriculum(); err != nil || got != nil {
		t.Fatalf("a new database's curriculum: %v, %v; want none", got, err)
	}
	want := []string{"obstetrics", "sepsis-urosepsis"}
	if err := s.PutCurriculum(want); err != nil {
		t.Fatal(err)
	}
	s.Close()
	again, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if got, err := again.Curriculum(); err != nil || !slices.Equal(got, want) {
		t.Errorf("after reopening: %v, %v; want %v", got, err, want)
	}
	if err := again.PutCurriculum(nil); err != nil {
		t.Fatal(err)
	}
	if got, err := again.Curriculum(); err != nil || got != nil {
		t.Errorf("after clearing: %v, %v; want none", got, err)
	}
}

// In an encrypted database the instructor sets the curriculum and every trainee reads it; a
// trainee cannot change it. It survives a recovery.
func TestOnlyTheInstructorSetsAnEncryptedClassCurriculum(t *testing.T) {
	s, path := encryptedStore(t)
	if err := s.SignIn(Person{Trainee: "alice"}, []byte("alice on the night shift")); err != nil {
		t.Fatal(err)
	}
	if err := s.PutCurriculum([]string{"trauma"}); !errors.Is(err, ErrNoAccess) {
		t.Errorf("a trainee set the curriculum: %v", err)
	}
	if err := s.SignIn(Person{Instructor: true}, []byte("the night sister holds the keys")); err != nil {
		t.Fatal(err)
	}
	if err := s.PutCurriculum([]string{"obstetrics"}); err != nil {
		t.Fatal(err)
	}
	if err := s.SignIn(Person{Trainee: "bob"}, []byte("bob on the night shift")); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Curriculum(); err != nil || !slices.Equal(got, []string{"obstetrics"}) {
		t.Errorf("bob reads %v, %v", got, err)
	}
	s.Close()
	out := filepath.Join(t.TempDir(), "recovered.db")
	if _, err := Recover(path, out); err != nil {
		t.Fatal(err)
	}
	r, err := Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got, err := r.Curriculum(); err != nil || !slices.Equal(got, []string{"obstetrics"}) {
		t.Errorf("after recovery: %v, %v", got, err)
	}
}

// Encrypting a database keeps its curriculum.
func TestEncryptKeepsTheCurriculum(t *testing.T) {
	plain, path := openTemp(t)
	fillShift(t, plain, "s-alice", "alice")
	if err := plain.PutCurriculum([]string{"paediatrics"}); err != nil {
		t.Fatal(err)
	}
	plain.Close()
	if _, err := Encrypt(path, []byte("the night sister holds the keys"), "owner"); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, err := s.Curriculum(); err != nil || !slices.Equal(got, []string{"paediatrics"}) {
		t.Errorf("after encrypting: %v, %v", got, err)
	}
}
