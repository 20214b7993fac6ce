package outfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteMakesANewFileWholeOrNotAtAll(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.md")
	if err := WriteString(path, false, "first\n"); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != Mode {
		t.Fatalf("new file: %v, mode %v", err, info.Mode().Perm())
	}
	if err := WriteString(path, false, "second\n"); !errors.Is(err, ErrExists) {
		t.Fatalf("over an existing file without force: %v", err)
	}
	failed := errors.New("the writer failed")
	if err := Write(path, true, func(w io.Writer) error {
		if _, err := io.WriteString(w, "half"); err != nil {
			return err
		}
		return failed
	}); !errors.Is(err, failed) {
		t.Fatalf("a failing writer: %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "first\n" {
		t.Fatalf("a failed write changed the file: %q", data)
	}
	if err := WriteString(path, true, "second\n"); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "second\n" {
		t.Fatalf("forced: %q", data)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("temporary files left: %v", entries)
	}
}

// A held file is refused by its name, by another spelling and by a hard link, with or without
// force, until it is released; so are a symbolic link and a bbolt file.
func TestWriteRefusesWhatWardUses(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "ward.db")
	if err := os.WriteFile(db, []byte("data"), 0o600); err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(dir, "hard.db")
	if err := os.Link(db, linked); err != nil {
		t.Fatal(err)
	}
	release := Hold(db, db+".audit")
	for _, p := range []string{db, filepath.Join(dir, ".", "ward.db"), linked, db + ".audit"} {
		if err := WriteString(p, true, "x"); !errors.Is(err, ErrInUse) {
			t.Errorf("%s while held: %v", p, err)
		}
	}
	release()
	if err := WriteString(linked, true, "x"); err != nil {
		t.Errorf("after release: %v", err)
	}
	sym := filepath.Join(dir, "sym")
	if err := os.Symlink(filepath.Join(dir, "target"), sym); err != nil {
		t.Fatal(err)
	}
	if err := WriteString(sym, true, "x"); !errors.Is(err, ErrInUse) {
		t.Errorf("a dangling symlink: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "target")); !errors.Is(err, os.ErrNotExist) {
		t.Error("the write followed the symlink")
	}
	bolt := filepath.Join(dir, "other.db")
	head := make([]byte, 64)
	copy(head[16:], boltMagic)
	if err := os.WriteFile(bolt, head, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteString(bolt, true, "x"); !errors.Is(err, ErrInUse) {
		t.Errorf("a database: %v", err)
	}
}

// A log is appended to, the user's alone, and never through a symbolic link.
func TestOpenLogAppendsAndRefusesALink(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "trace.jsonl")
	for _, line := range []string{"one\n", "two\n"} {
		f, err := OpenLog(log)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(line); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if data, _ := os.ReadFile(log); string(data) != "one\ntwo\n" {
		t.Fatalf("log: %q", data)
	}
	if info, _ := os.Stat(log); info.Mode().Perm() != Mode {
		t.Fatalf("mode %v", info.Mode().Perm())
	}
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(log, link); err != nil {
		t.Fatal(err)
	}
	if f, err := OpenLog(link); err == nil {
		f.Close()
		t.Fatal("a log opened through a symbolic link")
	}
}

// What ward keeps beside a database (its audit record, the enrolments, the server's host key,
// a backup, a conversion under way) is never an output, with force or without, whether ward is
// using it now or not, existing or not; nor is a private key anywhere. A file merely named like
// a database's neighbour is written.
func TestWriteRefusesWhatWardKeepsBesideADatabase(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "class.db")
	head := make([]byte, 64)
	copy(head[16:], boltMagic)
	if err := os.WriteFile(db, head, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, sibling := range []string{".audit", ".keys", ".hostkey", ".encrypting", ".damaged.bak", ".exports"} {
		path := db + sibling
		for _, exists := range []bool{false, true} {
			if exists {
				if err := os.WriteFile(path, []byte("ward's\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			for _, force := range []bool{false, true} {
				if err := WriteString(path, force, "x"); !errors.Is(err, ErrInUse) {
					t.Errorf("%s (exists %v, force %v): %v", sibling, exists, force, err)
				}
				if err := Appendable(path); !errors.Is(err, ErrInUse) {
					t.Errorf("%s as a log (exists %v): %v", sibling, exists, err)
				}
			}
			if data, _ := os.ReadFile(path); exists && string(data) != "ward's\n" {
				t.Errorf("%s was written over: %q", sibling, data)
			}
		}
		os.Remove(path)
	}
	key := filepath.Join(dir, "id_ed25519")
	if err := os.WriteFile(key, []byte("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteString(key, true, "x"); !errors.Is(err, ErrInUse) {
		t.Errorf("a private key: %v", err)
	}
	for _, fine := range []string{filepath.Join(dir, "class.md"), filepath.Join(dir, "class.dbx.md"), filepath.Join(dir, "notes.db.md")} {
		if err := WriteString(fine, true, "x"); err != nil {
			t.Errorf("%s: %v", fine, err)
		}
	}
}
