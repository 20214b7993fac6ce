package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fullDisk mounts a tmpfs of a few pages in a temporary directory, or skips the test saying
// why it cannot.
func fullDisk(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs here (%v): %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", dir).Run() })
	return dir
}

// A trace whose disk fills is reported once on stderr, `ward run` exits 1, and the shift is
// still played and stored; `ward replay` replays the trace up to its last whole turn and says
// where it stops.
func TestATraceOnAFullDiskFailsTheRun(t *testing.T) {
	trace := filepath.Join(fullDisk(t), "trace.jsonl")
	db := filepath.Join(t.TempDir(), "ward.db")
	lines := "review patient_1\n" + strings.Repeat("any allergies?\nhow is the pain?\n/vitals\n", 6)
	var stderr strings.Builder
	code := runAndReport([]string{"run", "--db", db, "--backend", "offline", "--new", "--seed", "3", "--trace", trace},
		strings.NewReader(lines), &strings.Builder{}, &stderr)
	if code != 1 || strings.Count(stderr.String(), "ward: ") != 1 || !strings.Contains(stderr.String(), "--trace "+trace+": the trace is incomplete from here") ||
		!strings.Contains(stderr.String(), "no space left on device") {
		t.Fatalf("exit %d, want 1 and one line saying the trace is incomplete:\n%s", code, stderr.String())
	}
	if dump, err := ward(t, "", "dump", "--db", db); err != nil || strings.Count(dump, `"how is the pain?"`) != 6 {
		t.Fatalf("the shift was not played whole: %v", err)
	}
	replayed(t, trace)
}

// A trace cut part way through a line (a killed ward, a full disk) replays its whole turns, and
// no run is appended to it.
func TestACutTraceReplaysWhatIsWhole(t *testing.T) {
	t.Parallel() // commands on files of its own: see TestMain
	trace := recordTrace(t, "review patient_1\nany allergies?\n/wait 2m\n/vitals\n")
	data := fileBytes(t, trace)
	cut := filepath.Join(t.TempDir(), "cut.jsonl")
	last := strings.LastIndex(strings.TrimRight(string(data), "\n"), "\n")
	if err := os.WriteFile(cut, data[:last+40], 0o600); err != nil { // 40 bytes into the last line
		t.Fatal(err)
	}
	replayed(t, cut)
	// Appending a run after the torn line would leave a trace no one can read: refused.
	db := filepath.Join(t.TempDir(), "ward.db")
	stderr, code := wardCLI(t, "run", "--db", db, "--backend", "offline", "--trace", cut)
	if code != 1 || !strings.Contains(stderr, "its last line is cut short") {
		t.Fatalf("a run appended to a cut trace: exit %d\n%s", code, stderr)
	}
	replayed(t, cut)
}

// replayed replays a cut trace: exit 0, a note naming the line it stops at, and what it replayed.
func replayed(t *testing.T, trace string) {
	t.Helper()
	var out, stderr strings.Builder
	code := runAndReport([]string{"replay", trace}, strings.NewReader(""), &out, &stderr)
	if code != 0 || !strings.Contains(stderr.String(), "is cut short: the trace stops there") ||
		!strings.Contains(out.String(), "calls sent byte for byte as recorded") {
		t.Fatalf("replay of a cut trace: exit %d\nstdout: %s\nstderr: %s", code, out.String(), stderr.String())
	}
	t.Logf("%s%s", stderr.String(), out.String())
}
