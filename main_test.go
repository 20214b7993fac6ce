package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/agents/ollamatest"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session/records"
)

// ward runs a command line in-process and returns stdout and the error.
// TestMain: the tests here create dozens of encrypted databases in-process; argon2id's real cost
// is persist's to measure (BenchmarkSignIn), and the binary the SSH tests run keeps it.
//
// The longest tests that only run commands on files of their own (a database, a trace in
// t.TempDir) call t.Parallel, so under -race this package uses both of CI's cores. A test that
// sets the environment (t.Setenv forbids it anyway), sends a signal, or measures time may not.
func TestMain(m *testing.M) {
	persist.CheapKDFForTests()
	os.Exit(m.Run())
}

func ward(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(args, strings.NewReader(stdin), &out, &errOut)
	return out.String(), err
}

// shiftDB is a database holding one headless shift with patient_1 and a question.
func shiftDB(t *testing.T) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "ward.db")
	if _, err := ward(t, "review patient_1\nany allergies?\n", "run", "--db", db, "--backend", "offline", "--new"); err != nil {
		t.Fatal(err)
	}
	return db
}

func TestGlobalFlagsGoBeforeOrAfterTheCommand(t *testing.T) {
	db := shiftDB(t)
	after, err := ward(t, "", "dump", "--db", db)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--db", db, "dump"}, {"--db=" + db, "dump"}, {"-db", db, "dump"}} {
		before, err := ward(t, "", args...)
		if err != nil || before != after {
			t.Errorf("%q: err %v, output differs from dump --db: %v", args, err, before != after)
		}
	}
	if !strings.Contains(after, "any allergies?") {
		t.Fatalf("dump lacks the shift:\n%s", after)
	}
	// A boolean flag takes no value, so the next word is the command.
	if _, err := ward(t, "/patients\n", "--new", "run", "--db", db, "--backend", "offline"); err != nil {
		t.Fatalf("--new before run: %v", err)
	}
}

func TestEachCommandHasItsOwnHelp(t *testing.T) {
	tests := []struct {
		args          []string
		want, notWant []string
	}{
		{[]string{"--help"}, []string{"usage: ward [flags]", "dump ", "archive ", "--theme"}, nil},
		{[]string{"help"}, []string{"usage: ward [flags]"}, nil},
		{[]string{"run", "--help"}, []string{"usage: ward run [flags]", "--num-ctx SIZE"}, []string{"--theme", "--format"}},
		{[]string{"aar", "-h"}, []string{"usage: ward aar [flags]", "--patient ID", "--format FORMAT"}, []string{"--backend"}},
		{[]string{"--db", "x.db", "archive", "--help"}, []string{"usage: ward archive [flags] list | show N | restore N"}, nil},
		{[]string{"help", "stats"}, []string{"usage: ward stats [flags]", "--json"}, nil},
		{[]string{"stats", "-help"}, []string{"usage: ward stats [flags]", "--json"}, nil},
		{[]string{"export", "--help"}, []string{"--out FILE"}, []string{"--json"}},
	}
	for _, tt := range tests {
		out, err := ward(t, "", tt.args...)
		if err != nil {
			t.Errorf("%q: %v", tt.args, err)
		}
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("%q lacks %q:\n%s", tt.args, w, out)
			}
		}
		for _, w := range tt.notWant {
			if strings.Contains(out, w) {
				t.Errorf("%q shows %q, another command's flag:\n%s", tt.args, w, out)
			}
		}
	}
}

func TestUsageErrorsAreOneLineWithAHint(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"frob"}, `unknown command "frob" — see ward --help`},
		{[]string{"--db", "x.db", "frob"}, `unknown command "frob" — see ward --help`},
		{[]string{"help", "frob"}, `unknown command "frob" — see ward --help`},
		{[]string{"dump", "--frob"}, "unknown flag --frob — see ward dump --help"},
		{[]string{"--frob"}, "unknown flag --frob — see ward --help"},
		{[]string{"dump", "--theme", "light"}, "unknown flag --theme — see ward dump --help"},
		{[]string{"dump", "extra"}, `unexpected argument "extra" — see ward dump --help`},
		{[]string{"archive"}, "usage: ward archive list | show N | restore N — see ward archive --help"},
		{[]string{"stats", "--db"}, "flag needs an argument: --db — see ward stats --help"},
	}
	for _, tt := range tests {
		_, err := ward(t, "", tt.args...)
		var usage usageError
		if !errors.As(err, &usage) {
			t.Errorf("%q: err %v is not a usage error (exit status 2)", tt.args, err)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("%q: %q, want %q", tt.args, err, tt.want)
		}
	}
}

