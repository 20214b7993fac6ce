package main

import (
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
