package persist

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ward-sim/ward/memory"
)

// crashChildEnv makes the test binary act as a ward process that is killed mid-session.
const crashChildEnv = "WARD_PERSIST_CRASH_CHILD_DB"

const crashSession = "crash"

// runCrashChild plays turns on the store and prints "ack N" only after turn N is committed.
func runCrashChild(path string) int {
	s, err := Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for n := 1; n <= 100000; n++ {
		err := s.Update(crashSession, func(tx *Tx) error { return playTurn(tx, n) })
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Printf("ack %d\n", n)
	}
	return 0
}

// playTurn stores what a turn stores: the typed text and the registry.
func playTurn(tx *Tx, n int) error {
	at := t0.Add(time.Duration(n) * time.Second)
	if err := tx.Append("patient_1", memory.Message{Role: "user", Content: fmt.Sprintf("turn %d", n), At: at}); err != nil {
		return err
	}
	entry := PatientEntry{PatientID: "patient_1", Facts: map[string]any{"turns": n}, CreatedAt: t0, UpdatedAt: at}
	return tx.PutRegistry(Registry{ActivePatientID: "patient_1", Patients: map[string]PatientEntry{"patient_1": entry}})
}

func TestReopenAfterKillKeepsAcknowledgedTurns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ward.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	newSession(t, s, crashSession)
	s.Close()

	acked := runAndKill(t, path, 30)
	t.Logf("child acknowledged %d turns before it died", acked)

	s, err = Open(path)
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer s.Close()
	got := history(t, s, crashSession, "patient_1")
	// The child may have committed one more turn that it had no time to acknowledge.
	if len(got) < acked || len(got) > acked+1 {
		t.Fatalf("history has %d messages after %d acks", len(got), acked)
	}
	for i, m := range got {
		if want := fmt.Sprintf("turn %d", i+1); m.Content != want {
			t.Errorf("message %d = %q, want %q", i, m.Content, want)
		}
	}
	mustView(t, s, crashSession, func(tx *Tx) error {
		reg, err := tx.Registry()
		if err != nil {
			return err
		}
		if turns := reg.Patients["patient_1"].Facts["turns"]; turns != float64(len(got)) {
			t.Errorf("registry says %v turns, history has %d", turns, len(got))
		}
		return nil
	})
}

// runAndKill starts the child, kills it with SIGKILL after minAcks acknowledgements, and
// returns the last turn it acknowledged.
func runAndKill(t *testing.T, path string, minAcks int) int {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acked := 0
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		n, err := strconv.Atoi(strings.TrimPrefix(lines.Text(), "ack "))
		if err != nil {
			t.Errorf("unexpected child output %q", lines.Text())
			continue
		}
		acked = n
		if acked == minAcks {
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
		}
	}
	_ = cmd.Wait()
	if acked < minAcks {
		t.Fatalf("child acknowledged only %d turns", acked)
	}
	return acked
}
