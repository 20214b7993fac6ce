package persist

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// boundStore is encryptedStore with a second shift of alice's, written by the instructor.
func boundStore(t *testing.T) string {
	t.Helper()
	s, path := encryptedStore(t)
	if err := s.SignIn(Person{Instructor: true}, []byte("the night sister holds the keys")); err != nil {
		t.Fatal(err)
	}
	fillShift(t, s, "s-alice-2", "alice")
	s.Close()
	return path
}

// tamper changes the closed file at path as someone who can write it, but holds no key, would.
func tamper(t *testing.T, path string, fn func(tx *bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(fn); err != nil {
		t.Fatal(err)
	}
}

func bucketAt(tx *bolt.Tx, path ...string) *bolt.Bucket {
	b := tx.Bucket([]byte(path[0]))
	for _, name := range path[1:] {
		b = b.Bucket([]byte(name))
	}
	return b
}

// dumpAs signs in to the file at path and dumps a shift.
func dumpAs(t *testing.T, path string, p Person, pass, shift string) error {
	t.Helper()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.SignIn(p, []byte(pass)); err != nil {
		t.Fatal(err)
	}
	_, err = s.Dump(shift)
	return err
}

// Someone who can write the file but holds no key moves, swaps, copies or puts back sealed
// values, within one trainee's shift, across their shifts and across trainees: each is refused
// as a changed value is, and nothing else of the shift is shown.
func TestMovedSwappedCopiedOrReplayedValuesAreRefused(t *testing.T) {
	alice := []string{"sessions", "s-alice"}
	history := append(alice, "histories", "patient_1")
	cases := []struct {
		name, shift, want string
		change            func(tx *bolt.Tx) error
	}{
		{"two messages of a history swapped", "s-alice", "changed, moved or copied", func(tx *bolt.Tx) error {
			h := bucketAt(tx, history...)
			one, two := bytes.Clone(h.Get(seqKey(1))), bytes.Clone(h.Get(seqKey(2)))
			return firstErr(h.Put(seqKey(1), two), h.Put(seqKey(2), one))
		}},
		{"a message copied over another", "s-alice", "changed, moved or copied", func(tx *bolt.Tx) error {
			h := bucketAt(tx, history...)
			return h.Put(seqKey(2), bytes.Clone(h.Get(seqKey(1))))
		}},
		{"a message moved to the end of the session history", "s-alice", "changed, moved or copied", func(tx *bolt.Tx) error {
			h := bucketAt(tx, history...)
			sh, err := bucketAt(tx, alice...).CreateBucketIfNotExists(bucketSessionHistory)
			if err != nil {
				return err
			}
			return firstErr(sh.Put(seqKey(1), bytes.Clone(h.Get(seqKey(2)))), sh.SetSequence(1))
		}},
		{"a history's newest message removed", "s-alice", "some were removed", func(tx *bolt.Tx) error {
			h := bucketAt(tx, history...)
			return firstErr(h.Delete(seqKey(2)), h.SetSequence(1))
		}},
		{"a document moved to another patient", "s-alice", "changed, moved or copied", func(tx *bolt.Tx) error {
			sim := bucketAt(tx, append(alice, "sim")...)
			return firstErr(sim.Put([]byte("patient_2"), bytes.Clone(sim.Get([]byte("patient_1")))), sim.Delete([]byte("patient_1")))
		}},
		{"a document removed", "s-alice", "is missing", func(tx *bolt.Tx) error {
			return bucketAt(tx, append(alice, "memory")...).Delete([]byte("patient_1"))
		}},
		{"the registry copied from another shift of the same trainee", "s-alice", "changed, moved or copied", func(tx *bolt.Tx) error {
			other := bytes.Clone(bucketAt(tx, "sessions", "s-alice-2", string(bucketRegistry)).Get(keyRegistry))
			return bucketAt(tx, append(alice, string(bucketRegistry))...).Put(keyRegistry, other)
		}},
		{"a message copied from another shift of the same trainee", "s-alice", "changed, moved or copied", func(tx *bolt.Tx) error {
			other := bucketAt(tx, "sessions", "s-alice-2", "histories", "patient_1")
			return bucketAt(tx, history...).Put(seqKey(1), bytes.Clone(other.Get(seqKey(1))))
		}},
		{"an archived message copied back into the shift", "s-alice", "changed, moved or copied", func(tx *bolt.Tx) error {
			var archived []byte
			_ = bucketAt(tx, "archive", "s-alice").ForEachBucket(func(at []byte) error {
				archived = bytes.Clone(bucketAt(tx, "archive", "s-alice", string(at), "session_history").Get(seqKey(1)))
				return nil
			})
			sh, err := bucketAt(tx, alice...).CreateBucketIfNotExists(bucketSessionHistory)
			if err != nil {
				return err
			}
			return firstErr(sh.Put(seqKey(1), archived), sh.SetSequence(1))
		}},
		{"a message copied from another trainee's shift", "s-alice", "changed, moved or copied", func(tx *bolt.Tx) error {
			return bucketAt(tx, history...).Put(seqKey(1), bytes.Clone(bucketAt(tx, "sessions", "s-bob", "histories", "patient_1").Get(seqKey(1))))
		}},
		{"the pins removed", "s-alice", "not the one ward wrote last", func(tx *bolt.Tx) error {
			return bucketAt(tx, alice...).DeleteBucket(bucketPins)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := boundStore(t)
			tamper(t, path, tc.change)
			err := dumpAs(t, path, Person{Trainee: "alice"}, "alice on the night shift", tc.shift)
			if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("dump after the change: %v, want a damaged value (%s)", err, tc.want)
			}
		})
	}
}

