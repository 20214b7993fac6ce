package main

import (
	"strings"
	"testing"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/ollamatest"
	"github.com/ward-sim/ward/memory"
)

// `ward run` on a model that calls tools (an NDJSON fake of Ollama, through ward's Ollama client):
// the run's JSON shows the Patient's call that asked for record_quote and the second call that
// carried its result, and `ward replay` accepts the trace and sends every call again byte for
// byte.
func TestRunAndReplayAToolCallingModel(t *testing.T) {
	f := ollamatest.NewFake(t,
		ollamatest.CallsTools(memory.ToolCall{Name: agents.ToolRecordQuote, Args: map[string]any{"speaker": "patient", "quote": "I can't breathe"}}),
		ollamatest.Answer(`{"reply":"I can't get my breath.","entities_to_update":{},"derived_entities_to_update":{}}`))
	f.CanCallTools()
	t.Setenv("OLLAMA_HOST", f.URL())
	dir := t.TempDir()
	trace, db := dir+"/trace.jsonl", dir+"/ward.db"
	out, err := ward(t, "/admit patient_1 asthma-exacerbation\nhow is your breathing?\n",
		"run", "--db", db, "--backend", "ollama", "--model", ollamatest.TestModel, "--seed", "7", "--trace", trace)
	if err != nil {
		t.Fatalf("ward run: %v\n%s", err, out)
	}
	if !strings.Contains(out, `"retry":"tool results: second call"`) || !strings.Contains(out, `"text":"I can't get my breath."`) {
		t.Fatalf("the run shows no second call carrying the tool's result:\n%s", out)
	}
	replay, err := ward(t, "", "replay", trace)
	if err != nil || !strings.Contains(replay, "calls sent byte for byte as recorded") {
		t.Fatalf("ward replay: %v\n%s", err, replay)
	}
	t.Log(replay)
}
