package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ward-sim/ward/agents/ollamatest"
)

// `ward eval arrest` holds a model's team to the engine: one that calls a return of circulation
// the engine has not given fails the bar, case by case.
func TestEvalArrestCatchesATeamThatContradictsTheEngine(t *testing.T) {
	claims := ollamatest.Answer(`{"reply":"Great news, we've got a pulse! That was VF.","entities_to_update":{},"derived_entities_to_update":{}}`)
	f := ollamatest.NewFake(t, claims)
	t.Setenv("OLLAMA_HOST", f.URL())
	out, err := ward(t, "", "eval", "arrest", "--backend", "ollama", "--model", ollamatest.TestModel)
	if exitCode(err) != 1 || !strings.Contains(out, "says the heart restarted") || !strings.Contains(out, "names a rhythm") {
		t.Fatalf("exit %d, %v\n%s", exitCode(err), err, out)
	}
	if out, err := ward(t, "", "eval", "arrest", "--backend", "offline"); err != nil || !strings.Contains(out, "PASS: at or above the bar") {
		t.Fatalf("offline: %v\n%s", err, out)
	}
}

// `ward run --seed 42` plays an arrest the same way twice: every state, action, shock, critical
// error and strip, and a different seed is free to differ.
func TestRunArrestIsDeterministicUnderSeed(t *testing.T) {
	script := strings.Join([]string{"/admit patient_1 arrest-vf-ward", "attach the monitor", "/wait 35s",
		"crash call, start CPR, pads on, charge to 150 J", "/wait 20s", "stop compressions, rhythm check",
		"VF, shock 150 J, resume CPR", "/wait 2m", "stop compressions, rhythm check", "shock 200 J, resume CPR",
		"/wait 2m", "pulse check", "/aar"}, "\n") + "\n"
	engine := func(seed string) string {
		db := filepath.Join(t.TempDir(), "ward.db")
		out, err := ward(t, script, "run", "--db", db, "--backend", "offline", "--new", "--seed", seed)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var e map[string]any
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatalf("%v: %q", err, line)
			}
			switch e["event"] {
			case "state", "action", "critical_error", "ecg":
				b.WriteString(line + "\n")
			case "aar":
				j, _ := json.Marshal(e["arrest"])
				b.Write(j)
			}
		}
		return b.String()
	}
	first := engine("42")
	if !strings.Contains(first, `"event":"ecg"`) || !strings.Contains(first, `"cycles"`) {
		t.Fatalf("the run has no strip or no arrest review:\n%s", first)
	}
	if again := engine("42"); again != first {
		t.Error("two runs under --seed 42 differ")
	}
}
