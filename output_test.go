package main

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ward-sim/ward/persist"
)

// --out never replaces the database, its audit record, an existing file or what a symbolic link
// points at: refused with exit status 2, the target byte for byte as it was. With --force an
// ordinary file is replaced, readable by the user alone; the database still is not.
func TestOutRefusesWhatItDidNotCreate(t *testing.T) {
	db := shiftDB(t)
	dir := t.TempDir()
	existing := filepath.Join(dir, "notes.md")
	if err := os.WriteFile(existing, []byte("my own notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.md")
	if err := os.Symlink(existing, link); err != nil {
		t.Fatal(err)
	}
	copyOfDB := filepath.Join(dir, "copy.db")
	if data, err := os.ReadFile(db); err != nil || os.WriteFile(copyOfDB, data, 0o600) != nil {
		t.Fatal(err)
	}
	audit := persist.AuditPath(db)
	for _, tc := range []struct {
		target string
		force  bool
		want   string
	}{
		{db, false, "ward is using it"}, {db, true, "ward is using it"},
		{audit, false, "ward is using it"}, {audit, true, "ward is using it"},
		{existing, false, "already exists: name a new file, or pass --force"},
		{link, false, "symbolic link"}, {link, true, "symbolic link"},
		{copyOfDB, true, "it is a database"},
	} {
		for _, cmd := range [][]string{{"export"}, {"aar"}, {"report"}} {
			before := fileBytes(t, tc.target)
			args := append(cmd, "--db", db, "--out", tc.target)
			if tc.force {
				args = append(args, "--force")
			}
			stderr, code := wardCLI(t, args...)
			if code != 2 || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, tc.target) {
				t.Errorf("%q: exit %d, want 2 and %q:\n%s", args, code, tc.want, stderr)
			}
			if !bytes.Equal(fileBytes(t, tc.target), before) {
				t.Errorf("%q changed %s", args, tc.target)
			}
		}
	}
	// recover names a new database: never one that exists, nor a symbolic link, even to nothing.
	dangling := filepath.Join(dir, "dangling.db")
	if err := os.Symlink(filepath.Join(dir, "nowhere.db"), dangling); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{db, existing, dangling} {
		before := fileBytes(t, target)
		if stderr, code := wardCLI(t, "recover", "--db", db, "--out", target); code != 2 || !strings.Contains(stderr, "already exists") {
			t.Errorf("recover --out %s: exit %d:\n%s", target, code, stderr)
		}
		if !bytes.Equal(fileBytes(t, target), before) {
			t.Errorf("recover changed %s", target)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "nowhere.db")); err == nil {
		t.Error("recover wrote through a dangling symlink")
	}
	if _, err := os.Lstat(link); err != nil {
		t.Errorf("the symlink is gone: %v", err)
	}
	if _, code := wardCLI(t, "export", "--db", db, "--out", existing, "--force"); code != 0 {
		t.Fatalf("--force onto an ordinary file: exit %d", code)
	}
	info, err := os.Stat(existing)
	if err != nil || info.Mode().Perm() != 0o600 || !strings.Contains(string(fileBytes(t, existing)), "any allergies?") {
		t.Fatalf("the forced export: %v, mode %v:\n%s", err, info.Mode().Perm(), fileBytes(t, existing))
	}
	fresh := filepath.Join(dir, "new.md")
	if _, code := wardCLI(t, "export", "--db", db, "--out", fresh); code != 0 {
		t.Fatalf("--out onto a new file: exit %d", code)
	}
	if info, err := os.Stat(fresh); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("a new export is not the user's alone: %v %v", err, info.Mode().Perm())
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(leftovers) > 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}

// diff --out never writes over a trace it reads.
func TestOutNeverReplacesAFileTheCommandReads(t *testing.T) {
	trace := recordTrace(t, "review patient_1\n")
	before := fileBytes(t, trace)
	if stderr, code := wardCLI(t, "diff", trace, trace, "--out", trace, "--force"); code != 2 || !strings.Contains(stderr, "ward is using it") {
		t.Fatalf("diff --out onto its own input: exit %d\n%s", code, stderr)
	}
	if !bytes.Equal(fileBytes(t, trace), before) {
		t.Fatal("diff --out changed the trace it read")
	}
}

func fileBytes(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return data
}