func TestReadOnlyCommandsNeverCreateADatabase(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing")
	db := filepath.Join(dir, "x.db")
	for _, args := range [][]string{
		{"dump"}, {"aar"}, {"export"}, {"stats"}, {"archive", "list"}, {"archive", "show", "1"}, {"archive", "restore", "1"},
		{"progress"}, {"report"}, {"encrypt"}, {"passwd"},
	} {
		_, err := ward(t, "", append(args, "--db", db)...)
		if !errors.Is(err, persist.ErrNoDatabase) || !strings.Contains(err.Error(), db) {
			t.Errorf("%q: err %v, want one naming %s", args, err, db)
		}
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a read-only command created %s", dir)
	}
}

// While another ward holds the file for writing, read-only commands read its latest commit, and
// a second writer is still refused.
func TestReadOnlyCommandsWorkWhileAWriterHoldsTheDatabase(t *testing.T) {
	db := shiftDB(t)
	writer, err := persist.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	for _, args := range [][]string{{"dump"}, {"export"}, {"stats"}, {"archive", "list"}, {"aar", "--patient", "patient_1"}} {
		if _, err := ward(t, "", append(args, "--db", db)...); err != nil {
			t.Errorf("%q while a writer holds the file: %v", args, err)
		}
	}
	if _, err := ward(t, "", "archive", "restore", "1", "--db", db); !errors.Is(err, persist.ErrLocked) {
		t.Errorf("a second writer: %v, want the in-use error", err)
	}
}

func TestStatsPrintsATableOrJSON(t *testing.T) {
	db := shiftDB(t)
	table, err := ward(t, "", "stats", "--db", db)
	if err != nil || !strings.Contains(table, "merges") || strings.Contains(table, "{") {
		t.Fatalf("stats: %v\n%s", err, table)
	}
	js, err := ward(t, "", "stats", "--json", "--db", db)
	if err != nil || !strings.HasPrefix(js, "{") || strings.Contains(js, "recent_ns") {
		t.Fatalf("stats --json: %v\n%s", err, js)
	}
	var report records.StatsReport
	if err := json.Unmarshal([]byte(js), &report); err != nil || report.Thresholds != records.SeedThresholds || len(report.Metrics) == 0 {
		t.Fatalf("stats --json: %v, thresholds %+v, %d metric rows", err, report.Thresholds, len(report.Metrics))
	}
	recent, err := ward(t, "", "stats", "--db", db, "--last", "2", "--alert-parse-errors", "0")
	if err != nil || !strings.Contains(recent, "rates over the last 2 turns") || !strings.Contains(recent, "> 0.0%") {
		t.Fatalf("stats --last 2 --alert-parse-errors 0: %v\n%s", err, recent)
	}
	for _, args := range [][]string{{"--last", "2", "--since", "5m"}, {"--since", "yesterday"}, {"--alert-count-diff", "120"}} {
		if out, err := ward(t, "", append([]string{"stats", "--db", db}, args...)...); err == nil {
			t.Errorf("stats %q was accepted:\n%s", args, out)
		}
	}
}

func TestExportWritesTheChat(t *testing.T) {
	db := shiftDB(t)
	out := filepath.Join(t.TempDir(), "chat.md")
	if _, err := ward(t, "", "export", "--db", db, "--patient", "patient_1", "--out", out); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(out)
	if !strings.Contains(string(md), "**You** · T+") || !strings.Contains(string(md), "any allergies?") {
		t.Fatalf("export:\n%s", md)
	}
	js, err := ward(t, "", "export", "--db", db, "--format", "json")
	if err != nil || !strings.Contains(js, `"speaker": "You"`) {
		t.Fatalf("export --format json: %v\n%s", err, js)
	}
	if _, err := ward(t, "", "export", "--db", db, "--format", "pdf"); err == nil {
		t.Fatal("--format pdf was accepted")
	}
}

// ward kb shows what ward knows: the cards, one card, and what a question retrieves, numbered
// for citation, from the user's own folder as well as the built-in cards.
func TestKBListsShowsAndSearches(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "local-sepsis.md"), []byte("# Local sepsis pathway\n\n## Antibiotics\nGive the first dose of antibiotics within one hour of red flag sepsis.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	list, err := ward(t, "", "kb", "list", "--knowledge", dir)
	if err != nil || !strings.Contains(list, "anaphylaxis") || !strings.Contains(list, "local-sepsis") {
		t.Fatalf("kb list: %v\n%s", err, list)
	}
	show, err := ward(t, "", "kb", "show", "anaphylaxis")
	if err != nil || !strings.Contains(show, "epinephrine IM 0.5 mg") {
		t.Fatalf("kb show: %v\n%s", err, show)
	}
	found, err := ward(t, "", "kb", "search", "--knowledge", dir, "antibiotics", "within", "one", "hour")
	if err != nil || !strings.Contains(found, "[1]") || !strings.Contains(found, "Local sepsis pathway") {
		t.Fatalf("kb search: %v\n%s", err, found)
	}
	if _, err := ward(t, "", "kb", "show", "no-such-card"); err == nil {
		t.Error("showing a missing card succeeded")
	}
}

