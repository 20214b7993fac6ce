package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ward-sim/ward/persist"
)

// `ward report --format xapi` reads a server's encrypted database while the server holds it as
// the writer, with the instructor's passphrase, and writes every trainee's statements to a file
// only the user can read.
func TestReportWritesXAPIWhileTheServerHoldsTheDatabase(t *testing.T) {
	db := filepath.Join(t.TempDir(), "class.db")
	passphrases(t, "alice on the night shift", "the night sister holds the keys")
	closed := playAsthma + "/diagnosis acute severe asthma\n/dispo hdu\n"
	if _, err := ward(t, closed, "run", "--db", db, "--encrypt", "--trainee", "alice", "--backend", "offline"); err != nil {
		t.Fatal(err)
	}
	t.Setenv(persist.EnvPassphrase, "bob on the night shift")
	if _, err := ward(t, playAsthma, "run", "--db", db, "--trainee", "bob", "--backend", "offline"); err != nil {
		t.Fatal(err)
	}

	server, err := persist.Open(db) // the server's hold on the file: bbolt's exclusive lock
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	out := filepath.Join(t.TempDir(), "class.xapi.json")
	if _, err := ward(t, "", "report", "--db", db, "--format", "xapi", "--out", out, "--xapi-base", "https://lrs.example.org/ward"); err != nil {
		t.Fatalf("report --format xapi while the server holds the database: %v", err)
	}
	info, err := os.Stat(out)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the statements file: %v, mode %v; want 0600", err, info.Mode().Perm())
	}
	data, _ := os.ReadFile(out)
	var statements []struct {
		Actor struct {
			Account struct{ HomePage, Name string }
		}
		Verb struct{ ID string }
	}
	if err := json.Unmarshal(data, &statements); err != nil {
		t.Fatalf("the file is not a JSON array of statements: %v\n%.300s", err, data)
	}
	completed := map[string]int{}
	for _, s := range statements {
		if s.Actor.Account.HomePage != "https://lrs.example.org/ward/" {
			t.Errorf("account home page %q, want the --xapi-base with its slash", s.Actor.Account.HomePage)
		}
		completed[s.Actor.Account.Name] += 0
		if strings.HasSuffix(s.Verb.ID, "/completed") {
			completed[s.Actor.Account.Name]++
		}
	}
	if len(completed) != 2 || completed["alice"] != 1 || completed["bob"] != 0 {
		t.Errorf("cases completed by trainee: %v; want alice's one and bob's none (his patient is still on the ward)", completed)
	}

	t.Setenv(persist.EnvInstructorPassphrase, "wrong")
	if _, err := ward(t, "", "report", "--db", db, "--format", "xapi"); !errors.Is(err, persist.ErrWrongPassphrase) {
		t.Errorf("an xAPI report with a wrong instructor's passphrase: %v", err)
	}
}

func TestReportRefusesABadXAPIBase(t *testing.T) {
	db := shiftDB(t)
	for _, args := range [][]string{
		{"--format", "xapi", "--xapi-base", "ftp://lrs.example.org/"},
		{"--format", "xapi", "--xapi-base", "lrs.example.org"},
		{"--format", "csv", "--xapi-base", "https://lrs.example.org/"},
	} {
		out, err := ward(t, "", append([]string{"report", "--db", db}, args...)...)
		var usage usageError
		if !errors.As(err, &usage) || out != "" {
			t.Errorf("%q: %v, printed %q; want a usage error and nothing printed", args, err, out)
		}
	}
}
