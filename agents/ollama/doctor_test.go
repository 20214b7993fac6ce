package ollama_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"

	"github.com/ward-sim/ward/agents/ollama"
	"github.com/ward-sim/ward/agents/ollamatest"
)

// timed is a JSON reply whose done chunk reports evaluating prompt tokens in promptEval.
func timed(prompt int, promptEval time.Duration) ollamatest.Reply {
	return ollamatest.Reply{Chunks: []api.ChatResponse{
		{Model: ollamatest.TestModel, Message: api.Message{Role: "assistant", Content: `{"reply":"fine"}`}},
		{Model: ollamatest.TestModel, Done: true, DoneReason: "stop", Message: api.Message{Role: "assistant"},
			Metrics: api.Metrics{PromptEvalCount: prompt, PromptEvalDuration: promptEval, EvalCount: 5, EvalDuration: 50 * time.Millisecond}},
	}}
}

func doctorLine(checks []ollama.Check) string {
	var parts []string
	for _, c := range checks {
		mark := "ok"
		if !c.OK {
			mark = "FAIL"
		}
		parts = append(parts, c.Name+":"+mark)
	}
	return strings.Join(parts, " ")
}

func TestDoctor(t *testing.T) {
	t.Setenv("OLLAMA_NUM_PARALLEL", "")
	healthy := api.ShowResponse{Capabilities: []model.Capability{model.CapabilityCompletion, model.CapabilityTools},
		ModelInfo: map[string]any{"llama.context_length": float64(131072)}}
	tests := []struct {
		name    string
		show    api.ShowResponse
		replies []ollamatest.Reply
		want    string
		fix     string // a Fix the failing checks must offer
	}{
		{"healthy, cache reused", healthy, []ollamatest.Reply{timed(200, 400*time.Millisecond), timed(200, 20*time.Millisecond)},
			"server:ok model:ok chat:ok tools:ok context:ok parallel:FAIL first call:ok cached call:ok", "OLLAMA_NUM_PARALLEL=5"},
		{"cache not reused", healthy, []ollamatest.Reply{timed(200, 400*time.Millisecond), timed(200, 380*time.Millisecond)},
			"server:ok model:ok chat:ok tools:ok context:ok parallel:FAIL first call:ok cached call:FAIL", "evaluated again"},
		{"context shorter than num_ctx", api.ShowResponse{Capabilities: []model.Capability{model.CapabilityCompletion},
			ModelInfo: map[string]any{"llama.context_length": float64(2048)}},
			[]ollamatest.Reply{timed(200, 400*time.Millisecond), timed(200, 20*time.Millisecond)},
			"server:ok model:ok chat:ok tools:ok context:FAIL parallel:FAIL first call:ok cached call:ok", "--num-ctx 2048"},
		{"no JSON", healthy, []ollamatest.Reply{ollamatest.Streamed("I am fine"), ollamatest.Streamed("I am fine")},
			"server:ok model:ok chat:ok tools:ok context:ok parallel:FAIL first call:FAIL cached call:FAIL", "structured output"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := ollamatest.NewFake(t, tt.replies...)
			f.SetShow(tt.show)
			checks := ollama.New(f.Client(), ollamatest.TestModel, ollama.Options{}).Doctor(context.Background(), 8192)
			if got := doctorLine(checks); got != tt.want {
				t.Fatalf("checks %s\nwant   %s", got, tt.want)
			}
			var fixes []string
			for _, c := range checks {
				fixes = append(fixes, c.Fix)
			}
			if !strings.Contains(strings.Join(fixes, "\n"), tt.fix) {
				t.Errorf("no fix mentions %q: %q", tt.fix, fixes)
			}
		})
	}
}

func TestDoctorStopsWhereNothingMoreCanBeChecked(t *testing.T) {
	refused := ollama.New(ollamatest.RefusedClient(t), ollamatest.TestModel, ollama.Options{}).Doctor(context.Background(), 8192)
	if got := doctorLine(refused); got != "server:FAIL" || !strings.Contains(refused[0].Detail, "not reachable") || strings.Contains(refused[0].Detail, "ollama serve") {
		t.Errorf("no server: %s %+v", got, refused)
	}
	f := ollamatest.NewFake(t)
	missing := ollama.New(f.Client(), "llama9", ollama.Options{}).Doctor(context.Background(), 8192)
	if got := doctorLine(missing); got != "server:ok model:FAIL" || missing[1].Fix != "ollama pull llama9" {
		t.Errorf("missing model: %s %+v", got, missing)
	}
}
