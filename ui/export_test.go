package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// /export writes a new file, the user's alone; a file that exists is kept as it was unless the
// line ends in --force.
func TestExportNeverReplacesAFileUnasked(t *testing.T) {
	m := newTestModel(t, newFakeWard(), 120, 40)
	file := filepath.Join(t.TempDir(), "notes.md")
	if err := os.WriteFile(file, []byte("my own notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	typeText(m, "/export "+file)
	press(t, m, "enter")
	if data, _ := os.ReadFile(file); string(data) != "my own notes\n" || !strings.Contains(screen(m), "already exists") {
		t.Fatalf("/export onto an existing file: %q\n%s", data, screen(m))
	}
	typeText(m, "/export "+file+" --force")
	press(t, m, "enter")
	data, _ := os.ReadFile(file)
	info, err := os.Stat(file)
	if err != nil || !strings.Contains(string(data), "It came on after lunch") || info.Mode().Perm() != 0o600 {
		t.Fatalf("/export --force: %v, mode %v\n%s", err, info.Mode().Perm(), data)
	}
	named := filepath.Join(filepath.Dir(file), "chat--force")
	typeText(m, "/export "+named)
	press(t, m, "enter")
	if _, err := os.Stat(named); err != nil {
		t.Fatalf("a file whose name ends in --force: %v\n%s", err, screen(m))
	}
}
