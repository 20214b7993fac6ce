package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ward scenarios new writes a starting file that ward scenarios check plays; a broken file
// fails with exit 1 and its reason; new without --from is a usage error (exit 2).
func TestScenariosNewAndCheck(t *testing.T) {
	dir := t.TempDir()
	out, err := ward(t, "", "scenarios", "new", "my-case", "--from", "hypoglycaemia", "--scenarios", dir)
	if err != nil || !strings.Contains(out, "ward scenarios check "+filepath.Join(dir, "my-case.yaml")) {
		t.Fatalf("new: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "my-case.review.md")); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join("session", "authoring", "testdata", "broken", "unreached.yaml")
	out, err = ward(t, "", "scenarios", "check", broken)
	if exitCode(err) != 1 || !strings.Contains(out, "unreached: state collapsed") || !strings.Contains(out, "— Treated well\n  00:30") {
		t.Errorf("check of a broken file: exit %d\n%s", exitCode(err), out)
	}
	good := filepath.Join("session", "authoring", "testdata", "good", "dehydration.yaml")
	if out, err := ward(t, "", "scenarios", "check", good); err != nil || !strings.Contains(out, "dehydration.yaml: ok") {
		t.Errorf("check of the good file: %v\n%s", err, out)
	}
	if _, err := ward(t, "", "scenarios", "new", "other"); exitCode(err) != 2 {
		t.Errorf("new without --from: exit %d, want 2", exitCode(err))
	}
}

// ward scenarios list shows every case with its setting; validate is check under its older name,
// so a file check rejects is never "ok" to validate.
func TestScenariosListAndValidateIsCheck(t *testing.T) {
	out, err := ward(t, "", "scenarios", "list")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 40 {
		t.Errorf("%d cases, want at least 40:\n%s", len(lines), out)
	}
	prehospital := 0
	for _, l := range lines {
		if strings.Contains(l, " prehospital ") {
			prehospital++
		} else if !strings.Contains(l, " hospital ") {
			t.Errorf("no setting in %q", l)
		}
	}
	if prehospital < 2 {
		t.Errorf("%d prehospital cases, want at least 2", prehospital)
	}
	five := filepath.Join("session", "authoring", "testdata", "five", "dehydration.yaml")
	checked, errCheck := ward(t, "", "scenarios", "check", five)
	validated, errValidate := ward(t, "", "scenarios", "validate", five)
	if exitCode(errCheck) != 1 || exitCode(errValidate) != 1 || checked != validated {
		t.Errorf("check (exit %d) and validate (exit %d) differ:\n%s\n---\n%s", exitCode(errCheck), exitCode(errValidate), checked, validated)
	}
}
