package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ward-sim/ward/persist"
)

// ward runs the command line in-process, as a user would type it.
func ward(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(args, strings.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), err
}

func TestRunWritesOneJSONEventPerLine(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ward.db")
	out, _, err := ward(t, "review patient_1\n\nany allergies?\n/vitals\n/nonsense\n", "run", "--db", db, "--backend", "offline")
	if err != nil {
		t.Fatal(err)
	}
	ends := 0
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || ev["event"] == nil {
			t.Fatalf("not a JSON event: %q", sc.Text())
		}
		if ev["event"] == "turn_end" {
			ends++
		}
	}
	if ends != 4 {
		t.Errorf("4 non-empty lines gave %d turn_end events", ends)
	}
}

func TestDumpAARAndArchiveOfAShift(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ward.db")
	if _, _, err := ward(t, "/admit patient_1 asthma-exacerbation\napplying oxygen 15 L NRB\n/wait 2m\n", "run", "--db", db, "--backend", "offline"); err != nil {
		t.Fatal(err)
	}
	out, _, err := ward(t, "", "dump", "--db", db)
	if err != nil {
		t.Fatal(err)
	}
	var dump struct {
		Sim map[string]struct{ Scenario string } `json:"sim"`
	}
	if err := json.Unmarshal([]byte(out), &dump); err != nil || dump.Sim["patient_1"].Scenario != "asthma-exacerbation" {
		t.Fatalf("dump sim = %+v (%v)", dump.Sim, err)
	}
	report := filepath.Join(t.TempDir(), "aar.md")
	if _, _, err := ward(t, "", "aar", "--db", db, "--out", report); err != nil {
		t.Fatal(err)
	}
	if md, _ := os.ReadFile(report); !bytes.Contains(md, []byte("oxygen")) {
		t.Errorf("the AAR file does not list the oxygen given:\n%s", md)
	}
	if _, _, err := ward(t, "clear\n", "run", "--db", db, "--backend", "offline"); err != nil {
		t.Fatal(err)
	}
	if out, _, _ := ward(t, "", "archive", "list", "--db", db); !strings.Contains(out, "1 patient(s)") {
		t.Errorf("archive list after a clear: %q", out)
	}
}

func TestScenarioValidateGivesLineNumbers(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("id: broken\ntitle: Broken\nnews2:\n  scale: 3\n"), 0o600)
	out, _, err := ward(t, "", "scenarios", "validate", bad)
	if err == nil || !strings.Contains(out, "bad.yaml:") || !strings.Contains(out, ":4:") {
		t.Errorf("validate of a bad scale: err %v, output %q; want an error naming line 4", err, out)
	}
	out, _, err = ward(t, "", "scenarios", "list")
	if err != nil || strings.Count(out, "\n") < 8 {
		t.Errorf("scenarios list: %v %q", err, out)
	}
}

func TestEvalHarnessesPassOffline(t *testing.T) {
	for _, suite := range []string{"delta", "analyzer"} {
		out, _, err := ward(t, "", "eval", suite, "--backend", "offline")
		if err != nil || !strings.Contains(out, "100") {
			t.Errorf("eval %s offline: %v\n%s", suite, err, out)
		}
	}
}

func TestBadFlagsSayWhatIsWrong(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ward.db")
	for _, args := range [][]string{
		{"run", "--db", db, "--backend", "gpt"},
		{"run", "--db", db, "--window", "huge"},
		{"aar", "--db", db, "--format", "pdf"},
		{"frobnicate"},
	} {
		if _, _, err := ward(t, "", args...); err == nil {
			t.Errorf("%v: want an error", args)
		}
	}
}

func TestSecondWardOnTheSameFileIsRefused(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ward.db")
	if _, _, err := ward(t, "review patient_1\n", "run", "--db", db, "--backend", "offline"); err != nil {
		t.Fatal(err)
	}
	store, err := persist.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	_, _, err = ward(t, "", "dump", "--db", db)
	if err == nil || !strings.Contains(err.Error(), db) || strings.Contains(err.Error(), "\n") {
		t.Errorf("second open: %v; want one line naming %s", err, db)
	}
}

// TestMain lets a test run the ward command in a child process, so it can be killed mid-session.
func TestMain(m *testing.M) {
	if args := os.Getenv("WARD_TEST_CHILD_ARGS"); args != "" {
		if err := run(strings.Fields(args), os.Stdin, os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, "ward:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A `ward run` killed with SIGKILL mid-session keeps every turn it acknowledged with turn_end.
func TestKilledMidSessionKeepsEveryAcknowledgedTurn(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ward.db")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "WARD_TEST_CHILD_ARGS=run --db "+db+" --backend offline")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	events := bufio.NewScanner(stdout)
	var acked []string
	for i := range 12 {
		line := fmt.Sprintf("review patient_1 and note %d", i)
		fmt.Fprintln(stdin, line)
		for events.Scan() {
			var ev struct{ Event, Input string }
			json.Unmarshal(events.Bytes(), &ev)
			if ev.Event == "turn_end" && ev.Input == line {
				acked = append(acked, line)
				break
			}
		}
	}
	fmt.Fprintln(stdin, "a turn that may or may not land")
	cmd.Process.Kill()
	cmd.Wait()

	out, _, err := ward(t, "", "dump", "--db", db)
	if err != nil {
		t.Fatalf("reopening after the kill: %v", err)
	}
	for _, line := range acked {
		if !strings.Contains(out, line) {
			t.Errorf("acknowledged turn %q is missing after the kill", line)
		}
	}
	if len(acked) != 12 {
		t.Errorf("only %d turns were acknowledged", len(acked))
	}
}
