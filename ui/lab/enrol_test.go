package lab

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"
)

// Enrolling appends to a file 0600; a key enrolled again is no change; a key already another's,
// or a name in the other role, is refused and nothing is written.
func TestEnrolRefusesWhatContradictsTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ward.db.keys")
	alice, bob := newKey(t).PublicKey(), newKey(t).PublicKey()
	added, err := Enrol(path, Enrolment{Name: "alice", Key: alice})
	if err != nil || len(added) != 1 {
		t.Fatalf("enrol alice: %v, %d added", err, len(added))
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the enrolments: %v; want mode 0600", err)
	}
	if added, err := Enrol(path, Enrolment{Name: "alice", Key: alice}); err != nil || len(added) != 0 {
		t.Errorf("enrolling alice's key again: %v, %d added; want no change", err, len(added))
	}
	before, _ := os.ReadFile(path)
	for _, tc := range []struct {
		e    Enrolment
		want string
	}{
		{Enrolment{Name: "bob", Key: alice}, "enrolled already, as trainee alice"},
		{Enrolment{Name: "alice", Instructor: true, Key: bob}, "one name has one role"},
		{Enrolment{Name: "bob smith", Key: bob}, "cannot be an enrolled name"},
	} {
		if _, err := Enrol(path, Enrolment{Name: "carol", Key: newKey(t).PublicKey()}, tc.e); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("enrol %s: %v; want %q", tc.e.Name, err, tc.want)
		}
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Errorf("a refused enrolment changed the file:\n%s", after)
	}
	all, err := ReadEnrolments(path)
	if e, ok := all.Of(alice); err != nil || !ok || e.Name != "alice" || e.Instructor {
		t.Errorf("alice's key reads back as %+v, %v (%v)", e, ok, err)
	}
}

// A line still being appended (no newline yet) is not read as an enrolment.
func TestReadEnrolmentsSkipsAHalfWrittenLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys")
	line := "trainee alice " + strings.TrimSpace(string(gossh.MarshalAuthorizedKey(newKey(t).PublicKey())))
	if err := os.WriteFile(path, []byte(line+"\ntrainee bob ssh-ed25519 AAAA"), 0o600); err != nil {
		t.Fatal(err)
	}
	all, err := ReadEnrolments(path)
	if err != nil || len(all) != 1 || all[0].Name != "alice" {
		t.Errorf("read %+v, %v; want alice alone", all, err)
	}
}

// An authorized_keys file enrols each key under its comment; a key with no comment is an error
// naming its line.
func TestAuthorizedKeysNamesEachKeyByItsComment(t *testing.T) {
	path := filepath.Join(t.TempDir(), "authorized_keys")
	key := func(comment string) string {
		return strings.TrimSpace(string(gossh.MarshalAuthorizedKey(newKey(t).PublicKey()))) + comment
	}
	if err := os.WriteFile(path, []byte("# the class\n"+key(" alice")+"\n\n"+key(" bob")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	all, err := AuthorizedKeys(path)
	if err != nil || len(all) != 2 || all[0].Name != "alice" || all[1].Name != "bob" {
		t.Fatalf("read %+v, %v", all, err)
	}
	if err := os.WriteFile(path, []byte(key(" alice")+"\n"+key("")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := AuthorizedKeys(path); err == nil || !strings.Contains(err.Error(), ":2: the key has no comment") {
		t.Errorf("a key with no name: %v", err)
	}
}

// The enrolments' parser never panics, and what it accepts it writes back the same.
func FuzzParseEnrolment(f *testing.F) {
	f.Add("trainee alice ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJjuqXRYtLxQjtR19Vriobjk90N3uQKwWcdslusDSsFN")
	f.Add("instructor dr.jones ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJjuqXRYtLxQjtR19Vriobjk90N3uQKwWcdslusDSsFN x")
	f.Add("trainee  ssh-rsa")
	f.Fuzz(func(t *testing.T, line string) {
		e, err := parseEnrolment(line)
		if err != nil {
			return
		}
		again, err := parseEnrolment(e.role() + " " + e.Name + " " + strings.TrimSpace(string(gossh.MarshalAuthorizedKey(e.Key))))
		if err != nil || again.Name != e.Name || again.Instructor != e.Instructor || string(again.Key.Marshal()) != string(e.Key.Marshal()) {
			t.Errorf("%q reads as %+v, written back as %+v (%v)", line, e, again, err)
		}
	})
}

// An authorized_keys file never panics the reader, and every key it accepts has a name one could
// enrol.
func FuzzParseAuthorizedKeys(f *testing.F) {
	f.Add([]byte("# the class\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJjuqXRYtLxQjtR19Vriobjk90N3uQKwWcdslusDSsFN alice\n"))
	f.Add([]byte("no-pty ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJjuqXRYtLxQjtR19Vriobjk90N3uQKwWcdslusDSsFN bob smith\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		all, err := parseAuthorizedKeys(data)
		if err != nil {
			return
		}
		for _, e := range all {
			if CheckName(e.Name) != nil || e.Key == nil || e.Instructor {
				t.Errorf("accepted %+v", e)
			}
		}
	})
}

// The file may be edited by hand: blank lines and comments are skipped, a deleted line is a key
// revoked, and a last line left with no newline is read, and enrolling after it starts a line
// of its own.
func TestEnrolmentsEditedByHand(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ward.db.keys")
	alice, bob, carol := newKey(t).PublicKey(), newKey(t).PublicKey(), newKey(t).PublicKey()
	line := func(name string, k gossh.PublicKey) string {
		return "trainee  " + name + "\t" + strings.TrimSpace(string(gossh.MarshalAuthorizedKey(k)))
	}
	if err := os.WriteFile(path, []byte("# the class of May\n\n"+line("alice", alice)+"\n"+line("bob", bob)), 0o600); err != nil {
		t.Fatal(err)
	}
	all, err := ReadEnrolments(path)
	if err != nil || len(all) != 2 {
		t.Fatalf("read %+v, %v; want alice and bob", all, err)
	}
	if _, err := Enrol(path, Enrolment{Name: "carol", Key: carol}); err != nil {
		t.Fatal(err)
	}
	all, err = ReadEnrolments(path)
	if _, ok := all.Of(carol); err != nil || len(all) != 3 || !ok {
		t.Errorf("after enrolling carol: %+v, %v", all, err)
	}
}
