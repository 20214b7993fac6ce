package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// damagedShift is a database whose latest shift holds a message that no longer decodes: its
// pages are sound, so only reading the shift finds the damage.
func damagedShift(t *testing.T) string {
	t.Helper()
	db := shiftDB(t)
	data := fileBytes(t, db)
	needle := []byte(`"any allergies?"`)
	if !bytes.Contains(data, needle) {
		t.Fatal("the fixture's message is not in the file")
	}
	data = bytes.ReplaceAll(data, needle, []byte("\"any allergies\x01\""))
	if err := os.WriteFile(db, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return db
}

// Every command reports damage the same way: once, with the real path in the message and in the
// `ward recover` hint. `ward run` and the TUI refuse a file dump calls damaged before writing to it
// (the TUI checks while its screen opens, and ends it with the report).
func TestDamageIsReportedOnceWithThePath(t *testing.T) {
	db := damagedShift(t)
	before := fileBytes(t, db)
	want := "the database " + db + " is damaged"
	hint := "`ward recover --db " + db + " --out NEW`"
	tui := []string{"--backend", "offline"} // here without a terminal: the damage is the error reported
	for _, args := range [][]string{{"dump"}, {"export"}, {"run", "--backend", "offline"}, {"run", "--backend", "offline", "--new"}, tui} {
		stderr, code := wardCLI(t, append(args, "--db", db)...)
		if code != 1 || strings.Count(stderr, "is damaged") != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, hint) {
			t.Errorf("%q: exit %d, want 1 and one report naming %s:\n%s", args, code, db, stderr)
		}
	}
	if !bytes.Equal(fileBytes(t, db), before) {
		t.Error("a command wrote to the damaged file")
	}
}