// --trace appends to a log of its own: never to the database or its audit record, nor through
// a symbolic link.
func TestTraceNeverWritesIntoTheDatabase(t *testing.T) {
	db := shiftDB(t)
	link := filepath.Join(t.TempDir(), "trace-link.jsonl")
	if err := os.Symlink(persist.AuditPath(db), link); err != nil {
		t.Fatal(err)
	}
	for _, trace := range []string{db, persist.AuditPath(db), link} {
		before, audit := fileBytes(t, db), fileBytes(t, persist.AuditPath(db))
		stderr, code := wardCLI(t, "run", "--db", db, "--backend", "offline", "--trace", trace)
		if code != 2 || !strings.Contains(stderr, "--trace: "+trace+" refused") {
			t.Errorf("--trace %s: exit %d:\n%s", trace, code, stderr)
		}
		if !bytes.Equal(fileBytes(t, db), before) || !bytes.Equal(fileBytes(t, persist.AuditPath(db)), audit) {
			t.Errorf("--trace %s changed the database or its audit record", trace)
		}
	}
}

// What ward keeps beside the database (the audit record, the enrolments, the server's host key)
// is never an output of any command that writes one, with --force or without, whether a server
// runs or not; the file is left byte for byte as it was.
func TestOutNeverNamesWhatWardKeepsBesideTheDatabase(t *testing.T) {
	db := shiftDB(t)
	keyFile := filepath.Join(t.TempDir(), "alice.pub")
	if err := os.WriteFile(keyFile, []byte("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEJ1Ym1pc3NpdmUgZmFrZSBrZXkgZm9yIGEgdGVzdCEh alice\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if stderr, code := wardCLI(t, "enrol", "alice", "--db", db, "--key", keyFile); code != 0 {
		t.Fatalf("ward enrol: exit %d\n%s", code, stderr)
	}
	hostKey := db + ".hostkey"
	if err := os.WriteFile(hostKey, []byte("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{db + ".keys", hostKey, persist.AuditPath(db), db + ".lock"} {
		for _, cmd := range [][]string{{"export"}, {"aar"}, {"report"}, {"export", "--force"}, {"aar", "--force"}, {"report", "--force"}} {
			before := fileBytes(t, target)
			args := append(cmd, "--db", db, "--out", target)
			stderr, code := wardCLI(t, args...)
			if code != 2 || !strings.Contains(stderr, "refused") {
				t.Errorf("%q: exit %d, want 2 and a refusal:\n%s", args, code, stderr)
			}
			if !bytes.Equal(fileBytes(t, target), before) {
				t.Errorf("%q changed %s", args, target)
			}
		}
		if _, err := os.Stat(target); err != nil && target != db+".lock" {
			t.Errorf("%s: %v", target, err)
		}
	}
	if stderr, code := wardCLI(t, "recover", "--db", db, "--out", db+".lock"); code != 2 || !strings.Contains(stderr, "refused") {
		t.Errorf("recover --out DB.lock: exit %d:\n%s", code, stderr)
	}
}

// TestTerminalWriterKeepsACharacterABufferCuts: a buffered writer hands the terminal's writer
// its bytes where its buffer fills, inside a character as often as not; the character is
// printed whole, not as two replacement characters, and controls are still taken out. A
// character the output never finishes is printed as the broken text it is. (An escape sequence
// is another matter: JSON escapes ESC, and text is cleaned before it is printed.)
func TestTerminalWriterKeepsACharacterABufferCuts(t *testing.T) {
	text := strings.Repeat("NEWS2 12 — SpO₂ 84 % 🩺 患者\n", 40)
	for size := 16; size <= 24; size++ { // every place a cut can fall in each character
		var out bytes.Buffer
		tw := &terminalWriter{w: &out}
		buf := bufio.NewWriterSize(tw, size)
		if _, err := buf.WriteString(text + "\u0085\u202e end"); err != nil {
			t.Fatal(err)
		}
		if err := errors.Join(buf.Flush(), tw.flush()); err != nil {
			t.Fatal(err)
		}
		if want := text + `\u0085 end`; out.String() != want {
			t.Fatalf("through a %d-byte buffer: %q, want %q", size, out.String(), want)
		}
	}
	var out bytes.Buffer
	tw := &terminalWriter{w: &out}
	if _, err := tw.Write([]byte("cut \xe2\x80")); err != nil || out.String() != "cut " {
		t.Fatalf("before the flush: %q, %v", out.String(), err)
	}
	if err := tw.flush(); err != nil || out.String() != "cut \uFFFD" {
		t.Fatalf("after the flush: %q, %v", out.String(), err)
	}
}
