package persist

import (
	"path/filepath"
	"testing"
)

// An encrypted file recovers with its keys: the instructor and each trainee open their records
// in the new file with the passphrases they had.
func TestRecoverKeepsAnEncryptedFileOpen(t *testing.T) {
	s, path := encryptedStore(t)
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
	if err := r.SignIn(Person{Trainee: "alice"}, []byte("alice on the night shift")); err != nil {
		t.Fatal(err)
	}
	if d, err := r.Dump("s-alice"); err != nil || len(d.Histories["patient_1"]) != 2 {
		t.Fatalf("alice's shift after recovery: %v", err)
	}
	if p, err := r.Prefs("alice"); err != nil || p == nil {
		t.Errorf("alice's preferences after recovery: %s, %v", p, err)
	}
	if err := r.SignIn(Person{Instructor: true}, []byte("the night sister holds the keys")); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Dump("s-bob"); err != nil {
		t.Errorf("the instructor cannot open bob's recovered shift: %v", err)
	}
}