// recordTrace runs lines headless with the offline backend and --trace, and returns the trace's
// path.
func recordTrace(t *testing.T, lines string) string {
	t.Helper()
	dir := t.TempDir()
	trace := filepath.Join(dir, "trace.jsonl")
	if _, err := ward(t, lines, "run", "--db", filepath.Join(dir, "ward.db"), "--backend", "offline", "--new", "--seed", "3", "--trace", trace); err != nil {
		t.Fatal(err)
	}
	return trace
}

// editTrace rewrites a copy of a trace, line by line.
func editTrace(t *testing.T, path string, edit func(line string) string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	for i := range lines {
		lines[i] = edit(lines[i])
	}
	out := filepath.Join(t.TempDir(), "edited.jsonl")
	if err := os.WriteFile(out, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	return out
}

// ward replay exits 0 when every request is sent as recorded, 1 at the first that is not (and
// says where) or when the file does not read as a trace, 2 when ward refuses the trace (and says
// why), as docs/developer.md says.
func TestReplayExitsByWhatItFinds(t *testing.T) {
	trace := recordTrace(t, "review patient_1\nany allergies?\n/wait 2m\n/vitals\n")
	out, err := ward(t, "", "replay", trace)
	if exitCode(err) != 0 || !strings.Contains(out, "all 3 calls sent byte for byte as recorded") {
		t.Fatalf("replay of an untouched trace: %v\n%s", err, out)
	}
	changed := editTrace(t, trace, func(line string) string {
		if strings.Contains(line, `"kind":"call","turn":2`) {
			return strings.Replace(line, "Speak in the first person", "Speak in the third person", 1)
		}
		return line
	})
	out, err = ward(t, "", "replay", changed)
	if exitCode(err) != 1 || !strings.HasPrefix(out, `diverged at call 2 of run 1: turn 2 "any allergies?", agent Patient, section messages`) ||
		!strings.Contains(out, "-You are the patient described in the scenario. Speak in the third person") {
		t.Fatalf("replay of a changed prompt: exit %d, %v\n%s", exitCode(err), err, out)
	}
	otherAgents := editTrace(t, trace, func(line string) string {
		return strings.Replace(line, `"agents_sha256":"`, `"agents_sha256":"0`, 1)
	})
	if _, err := ward(t, "", "replay", otherAgents); exitCode(err) != 2 || !strings.Contains(err.Error(), "used other agent definitions") {
		t.Fatalf("replay with other agents: exit %d, %v", exitCode(err), err)
	}
	if _, err := ward(t, "", "replay", "--scenarios", t.TempDir(), filepath.Join(t.TempDir(), "none.jsonl")); exitCode(err) != 1 {
		t.Fatalf("a missing trace: exit %d, %v", exitCode(err), err)
	}
	headerless := editTrace(t, trace, func(line string) string {
		if strings.Contains(line, `"kind":"header"`) {
			return ""
		}
		return line
	})
	if _, err := ward(t, "", "replay", headerless); exitCode(err) != 1 || !strings.Contains(err.Error(), "does not open with a header line") {
		t.Fatalf("a trace with no header: exit %d, %v", exitCode(err), err)
	}
}

// versionField is the ward version in a trace's header line.
var versionField = regexp.MustCompile(`"version":"[^"]*"`)

// A trace recorded by another build of ward (a clone's build stamps a pseudo-version, a build
// without version control "(devel)") replays with a note naming both; another trace format is
// still refused.
func TestReplayNotesAnotherVersionAndRefusesAnotherFormat(t *testing.T) {
	const pseudo = "v0.0.0-20261124190350-2865faa0ef66"
	otherVersion := editTrace(t, recordTrace(t, "review patient_1\nany allergies?\n"), func(line string) string {
		return versionField.ReplaceAllString(line, `"version":"`+pseudo+`"`)
	})
	stderr, code := wardCLI(t, "replay", otherVersion)
	if code != 0 || !strings.Contains(stderr, "ward: note: trace recorded by ward "+pseudo+", replaying with ward ") {
		t.Fatalf("another version: exit %d, want 0 and a note:\n%s", code, stderr)
	}
	format := fmt.Sprintf(`"format":%d,`, llm.TraceFormat)
	otherFormat := editTrace(t, otherVersion, func(line string) string {
		return strings.Replace(line, format, fmt.Sprintf(`"format":%d,`, llm.TraceFormat+1), 1)
	})
	stderr, code = wardCLI(t, "replay", otherFormat)
	if code != 2 || !strings.Contains(stderr, fmt.Sprintf("run 1 is in trace format %d", llm.TraceFormat+1)) {
		t.Fatalf("another format: exit %d, want 2 and why:\n%s", code, stderr)
	}
}

// A trace of a resumed shift replays when it also holds the run that started the shift, and
// cannot be replayed from the resumed run alone.
func TestReplayOfAResumedShift(t *testing.T) {
	t.Parallel() // commands on files of its own: see TestMain
	dir := t.TempDir()
	db, trace, second := filepath.Join(dir, "ward.db"), filepath.Join(dir, "both.jsonl"), filepath.Join(dir, "second.jsonl")
	for _, args := range [][]string{{"--new", "--trace", trace}, {"--trace", trace}, {"--trace", second}} {
		if _, err := ward(t, "review patient_1\nhow are you?\n", append([]string{"run", "--db", db, "--backend", "offline"}, args...)...); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := ward(t, "", "replay", trace); err != nil || !strings.Contains(out, "replayed 2 run(s)") {
		t.Fatalf("two runs of one shift: %v\n%s", err, out)
	}
	if _, err := ward(t, "", "replay", second); exitCode(err) != 2 || !strings.Contains(err.Error(), "which the trace does not start") {
		t.Fatalf("a resumed run alone: exit %d, %v", exitCode(err), err)
	}
}

// ward diff on two recordings that differ by one recall rule (agents/replay/testdata) prints the
// report beside them, and --format md its review.
func TestDiffOfTwoTraces(t *testing.T) {
	t.Chdir(filepath.Join("agents", "replay", "testdata"))
	for format, golden := range map[string]string{"text": "recall.diff.txt", "md": "recall.diff.md"} {
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		out, err := ward(t, "", "diff", "recall-a.jsonl", "recall-b.jsonl", "--format", format)
		if err != nil || out != string(want) {
			t.Fatalf("--format %s: %v\n%s", format, err, out)
		}
	}
	if _, err := ward(t, "", "diff", "recall-a.jsonl"); exitCode(err) != 2 {
		t.Fatalf("one trace: exit %d, %v", exitCode(err), err)
	}
}

// An eval below its bar exits 1 after printing every case; --min 0 reports the same run without
// failing, and says so; --format md --out writes the review.
func TestEvalGates(t *testing.T) {
	invents := ollamatest.Answer(`{"reply":"My heart rate is 190, I checked.","entities_to_update":{},"derived_entities_to_update":{}}`)
	f := ollamatest.NewFake(t, invents)
	t.Setenv("OLLAMA_HOST", f.URL())
	model := []string{"--backend", "ollama", "--model", ollamatest.TestModel}
	out, err := ward(t, "", append([]string{"eval", "debrief"}, model...)...)
	if exitCode(err) != 1 || !strings.Contains(err.Error(), "below the bar of 90% (--min 0.90)") ||
		!strings.Contains(out, "FAIL asthma-exacerbation/sedation in acute asthma: does not name the critical error") {
		t.Fatalf("exit %d, %v\n%s", exitCode(err), err, out)
	}
	out, err = ward(t, "", append([]string{"eval", "debrief", "--min", "0"}, model...)...)
	if err != nil || !strings.Contains(out, "report only (--min 0): this run cannot fail") {
		t.Fatalf("--min 0: %v\n%s", err, out)
	}
	out, err = ward(t, "", "eval", "knowledge")
	if err != nil || !strings.Contains(out, "knowledge eval on full-text search: ") || !strings.Contains(out, "PASS: at or above the bar of 90%") {
		t.Fatalf("eval knowledge: %v\n%s", err, out)
	}
	if _, err = ward(t, "", "eval", "knowledge", "--min", "1.01"); exitCode(err) != 1 {
		t.Fatalf("eval knowledge above any recall: exit %d, want 1", exitCode(err))
	}
	md := filepath.Join(t.TempDir(), "patient.md")
	if _, err := ward(t, "", "eval", "patient", "--backend", "offline", "--format", "md", "--out", md); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(md); !strings.HasPrefix(string(data), "# ward eval patient\n\noffline: ") || !strings.Contains(string(data), "| case | category | result | why | got |") {
		t.Fatalf("markdown report:\n%s", data)
	}
}

// Every eval runs against the tiny random-weight model of the live tests, through the command
// line, as a report that cannot fail (--min 0): random weights say nothing about ward, so the
// run shows that the evals work against a real server, not how well the model does. The
// reports are written to WARD_EVAL_REPORT. Each suite is bounded by --timeout, so the six together
// cannot outlast the -timeout of BENCHMARKS' command on a loaded machine: cases a suite has not
// reached by then fail in its report, which cannot fail the build.
func TestLiveEvalReports(t *testing.T) {
	const liveEvalBound = 75 * time.Second
	srv := ollamatest.StartForTest(t, 1)
	t.Setenv("OLLAMA_HOST", srv.URL.String())
	var reports strings.Builder
	if !ollamatest.Full() { // two minutes even with a short bound; the analyzer and the agents are tested live in agents/ollamatest
		t.Skip("set " + ollamatest.LiveEnv + "=1 and " + ollamatest.FullEnv + "=1 to run it")
	}
	for _, suite := range []string{"delta", "analyzer", "patient", "debrief", "arrest", "knowledge"} {
		// knowledge ranks the cards with the tiny model's embeddings beside full-text search.
		var out, notes strings.Builder
		err := run([]string{"eval", suite, "--backend", "ollama", "--model", ollamatest.ModelName, "--min", "0", "--num-predict", "48", "--format", "md",
			"--timeout", liveEvalBound.String(), "--embed-model", ollamatest.ModelName}, strings.NewReader(""), &out, &notes)
		if err != nil {
			t.Fatalf("%s: %v", suite, err)
		}
		if !strings.Contains(out.String(), "report only (--min 0): this run cannot fail") || !strings.Contains(out.String(), "| case |") {
			t.Fatalf("%s report:\n%s", suite, out.String())
		}
		reports.WriteString(out.String() + notes.String() + "\n") // a note says when --timeout cut the suite short
	}
	t.Log("\n" + reports.String())
	if path := os.Getenv("WARD_EVAL_REPORT"); path != "" {
		if err := os.WriteFile(path, []byte(reports.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Whatever a line, a scenario or a model carries, what ward prints holds nothing a terminal
// obeys: escape sequences are gone from text, and C1 controls are JSON escapes, never raw bytes.
func TestOutputCarriesNothingATerminalObeys(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ward.db")
	hostile := "review patient_1\nhello \u009b2J there \x1b]52;c;cm0=\x07 friend\n"
	out, err := ward(t, hostile, "run", "--db", db, "--backend", "offline")
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(out, "\u009b\x1b\x07") || !strings.Contains(out, `\u009b`) {
		t.Fatalf("ward run printed raw controls, or lost the C1 escape:\n%q", out)
	}
	dump, err := ward(t, "", "dump", "--db", db)
	if err != nil || strings.ContainsAny(dump, "\u009b\x1b\x07") || !strings.Contains(dump, `\u009b`) {
		t.Fatalf("ward dump: %v\n%q", err, dump)
	}
	md, err := ward(t, "", "export", "--db", db, "--patient", "patient_1")
	if err != nil || strings.ContainsAny(md, "\u009b\x1b\x07") || !strings.Contains(md, "friend") {
		t.Fatalf("ward export: %v\n%q", err, md)
	}
}

// passphrases for the tests of an encrypted database, as a script gives them.
func passphrases(t *testing.T, trainee, instructor string) {
	t.Setenv(persist.EnvPassphrase, trainee)
	t.Setenv(persist.EnvInstructorPassphrase, instructor)
}

const (
	// disclosure is what the asthma patient says of her history when asked, and her name.
	disclosure  = "My chest's been bad since I was eight"
	patientName = "Maya Okafor"
	playAsthma  = "/admit patient_1 asthma-exacerbation\nany past medical history?\n/wait 1m\n/vitals\n"
)

func TestEncryptedDatabaseHoldsNoPlaintextAndSeparatesTrainees(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ward.db")
	passphrases(t, "alice on the night shift", "the night sister holds the keys")
	if _, err := ward(t, playAsthma, "run", "--db", db, "--encrypt", "--trainee", "alice", "--backend", "offline"); err != nil {
		t.Fatal(err)
	}
	t.Setenv(persist.EnvPassphrase, "bob on the night shift")
	if _, err := ward(t, "/admit patient_7 anaphylaxis\n", "run", "--db", db, "--trainee", "bob", "--backend", "offline"); err != nil {
		t.Fatal(err)
	}

	data, _ := os.ReadFile(db)
	for _, secret := range []string{disclosure, patientName, "asthma-exacerbation", `"spo2"`} {
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("the encrypted file holds %q in plain text", secret)
		}
	}
	t.Setenv(persist.EnvPassphrase, "alice on the night shift")
	dump, err := ward(t, "", "dump", "--db", db, "--trainee", "alice")
	if err != nil || !strings.Contains(dump, disclosure) || !strings.Contains(dump, patientName) {
		t.Fatalf("alice's dump lacks her patient's disclosure: %v\n%.300s", err, dump)
	}

	// A trainee cannot open another's shift: alice's passphrase is not bob's, and trying
	// changes nothing.
	before := fileHash(t, db)
	if _, err := ward(t, "", "dump", "--db", db, "--trainee", "bob"); !errors.Is(err, persist.ErrWrongPassphrase) {
		t.Errorf("alice's passphrase opened bob's shift: %v", err)
	}
	if fileHash(t, db) != before {
		t.Error("a wrong passphrase changed the database")
	}
	// The instructor opens every trainee's shifts, and reports on all of them.
	bobs, err := ward(t, "", "dump", "--db", db, "--instructor", "--trainee", "bob")
	if err != nil || !strings.Contains(bobs, `"patient_7"`) || strings.Contains(bobs, disclosure) {
		t.Fatalf("the instructor's view of bob's shift: %v\n%.300s", err, bobs)
	}
	before = fileHash(t, db)
	if _, err := ward(t, "a line that must not be stored\n", "run", "--db", db, "--trainee", "bob", "--backend", "offline"); !errors.Is(err, persist.ErrWrongPassphrase) {
		t.Errorf("alice's passphrase ran bob's shift: %v", err)
	}
	if fileHash(t, db) != before {
		t.Error("a shift run with a wrong passphrase changed the database")
	}
	csv, err := ward(t, "", "report", "--db", db, "--format", "csv")
	if err != nil || !strings.Contains(csv, "\nalice,") || !strings.Contains(csv, "\nbob,") {
		t.Fatalf("report --format csv: %v\n%s", err, csv)
	}
	t.Setenv(persist.EnvInstructorPassphrase, "wrong")
	if _, err := ward(t, "", "report", "--db", db); !errors.Is(err, persist.ErrWrongPassphrase) {
		t.Errorf("a report with a wrong instructor's passphrase: %v", err)
	}
}

func fileHash(t *testing.T, path string) [32]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(data)
}

// An unencrypted database converts without loss: `ward dump` reads the same before and after,
// for the instructor at once, and for the trainee once the instructor gave them a passphrase.
func TestEncryptConvertsWithoutLoss(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ward.db")
	if _, err := ward(t, playAsthma+"/clear\n/admit patient_2 sepsis-urosepsis\n", "run", "--db", db, "--trainee", "alice", "--backend", "offline"); err != nil {
		t.Fatal(err)
	}
	before, err := ward(t, "", "dump", "--db", db, "--trainee", "alice", "--debug") // a developer's view: the engine's secrets too
	if err != nil || !strings.Contains(before, disclosure) {
		t.Fatalf("dump before: %v", err)
	}
	beforeMine, err := ward(t, "", "dump", "--db", db, "--trainee", "alice") // alice's view: the secrets masked
	if err != nil || beforeMine == before || !strings.Contains(beforeMine, disclosure) {
		t.Fatalf("alice's dump before: %v", err)
	}
	passphrases(t, "", "the night sister holds the keys")
	out, err := ward(t, "", "encrypt", "--db", db)
	if err != nil || !strings.Contains(out, "ward passwd --instructor --trainee alice") {
		t.Fatalf("encrypt: %v\n%s", err, out)
	}
	if data, _ := os.ReadFile(db); bytes.Contains(data, []byte(disclosure)) {
		t.Error("the converted file holds the disclosure in plain text")
	}
	after, err := ward(t, "", "dump", "--db", db, "--instructor", "--trainee", "alice")
	if err != nil || after != before {
		t.Fatalf("dump after the conversion differs (%v):\nbefore %.200s\nafter  %.200s", err, before, after)
	}
	t.Setenv(persist.EnvNewPassphrase, "alice on the night shift")
	if _, err := ward(t, "", "passwd", "--db", db, "--instructor", "--trainee", "alice"); err != nil {
		t.Fatal(err)
	}
	t.Setenv(persist.EnvPassphrase, "alice on the night shift")
	if mine, err := ward(t, "", "dump", "--db", db, "--trainee", "alice"); err != nil || mine != beforeMine {
		t.Fatalf("alice's own dump after the conversion differs: %v", err)
	}
}

// `ward passwd --instructor` alone changes the instructor's passphrase: the old one opens
// nothing after it, the new one every trainee's shifts, and the change is audited.
func TestInstructorChangesTheirOwnPassphrase(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ward.db")
	if _, err := ward(t, playAsthma, "run", "--db", db, "--trainee", "alice", "--backend", "offline"); err != nil {
		t.Fatal(err)
	}
	passphrases(t, "", "the night sister holds the keys")
	if _, err := ward(t, "", "encrypt", "--db", db); err != nil {
		t.Fatal(err)
	}
	t.Setenv(persist.EnvNewPassphrase, "the day sister holds the keys now")
	out, err := ward(t, "", "passwd", "--db", db, "--instructor")
	if err != nil || !strings.Contains(out, "the instructor has a new passphrase") {
		t.Fatalf("passwd --instructor: %v\n%s", err, out)
	}
	if _, err := ward(t, "", "dump", "--db", db, "--instructor", "--trainee", "alice"); !errors.Is(err, persist.ErrWrongPassphrase) {
		t.Errorf("the old instructor passphrase still opens the file: %v", err)
	}
	passphrases(t, "", "the day sister holds the keys now")
	if out, err := ward(t, "", "dump", "--db", db, "--instructor", "--trainee", "alice"); err != nil || !strings.Contains(out, disclosure) {
		t.Errorf("the new instructor passphrase does not open alice's shift: %v", err)
	}
	entries, err := persist.ReadAudit(persist.AuditPath(db))
	if err != nil || len(entries) == 0 {
		t.Fatal(err)
	}
	found := false
	for _, e := range entries {
		found = found || e.Action == persist.AuditPassphrase && e.Detail == "for the instructor"
	}
	if !found {
		t.Errorf("the change is not in the audit record: %+v", entries)
	}
}

// Every audited action appears in the audit record once for each time it was done, with who
// did it, and no clinical text.
func TestEveryAuditedActionAppearsOnce(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ward.db")
	steps := []struct {
		args  []string
		stdin string
	}{
		{[]string{"run", "--backend", "offline", "--trainee", "alice"}, playAsthma + "/clear\n"}, // open, clear
		{[]string{"archive", "restore", "1", "--trainee", "alice"}, ""},                          // restore
		{[]string{"export", "--trainee", "alice"}, ""},                                           // export
		{[]string{"report"}, ""},                                       // report
		{[]string{"encrypt", "--trainee", "alice"}, ""},                // encrypt
		{[]string{"passwd", "--instructor", "--trainee", "alice"}, ""}, // passphrase_set
	}
	passphrases(t, "alice on the night shift", "the night sister holds the keys")
	t.Setenv(persist.EnvNewPassphrase, "alice on the night shift")
	for _, s := range steps {
		if _, err := ward(t, s.stdin, append(s.args, "--db", db)...); err != nil {
			t.Fatalf("%q: %v", s.args, err)
		}
	}
	t.Setenv(persist.EnvPassphrase, "not alice's")
	if _, err := ward(t, "", "dump", "--db", db, "--trainee", "alice"); !errors.Is(err, persist.ErrWrongPassphrase) {
		t.Fatalf("dump with a wrong passphrase: %v", err)
	}
	entries, err := persist.ReadAudit(persist.AuditPath(db))
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, e := range entries {
		count[e.Action]++
		if e.User == "" || e.As == "" || e.At.IsZero() {
			t.Errorf("an entry does not say who or when: %+v", e)
		}
	}
	for _, action := range []string{persist.AuditOpen, persist.AuditClear, persist.AuditRestore, persist.AuditExport,
		persist.AuditReport, persist.AuditEncrypt, persist.AuditPassphrase, persist.AuditFailed} {
		if count[action] != 1 {
			t.Errorf("%s appears %d times, want once (audit: %v)", action, count[action], count)
		}
	}
	record, _ := os.ReadFile(persist.AuditPath(db))
	if bytes.Contains(record, []byte(disclosure)) || bytes.Contains(record, []byte(patientName)) {
		t.Error("the audit record holds clinical text")
	}
	list, err := ward(t, "", "audit", "--db", db)
	if err != nil || strings.Count(list, "\n") != len(entries) || !strings.Contains(list, "passphrase_failed") {
		t.Errorf("ward audit: %v\n%s", err, list)
	}
}

func TestProgressAndPreferencesFromTheCommandLine(t *testing.T) {
	t.Parallel() // commands on files of its own: see TestMain
	db := filepath.Join(t.TempDir(), "ward.db")
	for range 2 {
		if _, err := ward(t, playAsthma+"/prefs handoff mist\n", "run", "--db", db, "--trainee", "alice", "--backend", "offline", "--new"); err != nil {
			t.Fatal(err)
		}
	}
	out, err := ward(t, "", "progress", "--db", db, "--trainee", "alice")
	if err != nil || !strings.Contains(out, "Progress of alice: 2 shift(s), 2 patient(s)") || !strings.Contains(out, "█") {
		t.Fatalf("progress: %v\n%s", err, out)
	}
	if none, _ := ward(t, "", "progress", "--db", db, "--trainee", "bob"); !strings.Contains(none, "No shift with a patient yet") {
		t.Errorf("bob's progress shows alice's shifts:\n%s", none)
	}
	events, err := ward(t, "/admit patient_1 asthma-exacerbation\n/handoff\n", "run", "--db", db, "--trainee", "alice", "--backend", "offline", "--new")
	if err != nil || !strings.Contains(events, "MIST handoff") {
		t.Errorf("/handoff with MIST preferred: %v\n%.400s", err, events)
	}
}

// An export whose audit entry cannot be written still fails, and says what was printed, so an
// unaudited disclosure is never silent.
func TestAnUnauditedExportFailsAndSaysWhatWentOut(t *testing.T) {
	db := shiftDB(t)
	if err := os.Remove(persist.AuditPath(db)); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	if err := os.Mkdir(persist.AuditPath(db), 0o700); err != nil { // a directory: no entry can be appended
		t.Fatal(err)
	}
	out, err := ward(t, "", "dump", "--db", db)
	if err == nil || !strings.Contains(err.Error(), "dump was printed but is not in the audit record") {
		t.Fatalf("dump with no audit record: %v", err)
	}
	if !strings.Contains(out, "any allergies?") {
		t.Fatalf("the dump was not printed:\n%s", out)
	}
}

// wardCLI runs a command line as main does and returns its stderr and exit status.
func wardCLI(t *testing.T, args ...string) (string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := runAndReport(args, strings.NewReader(""), &out, &errOut)
	return errOut.String(), code
}

// An error or a note on stderr may quote a scenario file, an agents file, a trace or a file
// name: what reaches the terminal holds nothing it obeys, and still names the problem.
func TestStderrCarriesNothingATerminalObeys(t *testing.T) {
	const hostile = "\x1b]52;c;cm0=\x07\x1b[2J"
	dir := t.TempDir()
	scenarios := filepath.Join(dir, "scenarios")
	agentsFile := filepath.Join(dir, "agents.yaml")
	if err := os.Mkdir(scenarios, 0o700); err != nil {
		t.Fatal(err)
	}
	for path, data := range map[string]string{
		// YAML's escapes put the controls in a value that the error quotes.
		filepath.Join(scenarios, "bad"+hostile+".yaml"): `news2: "\e[2J\e]52;c;cm0=\a"` + "\n",
		agentsFile: `max_messages_per_turn: "\e[2J\e]52;c;cm0=\a"` + "\n",
	} {
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	trace := editTrace(t, recordTrace(t, "review patient_1\n"), func(line string) string {
		return versionField.ReplaceAllString(line, `"version":"v9\u001b]52;c;cm0=\u0007\u001b[2J"`)
	})
	run := []string{"run", "--db", filepath.Join(dir, "ward.db"), "--backend", "offline", "--new"}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"scenario file", append(run, "--scenarios", scenarios), "bad.yaml:1: cannot unmarshal"},
		{"agents file", append(run, "--agents", agentsFile), agentsFile + ": yaml: unmarshal errors"},
		{"trace header", []string{"replay", trace}, "recorded by ward v9,"},
	}
	for _, tt := range tests {
		stderr, code := wardCLI(t, tt.args...)
		if strings.ContainsAny(stderr, "\x1b\x07\u009b") || !strings.Contains(stderr, tt.want) {
			t.Errorf("%s: exit %d; stderr holds raw controls, or does not say %q:\n%q", tt.name, code, tt.want, stderr)
		}
	}
}

// The engine's secrets show in `ward dump` to the instructor, and with --debug only on a
// plaintext database: on an encrypted one a trainee's --debug changes nothing.
func TestDumpShowsTheEnginesSecretsOnlyToThoseWhoMaySeeThem(t *testing.T) {
	plain := filepath.Join(t.TempDir(), "plain.db")
	if _, err := ward(t, playAsthma, "run", "--db", plain, "--trainee", "alice", "--backend", "offline"); err != nil {
		t.Fatal(err)
	}
	encrypted := filepath.Join(t.TempDir(), "encrypted.db")
	passphrases(t, "alice on the night shift", "the night sister holds the keys")
	if _, err := ward(t, playAsthma, "run", "--db", encrypted, "--encrypt", "--trainee", "alice", "--backend", "offline"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		db     string
		flags  []string
		secret bool
	}{
		{plain, nil, false},
		{plain, []string{"--debug"}, true},
		{encrypted, []string{"--debug"}, false},
		{encrypted, []string{"--instructor"}, true},
	} {
		out, err := ward(t, "", append([]string{"dump", "--db", tc.db, "--trainee", "alice"}, tc.flags...)...)
		if err != nil {
			t.Fatal(err)
		}
		if shown := strings.Contains(out, `"asthma-exacerbation"`) && strings.Contains(out, `"true_vitals"`); shown != tc.secret || shown == strings.Contains(out, "masked in a trainee's view") {
			t.Errorf("dump %s %v: the scenario and true vitals shown %v, want %v", filepath.Base(tc.db), tc.flags, shown, tc.secret)
		}
	}
}
