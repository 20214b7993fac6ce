package persist

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ward-sim/ward/memory"
	bolt "go.etcd.io/bbolt"
)

// Words a shift holds that must never be readable in an encrypted file: a patient's name, a
// disclosure, a vital sign and a trainee's preference.
var secrets = []string{"Margaret Okafor", "anaphylaxis to penicillin", `"spo2":88`, "prefers I-PASS"}

// fillShift writes a shift for trainee with every kind of record: registry, session and patient
// histories, documents, an archive, and the trainee's preferences.
func fillShift(t *testing.T, s *Store, sid, trainee string) {
	t.Helper()
	if err := s.CreateSession(SessionInfo{ID: sid, CreatedAt: t0, Shift: "quiet-night", Trainee: trainee}); err != nil {
		t.Fatal(err)
	}
	mustUpdate(t, s, sid, func(tx *Tx) error { return tx.Append("", msg("user", "review patient_1", 0)) })
	if _, err := s.Archive(sid, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	entry := PatientEntry{PatientID: "patient_1", Facts: map[string]any{"name": "Margaret Okafor"}, CreatedAt: t0, UpdatedAt: t0}
	mustUpdate(t, s, sid, func(tx *Tx) error {
		return firstErr(
			tx.PutRegistry(Registry{ActivePatientID: "patient_1", Patients: map[string]PatientEntry{"patient_1": entry}}),
			tx.Append("patient_1", msg("user", "any allergies?", 2),
				memory.Message{Role: "assistant", Agent: "Patient", Content: "I had anaphylaxis to penicillin.", At: t0.Add(3 * time.Minute)}),
			tx.PutPatientDoc(KindSim, "patient_1", []byte(`{"vitals":{"spo2":88}}`)),
			tx.PutPatientDoc(KindMemory, "patient_1", []byte(`{"items":["anaphylaxis to penicillin"]}`)),
		)
	})
	if trainee == "" {
		return
	}
	if err := s.PutPrefs(trainee, []byte(`{"note":"prefers I-PASS"}`)); err != nil {
		t.Fatal(err)
	}
}

// encryptedStore is a new encrypted database with alice and bob enrolled, each with a shift;
// the store is signed in as nobody.
func encryptedStore(t *testing.T) (*Store, string) {
	t.Helper()
	s, path := openTemp(t)
	if err := s.Protect([]byte("the night sister holds the keys")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"alice", "bob"} {
		if err := s.Enrol(name, []byte(name+" on the night shift")); err != nil {
			t.Fatal(err)
		}
		fillShift(t, s, "s-"+name, name)
	}
	return s, path
}

func TestEncryptedFileHoldsNoPlaintext(t *testing.T) {
	s, path := encryptedStore(t)
	if err := s.SignIn(Person{Trainee: "alice"}, []byte("alice on the night shift")); err != nil {
		t.Fatal(err)
	}
	d, err := s.Dump("s-alice")
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Histories["patient_1"][1].Content; got != "I had anaphylaxis to penicillin." {
		t.Errorf("the disclosure reads back as %q", got)
	}
	if got := d.Registry.Patients["patient_1"].Facts["name"]; got != "Margaret Okafor" {
		t.Errorf("the patient's name reads back as %v", got)
	}
	s.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range secrets {
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("the file holds %q in plain text", secret)
		}
	}
	// What stays visible, as the README says: bucket names, IDs and trainee names.
	for _, visible := range []string{"s-alice", "patient_1", "histories", "alice"} {
		if !bytes.Contains(data, []byte(visible)) {
			t.Errorf("%q was expected to stay visible", visible)
		}
	}
}

func TestPlainFileKeepsPlainJSON(t *testing.T) {
	s, path := openTemp(t)
	fillShift(t, s, "s1", "alice")
	s.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte("anaphylaxis to penicillin")) || bytes.Contains(data, boundMagic) {
		t.Error("a plain database should store its values as they are")
	}
}

func TestWrongPassphraseChangesNothing(t *testing.T) {
	s, path := encryptedStore(t)
	before := fileHash(t, path)
	for _, p := range []Person{{Trainee: "alice"}, {Instructor: true}} {
		err := s.SignIn(p, []byte("not the passphrase"))
		if !errors.Is(err, ErrWrongPassphrase) {
			t.Errorf("%s with a wrong passphrase: err = %v, want ErrWrongPassphrase", p, err)
		}
	}
	if _, err := s.Dump("s-alice"); !errors.Is(err, ErrNoAccess) {
		t.Errorf("after a failed sign-in, a shift opened: err = %v", err)
	}
	s.Close()
	if fileHash(t, path) != before {
		t.Error("a wrong passphrase changed the file")
	}
}

