package playback

import (
	"context"
	"testing"

	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/agents/ollama"
	"github.com/ward-sim/ward/agents/ollamatest"
	"github.com/ward-sim/ward/session"
)

// A shift played against a real `ollama serve` and the tiny model replays with no model: the
// model's analyzer and router calls and whatever the random weights answered, streamed chunks
// and all.
func TestLiveReplayOfAnOllamaShift(t *testing.T) {
	srv := ollamatest.StartForTest(t, 1)
	backend := ollama.New(srv.Client, ollamatest.ModelName, ollama.Options{})
	caps, err := backend.Probe(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	runs := recordShift(t, func(c *session.Config) {
		c.Backend, c.Tools, c.NumCtx, c.OutputBudget = backend, caps.Tools, llm.DefaultNumCtx, liveOutputBudget
		askModel(c)
	}, func(t *testing.T, s *session.Session) {
		for _, line := range []string{
			"/admit patient_1 asthma-exacerbation",
			"Hello Maya, what brought you in today?", // the Patient
			"what should I do next?",                 // the router, then the agent it names
			"Give salbutamol 5 mg nebulised.",        // the analyzer
		} {
			s.Turn(context.Background(), line, func(session.Event) {})
		}
	})
	called := map[string]int{}
	chunks := 0
	for _, c := range runs[0].Calls {
		called[c.Agent]++
		chunks += len(c.Chunks)
	}
	if called["analyzer"] == 0 || called["router"] == 0 || called["Patient"] == 0 {
		t.Fatalf("the recording lacks a kind of call: %v", called)
	}
	t.Logf("recorded %d calls (%v), %d streamed chunks, tools offered: %v", len(runs[0].Calls), called, chunks, caps.Tools)
	if d := replayShift(t, runs, nil, askModel); d != nil {
		t.Fatalf("the replay diverged:\n%s", d)
	}
}

// liveOutputBudget keeps a random model's replies short.
const liveOutputBudget = 48
