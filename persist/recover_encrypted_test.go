package persist

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
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
	r := openAsAlice(t, out)
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

// Recover reads a damaged file without keys, so it cannot call an encrypted value good: it says
// how many it copied unchecked, never "nothing was lost". With the instructor's passphrase,
// CheckSealed opens each one: two swapped messages are reported and left out, the rest is sealed
// and pinned again, and the recovered file opens for the trainee.
func TestRecoverReportsEveryValueThatDoesNotAuthenticate(t *testing.T) {
	s, path := encryptedStore(t)
	s.Close()
	tamper(t, path, func(tx *bolt.Tx) error {
		h := bucketAt(tx, "sessions", "s-alice", "histories", "patient_1")
		one, two := bytes.Clone(h.Get(seqKey(1))), bytes.Clone(h.Get(seqKey(2)))
		return firstErr(h.Put(seqKey(1), two), h.Put(seqKey(2), one))
	})
	rep, err := Recover(path, filepath.Join(t.TempDir(), "recovered.db"))
	if err != nil {
		t.Fatal(err)
	}
	if text := rep.String(); rep.Unchecked == 0 || strings.Contains(text, "nothing was lost") || !strings.Contains(text, "not checked") {
		t.Errorf("recover without a key says:\n%s", text)
	}
	if err := rep.CheckSealed([]byte("not the passphrase")); !errors.Is(err, ErrWrongPassphrase) {
		t.Errorf("a wrong passphrase: %v", err)
	}
	if err := rep.CheckSealed([]byte("the night sister holds the keys")); err != nil {
		t.Fatal(err)
	}
	text := rep.String()
	if rep.Unchecked != 0 || !strings.Contains(text, "lost in sessions/s-alice/histories/patient_1: 2 value(s)") || strings.Contains(text, "nothing was lost") {
		t.Errorf("after the check:\n%s", text)
	}
	r := openAsAlice(t, rep.Path)
	if d, err := r.Dump("s-alice"); err != nil || len(d.Histories["patient_1"]) != 0 || d.Registry.Patients["patient_1"].Facts["name"] != "Margaret Okafor" {
		t.Errorf("alice's recovered shift: %v, %+v", err, d.Content)
	}
	if err := r.SignIn(Person{Trainee: "bob"}, []byte("bob on the night shift")); err != nil {
		t.Fatal(err)
	}
	if d, err := r.Dump("s-bob"); err != nil || len(d.Histories["patient_1"]) != 2 {
		t.Errorf("bob's recovered shift lost what was not changed: %v", err)
	}
}

// A healthy encrypted file recovers whole, and once checked nothing is lost.
func TestRecoverOfAHealthyEncryptedFileChecksClean(t *testing.T) {
	s, path := encryptedStore(t)
	s.Close()
	rep, err := Recover(path, filepath.Join(t.TempDir(), "recovered.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.CheckSealed([]byte("the night sister holds the keys")); err != nil {
		t.Fatal(err)
	}
	if text := rep.String(); !strings.Contains(text, "nothing was lost") {
		t.Errorf("after the check:\n%s", text)
	}
}

// A trainee whose key no longer opens leaves every value of theirs unchecked: the check says how
// many, and does not call them safe.
func TestRecoverCountsWhatAKeyThatDoesNotOpenLeavesUnchecked(t *testing.T) {
	s, path := encryptedStore(t)
	s.Close()
	tamper(t, path, func(tx *bolt.Tx) error {
		b := bucketAt(tx, "trainees", "bob")
		k, _ := decodeKey[traineeKey](b.Get(keyTraineeKey), "bob's key")
		k.Instructor[len(k.Instructor)-1] ^= 1
		raw, err := json.Marshal(k)
		if err != nil {
			return err
		}
		return b.Put(keyTraineeKey, raw)
	})
	rep, err := Recover(path, filepath.Join(t.TempDir(), "recovered.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.CheckSealed([]byte("the night sister holds the keys")); err != nil {
		t.Fatal(err)
	}
	text := rep.String()
	if strings.Contains(text, "nothing was lost") || !strings.Contains(text, "lost in sessions/s-bob: ") || !strings.Contains(text, "cannot be checked") {
		t.Errorf("after the check:\n%s", text)
	}
}