func TestTraineeOpensOnlyTheirOwnShifts(t *testing.T) {
	s, _ := encryptedStore(t)
	if err := s.SignIn(Person{Trainee: "alice"}, []byte("alice on the night shift")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Dump("s-alice"); err != nil {
		t.Errorf("alice cannot open her own shift: %v", err)
	}
	if _, err := s.Dump("s-bob"); !errors.Is(err, ErrNoAccess) {
		t.Errorf("alice opened bob's shift: err = %v, want ErrNoAccess", err)
	}
	if _, err := s.Prefs("bob"); !errors.Is(err, ErrNoAccess) {
		t.Errorf("alice read bob's preferences: err = %v", err)
	}
	if err := s.CreateSession(SessionInfo{ID: "s-bob-2", CreatedAt: t0, Trainee: "bob"}); !errors.Is(err, ErrNoAccess) {
		t.Errorf("alice started a shift for bob: err = %v", err)
	}
	list, err := s.Sessions()
	if err != nil || len(list) != 1 || list[0].ID != "s-alice" {
		t.Errorf("alice's sessions = %v, %v; want hers only", list, err)
	}
	if err := s.SignIn(Person{Trainee: "alice"}, []byte("bob on the night shift")); !errors.Is(err, ErrWrongPassphrase) {
		t.Errorf("bob's passphrase signed alice in: err = %v", err)
	}
}

func TestInstructorOpensEveryShift(t *testing.T) {
	s, _ := encryptedStore(t)
	if err := s.SignIn(Person{Instructor: true}, []byte("the night sister holds the keys")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"alice", "bob"} {
		d, err := s.Dump("s-" + name)
		if err != nil {
			t.Fatalf("the instructor cannot open %s's shift: %v", name, err)
		}
		if len(d.Archives) != 1 || len(d.Histories["patient_1"]) != 2 {
			t.Errorf("%s's shift reads back incomplete: %+v", name, d)
		}
		if prefs, err := s.Prefs(name); err != nil || !strings.Contains(string(prefs), "I-PASS") {
			t.Errorf("%s's preferences = %s, %v", name, prefs, err)
		}
	}
	if list, _ := s.Sessions(); len(list) != 2 {
		t.Errorf("the instructor lists %d sessions, want 2", len(list))
	}
	if err := s.SignIn(Person{Instructor: true, Trainee: "bob"}, []byte("the night sister holds the keys")); err != nil {
		t.Fatal(err)
	}
	if info, ok, _ := s.LatestSession(); !ok || info.ID != "s-bob" {
		t.Errorf("the instructor for bob finds %v", info)
	}
}

func TestInstructorGivesAPassphrase(t *testing.T) {
	s, _ := encryptedStore(t)
	if err := s.SignIn(Person{Instructor: true}, []byte("the night sister holds the keys")); err != nil {
		t.Fatal(err)
	}
	if err := s.SetPassphrase("alice", []byte("alice on the day shift now")); err != nil {
		t.Fatal(err)
	}
	if err := s.SignIn(Person{Trainee: "alice"}, []byte("alice on the night shift")); !errors.Is(err, ErrWrongPassphrase) {
		t.Errorf("the old passphrase still works: %v", err)
	}
	if err := s.SignIn(Person{Trainee: "alice"}, []byte("alice on the day shift now")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Dump("s-alice"); err != nil {
		t.Errorf("the new passphrase does not open alice's shift: %v", err)
	}
	if err := s.SetPassphrase("bob", []byte("alice chose this one for bob")); !errors.Is(err, ErrNoAccess) {
		t.Errorf("alice set bob's passphrase: err = %v", err)
	}
}

// The instructor's new passphrase opens every trainee's shifts, the old one nothing; a trainee
// cannot change it.
func TestInstructorChangesTheirPassphrase(t *testing.T) {
	s, _ := encryptedStore(t)
	if err := s.SignIn(Person{Trainee: "alice"}, []byte("alice on the night shift")); err != nil {
		t.Fatal(err)
	}
	if err := s.SetInstructorPassphrase([]byte("alice's idea of a good phrase")); !errors.Is(err, ErrNoAccess) {
		t.Errorf("alice changed the instructor's passphrase: err = %v", err)
	}
	if err := s.SignIn(Person{Instructor: true}, []byte("the night sister holds the keys")); err != nil {
		t.Fatal(err)
	}
	if err := s.SetInstructorPassphrase([]byte("the day sister holds the keys now")); err != nil {
		t.Fatal(err)
	}
	if err := s.SignIn(Person{Instructor: true}, []byte("the night sister holds the keys")); !errors.Is(err, ErrWrongPassphrase) {
		t.Errorf("the old passphrase still works: %v", err)
	}
	if err := s.SignIn(Person{Instructor: true}, []byte("the day sister holds the keys now")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"alice", "bob"} {
		if _, err := s.Dump("s-" + name); err != nil {
			t.Errorf("the new passphrase does not open %s's shift: %v", name, err)
		}
	}
	if err := s.SignIn(Person{Trainee: "bob"}, []byte("bob on the night shift")); err != nil {
		t.Errorf("bob's own passphrase stopped working: %v", err)
	}
}

func TestSignInNamesWhatIsMissing(t *testing.T) {
	s, _ := encryptedStore(t)
	if err := s.SignIn(Person{Trainee: "carol"}, []byte("x")); !errors.Is(err, ErrNotEnrolled) {
		t.Errorf("unknown trainee: err = %v, want ErrNotEnrolled", err)
	}
	if err := s.Enrol("alice", []byte("again")); err == nil {
		t.Error("alice was enrolled twice")
	}
	if err := s.SignIn(Person{}, nil); err == nil {
		t.Error("an encrypted database opened for nobody")
	}
	for _, bad := range []string{"a/b", " alice", "al\x1bice", strings.Repeat("x", 65)} {
		if err := s.SignIn(Person{Trainee: bad}, []byte("x")); err == nil || errors.Is(err, ErrNotEnrolled) {
			t.Errorf("trainee name %q: err = %v, want a refusal of the name", bad, err)
		}
	}
}

func TestTamperedValueIsAnError(t *testing.T) {
	s, path := encryptedStore(t)
	s.Close()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		h := tx.Bucket(bucketSessions).Bucket([]byte("s-alice")).Bucket(bucketHistories).Bucket([]byte("patient_1"))
		v := bytes.Clone(h.Get(seqKey(2)))
		v[len(v)-20] ^= 1 // inside the ciphertext
		return h.Put(seqKey(2), v)
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.SignIn(Person{Trainee: "alice"}, []byte("alice on the night shift")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Dump("s-alice"); err == nil || !strings.Contains(err.Error(), "after ward wrote it") {
		t.Errorf("a changed value read back without an error: %v", err)
	}
}

func TestEncryptConvertsWithoutLoss(t *testing.T) {
	plain, path := openTemp(t)
	fillShift(t, plain, "s-alice", "alice")
	fillShift(t, plain, "s-old", "") // a shift from before ward had trainees
	if err := plain.PutEmbeddings("m", map[[32]byte][]float32{{1}: {0.5}}); err != nil {
		t.Fatal(err)
	}
	before := map[string]Dump{}
	for _, id := range []string{"s-alice", "s-old"} {
		d, err := plain.Dump(id)
		if err != nil {
			t.Fatal(err)
		}
		before[id] = d
	}
	plain.Close()

	trainees, err := Encrypt(path, []byte("the night sister holds the keys"), "owner")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(trainees, []string{"alice", "owner"}) {
		t.Errorf("trainees = %v, want alice and owner", trainees)
	}
	if _, err := os.Stat(path + ".encrypting"); !errors.Is(err, os.ErrNotExist) {
		t.Error("the conversion left its temporary file")
	}
	data, _ := os.ReadFile(path)
	for _, secret := range secrets {
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("the converted file holds %q in plain text", secret)
		}
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.SignIn(Person{Instructor: true}, []byte("the night sister holds the keys")); err != nil {
		t.Fatal(err)
	}
	for id, want := range before {
		got, err := s.Dump(id)
		if err != nil {
			t.Fatal(err)
		}
		if !sameJSON(t, got, want) {
			t.Errorf("%s changed in the conversion", id)
		}
	}
	var old SessionInfo
	mustView(t, s, "s-old", func(tx *Tx) (err error) { old, err = tx.Info(); return err })
	if old.Trainee != "owner" {
		t.Errorf("the shift with no trainee went to %q, want owner", old.Trainee)
	}
	if v, err := s.Embeddings("m", [][32]byte{{1}}); err != nil || len(v) != 1 {
		t.Errorf("embeddings after the conversion: %v, %v", v, err)
	}
	if err := s.SignIn(Person{Trainee: "alice"}, []byte("x")); !errors.Is(err, ErrNoPassphrase) {
		t.Errorf("a converted trainee signed in before the instructor gave a passphrase: %v", err)
	}
}

func TestEncryptRefusesAnEncryptedFile(t *testing.T) {
	s, path := encryptedStore(t)
	s.Close()
	before := fileHash(t, path)
	if _, err := Encrypt(path, []byte("another instructor, another phrase"), "owner"); err == nil {
		t.Fatal("an encrypted file was encrypted again")
	}
	if fileHash(t, path) != before {
		t.Error("the refused conversion changed the file")
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.SignIn(Person{Instructor: true}, []byte("another instructor, another phrase")); !errors.Is(err, ErrWrongPassphrase) {
		t.Errorf("the refused conversion replaced the instructor's key: %v", err)
	}
	if err := s.SignIn(Person{Instructor: true}, []byte("the night sister holds the keys")); err != nil {
		t.Error(err)
	}
}

func sameJSON(t *testing.T, a, b any) bool {
	t.Helper()
	x, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(x, y)
}

func TestAuditRecordAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ward.db")
	log := &AuditLog{Path: AuditPath(path), User: "sam"}
	for _, action := range []string{AuditOpen, AuditExport} {
		if err := log.Record(Person{Trainee: "alice"}, action, "s1", "dump"); err != nil {
			t.Fatal(err)
		}
	}
	var none *AuditLog
	if err := none.Record(Person{}, AuditOpen, "", ""); err != nil {
		t.Fatal(err)
	}
	got, err := ReadAudit(AuditPath(path))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Action != AuditOpen || got[1].Action != AuditExport || got[0].As != "trainee alice" || got[0].User != "sam" {
		t.Errorf("audit = %+v", got)
	}
}

func TestSnapshotOfAnEncryptedFileOpensWithAPassphrase(t *testing.T) {
	_, path := encryptedStore(t) // the writer holds the file
	snap, err := OpenSnapshot(path)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	if _, err := snap.Dump("s-alice"); !errors.Is(err, ErrNoAccess) {
		t.Errorf("a snapshot opened a shift with no passphrase: %v", err)
	}
	if err := snap.SignIn(Person{Trainee: "alice"}, []byte("alice on the night shift")); err != nil {
		t.Fatal(err)
	}
	if d, err := snap.Dump("s-alice"); err != nil || len(d.Histories["patient_1"]) != 2 {
		t.Errorf("alice's shift from a snapshot: %v", err)
	}
	if err := snap.Enrol("carol", []byte("carol on the night shift")); err == nil {
		t.Error("a read-only snapshot enrolled a trainee")
	}
}

// Whatever bytes a file holds where a sealed value should be, opening them is an error or the
// value that was sealed there: never a panic, and a changed value never opens.
func FuzzOpenSealed(f *testing.F) {
	c, err := newSealer("alice", bytes.Repeat([]byte{7}, dataKeySize), false)
	if err != nil {
		f.Fatal(err)
	}
	at := place{shift: "s1", path: []string{"sessions", "s1", "histories", "patient_1"}, key: seqKey(1)}
	nonce := make([]byte, c.bound.NonceSize()) // fixed, so the corpus holds one genuine value however often it runs
	genuine := c.bound.Seal(append(bytes.Clone(boundMagic), nonce...), nonce, []byte(`{"role":"user","content":"any allergies?"}`), c.aad(at))
	f.Add(genuine)
	f.Add([]byte(`{"plain":"json"}`))
	f.Add(append(bytes.Clone(boundMagic), make([]byte, 50)...))
	f.Add(append(bytes.Clone(unboundMagic), make([]byte, 50)...))
	f.Fuzz(func(t *testing.T, stored []byte) {
		var plain *sealer
		_, _ = plain.open(stored, at)
		if _, err := c.open(stored, at); err == nil && isSealed(stored) && !bytes.Equal(stored, genuine) {
			t.Fatal("a value that was not sealed with the key opened")
		}
		if _, err := c.open(stored, at.at(seqKey(2))); err == nil && isSealed(stored) {
			t.Fatal("a sealed value opened in another place")
		}
		if again, err := c.open(c.seal(stored, at), at); err != nil || !bytes.Equal(again, stored) {
			t.Fatalf("seal then open: %q, %v", again, err)
		}
	})
}