// A value put back in its own place after ward wrote a newer one (a replay) is refused: the
// registry and a document as they were a turn ago.
func TestReplayedValuesAreRefused(t *testing.T) {
	for _, tc := range []struct{ name, bucket, key string }{
		{"the registry", string(bucketRegistry), string(keyRegistry)},
		{"a document", "sim", "patient_1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := boundStore(t)
			at := func(tx *bolt.Tx) *bolt.Bucket {
				b := bucketAt(tx, "sessions", "s-alice")
				if tc.bucket != "" {
					b = b.Bucket([]byte(tc.bucket))
				}
				return b
			}
			var old []byte
			tamper(t, path, func(tx *bolt.Tx) error { old = bytes.Clone(at(tx).Get([]byte(tc.key))); return nil })
			s, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.SignIn(Person{Trainee: "alice"}, []byte("alice on the night shift")); err != nil {
				t.Fatal(err)
			}
			mustUpdate(t, s, "s-alice", func(tx *Tx) error {
				return firstErr(tx.PutRegistry(Registry{ActivePatientID: "patient_1"}), tx.PutPatientDoc(KindSim, "patient_1", []byte(`{"vitals":{"spo2":94}}`)))
			})
			s.Close()
			if err := dumpAs(t, path, Person{Trainee: "alice"}, "alice on the night shift", "s-alice"); err != nil {
				t.Fatalf("the shift before the replay: %v", err)
			}
			tamper(t, path, func(tx *bolt.Tx) error { return at(tx).Put([]byte(tc.key), old) })
			err = dumpAs(t, path, Person{Trainee: "alice"}, "alice on the night shift", "s-alice")
			if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "an older one was put back") {
				t.Errorf("dump after the replay: %v, want the older value refused", err)
			}
		})
	}
}

// Archiving, restoring and moving a message seal each value again for its new place, so the
// store's own moves still read back.
func TestStoreMovesKeepValuesOpen(t *testing.T) {
	path := boundStore(t)
	s := openAsAlice(t, path)
	mustUpdate(t, s, "s-alice", func(tx *Tx) error { return tx.MoveLast("patient_1", "") })
	id, err := s.Archive("s-alice", t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RestoreArchive("s-alice", id); err != nil {
		t.Fatal(err)
	}
	d, err := s.Dump("s-alice")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Histories["patient_1"]) != 1 || d.SessionHistory[len(d.SessionHistory)-1].Content != "I had anaphylaxis to penicillin." {
		t.Errorf("after a move, an archive and a restore: %+v", d.Content)
	}
}

// The fixture, testdata/schema2-encrypted.db, was written by ward's own code before values were
// bound: by TestWriteSchema2Fixture at commit 21ef756 (encryptedStore: alice and bob, passphrases
// "alice pass" and "bob pass", the instructor's "instructor pass"), removed since, as it would now
// write the new kind.
// Opening it moves it to schema 3; the first writer to open a trainee's key copies the file
// aside and binds that trainee's values; their shift reads back as it was; and a value of the
// old kind put back afterwards is refused.
func TestMigrationBindsAFileWrittenBeforeBinding(t *testing.T) {
	fixture, err := os.ReadFile(filepath.Join("testdata", "schema2-encrypted.db"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ward.db")
	if err := os.WriteFile(path, fixture, 0o600); err != nil {
		t.Fatal(err)
	}
	if snap, err := OpenSnapshot(path); err != nil {
		t.Fatal(err)
	} else {
		if err := snap.SignIn(Person{Trainee: "alice"}, []byte("alice pass")); err != nil {
			t.Fatal(err)
		}
		if d, err := snap.Dump("s-alice"); err != nil || len(d.Histories["patient_1"]) != 2 {
			t.Errorf("a read-only copy of the old file: %v", err)
		}
		snap.Close()
	}
	var oldMessage []byte
	tamper(t, path, func(tx *bolt.Tx) error {
		oldMessage = bytes.Clone(bucketAt(tx, "sessions", "s-alice", "histories", "patient_1").Get(seqKey(2)))
		return nil
	})
	if !bytes.HasPrefix(oldMessage, unboundMagic) {
		t.Fatalf("the fixture's values are not of the old kind: %x", oldMessage[:4])
	}

	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SignIn(Person{Trainee: "alice"}, []byte("alice pass")); err != nil {
		t.Fatal(err)
	}
	backup := s.BindingBackup()
	if backup != path+".before-binding.bak" {
		t.Errorf("the backup is at %q", backup)
	}
	d, err := s.Dump("s-alice")
	if err != nil {
		t.Fatal(err)
	}
	if d.SchemaVersion != schemaVersion() || d.Histories["patient_1"][1].Content != "I had anaphylaxis to penicillin." ||
		d.Registry.Patients["patient_1"].Facts["name"] != "Margaret Okafor" || len(d.Archives) != 1 || string(d.Sim["patient_1"]) != `{"vitals":{"spo2":88}}` {
		t.Errorf("alice's shift after binding: %+v", d)
	}
	if p, err := s.Prefs("alice"); err != nil || !strings.Contains(string(p), "I-PASS") {
		t.Errorf("alice's preferences after binding: %s, %v", p, err)
	}
	if err := s.SignIn(Person{Trainee: "alice"}, []byte("alice pass")); err != nil || s.BindingBackup() != "" {
		t.Errorf("a second sign-in bound again: %v, backup %q", err, s.BindingBackup())
	}
	if err := s.SignIn(Person{Instructor: true}, []byte("instructor pass")); err != nil { // binds bob's
		t.Fatal(err)
	}
	if s.BindingBackup() == "" || s.BindingBackup() == backup {
		t.Errorf("binding bob's values made no new copy: %q", s.BindingBackup())
	}
	if _, err := s.Dump("s-bob"); err != nil {
		t.Errorf("bob's shift after binding: %v", err)
	}
	s.Close()

	if b, err := os.ReadFile(backup); err != nil || !bytes.Contains(b, oldMessage) {
		t.Errorf("the backup does not hold the file as it was: %v", err)
	}
	tamper(t, path, func(tx *bolt.Tx) error {
		h := bucketAt(tx, "sessions", "s-alice", "histories", "patient_1")
		if bytes.HasPrefix(h.Get(seqKey(2)), unboundMagic) {
			t.Error("a value of the old kind is left after binding")
		}
		return h.Put(seqKey(2), oldMessage)
	})
	if err := dumpAs(t, path, Person{Trainee: "alice"}, "alice pass", "s-alice"); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "old kind") {
		t.Errorf("a value of the old kind put back after binding: %v", err)
	}
}

// A file sealed the old way recovers and checks too: the check binds what it keeps.
func TestRecoverChecksAFileWrittenBeforeBinding(t *testing.T) {
	rep, err := Recover(filepath.Join("testdata", "schema2-encrypted.db"), filepath.Join(t.TempDir(), "recovered.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.CheckSealed([]byte("instructor pass")); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rep.String(), "nothing was lost") {
		t.Errorf("the fixture's recovery:\n%s", rep)
	}
	s, err := Open(rep.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.SignIn(Person{Trainee: "alice"}, []byte("alice pass")); err != nil || s.BindingBackup() != "" {
		t.Fatalf("sign-in after the check: %v (backup %q: the check should have bound everything)", err, s.BindingBackup())
	}
	if d, err := s.Dump("s-alice"); err != nil || len(d.Histories["patient_1"]) != 2 || len(d.Archives) != 1 ||
		d.Registry.Patients["patient_1"].Facts["name"] != "Margaret Okafor" {
		t.Errorf("alice's shift: %+v, %v", d, err)
	}
}

// One patient's document put back with that patient's pins, both as an earlier copy of the file
// had them, is refused too: the shift's own pins pin each patient's.
func TestAPatientsValuesPutBackWithTheirPinsAreRefused(t *testing.T) {
	path := boundStore(t)
	var oldDoc, oldPins []byte
	tamper(t, path, func(tx *bolt.Tx) error {
		oldDoc = bytes.Clone(bucketAt(tx, "sessions", "s-alice", "sim").Get([]byte("patient_1")))
		oldPins = bytes.Clone(bucketAt(tx, "sessions", "s-alice", "pins").Get([]byte("patient_1")))
		return nil
	})
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SignIn(Person{Trainee: "alice"}, []byte("alice on the night shift")); err != nil {
		t.Fatal(err)
	}
	mustUpdate(t, s, "s-alice", func(tx *Tx) error { return tx.PutPatientDoc(KindSim, "patient_1", []byte(`{"vitals":{"spo2":94}}`)) })
	s.Close()
	tamper(t, path, func(tx *bolt.Tx) error {
		return firstErr(bucketAt(tx, "sessions", "s-alice", "sim").Put([]byte("patient_1"), oldDoc),
			bucketAt(tx, "sessions", "s-alice", "pins").Put([]byte("patient_1"), oldPins))
	})
	err = dumpAs(t, path, Person{Trainee: "alice"}, "alice on the night shift", "s-alice")
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "an older one was put back") {
		t.Errorf("dump after the patient's values and pins were put back: %v", err)
	}
}

// Whatever bytes stand where pins were, decoding them is an error or pins that survive encoding
// and decoding again unchanged: never a panic. (Only ward's own, authenticated, pins are read.)
func FuzzDecodePins(f *testing.F) {
	f.Add(encodePins(&pins{Values: map[string][]byte{"registry": make([]byte, 24)}, Lengths: map[string]uint64{"histories/patient_1": 7}, Groups: map[string][]byte{"patient_1": {1, 2}}}))
	f.Add([]byte{})
	f.Add([]byte{0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := decodePins(data)
		if err != nil {
			return
		}
		again, err := decodePins(encodePins(p))
		if err != nil || !reflect.DeepEqual(again, p) {
			t.Fatalf("pins %x decode as %+v but do not survive a round trip: %+v, %v", data, p, again, err)
		}
	})
}

// The check a writer makes before it plays refuses a moved value and a removed document, as a
// dump would.
func TestVerifyLatestRefusesWhatBindingRefuses(t *testing.T) {
	for name, change := range map[string]func(tx *bolt.Tx) error{
		"two messages swapped": func(tx *bolt.Tx) error {
			h := bucketAt(tx, "sessions", "s-alice-2", "histories", "patient_1")
			one, two := bytes.Clone(h.Get(seqKey(1))), bytes.Clone(h.Get(seqKey(2)))
			return firstErr(h.Put(seqKey(1), two), h.Put(seqKey(2), one))
		},
		"a document removed": func(tx *bolt.Tx) error {
			return bucketAt(tx, "sessions", "s-alice-2", "memory").Delete([]byte("patient_1"))
		},
	} {
		t.Run(name, func(t *testing.T) {
			path := boundStore(t)
			tamper(t, path, change)
			s := openAsAlice(t, path)
			if err := s.VerifyLatest(); !errors.Is(err, ErrDamaged) {
				t.Errorf("VerifyLatest after %s: %v", name, err)
			}
		})
	}
}

// A screen bringing its page up to date (Tx.From) refuses a history whose newest messages were
// removed, as a whole read does: what it is given continues what ward wrote, or nothing.
func TestReadingFromAPlaceRefusesACutHistory(t *testing.T) {
	path := boundStore(t)
	tamper(t, path, func(tx *bolt.Tx) error {
		h := bucketAt(tx, "sessions", "s-alice", "histories", "patient_1")
		return firstErr(h.Delete(seqKey(2)), h.SetSequence(1))
	})
	s := openAsAlice(t, path)
	err := s.View("s-alice", func(tx *Tx) error { _, err := tx.From("patient_1", 1); return err })
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "some were removed") {
		t.Errorf("From on a cut history: %v, want it refused as damaged", err)
	}
}
