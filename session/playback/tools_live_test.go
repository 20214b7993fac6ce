package playback

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/agents/ollama"
	"github.com/ward-sim/ward/agents/ollamatest"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/sessiontest"
)

// The two-call tool flow against a real `ollama serve` and the tiny model, as far as the model
// allows. Its weights are random: it will not write a tool call when asked, so the first reply,
// the one that proposes the calls, is scripted by the NDJSON fake (through the same Ollama client
// code). What the real server checks is the rest of the flow: ward validates and runs the calls,
// and the second call, which offers the same tools and carries the assistant's calls and every
// result, is accepted and answered under the output format.
// The interaction log links calls and results by ID, and `ward replay` of the trace sends every
// request again byte for byte.
func TestLiveTwoCallToolFlow(t *testing.T) {
	srv := ollamatest.StartForTest(t, 1)
	// The second call's prompt is some 6,500 byte-sized tokens, a few minutes' evaluation on a
	// busy two-core machine: its first chunk may take longer than a model's load would.
	real := ollama.New(srv.Client, ollamatest.ModelName, ollama.Options{FirstCall: 6 * time.Minute})
	caps, err := real.Probe(t.Context())
	if err != nil || !caps.Tools {
		t.Fatalf("the tiny model should report the tools capability: %+v, %v", caps, err)
	}
	fake := ollamatest.NewFake(t, ollamatest.CallsTools(patientCalls...))
	backend := &firstScripted{Backend: real, first: ollama.New(fake.Client(), ollamatest.ModelName, ollama.Options{})}
	var trace strings.Builder
	rig := sessiontest.New(t, func(c *session.Config) {
		c.Backend, c.Tools, c.Seed, c.Trace = backend, true, 7, llm.NewTraceWriter(&trace)
		c.NumCtx, c.OutputBudget = llm.DefaultNumCtx, liveOutputBudget
	})
	for _, line := range []string{"/admit patient_1 asthma-exacerbation", "how is your breathing?"} {
		rig.Turn(line)
	}

	runs, err := llm.ReadTrace(strings.NewReader(trace.String()))
	if err != nil {
		t.Fatal(err)
	}
	calls := runs[0].Calls
	if len(calls) != 2 || len(calls[0].Reply.ToolCalls) != len(patientCalls) {
		t.Fatalf("%d calls, the first asking %d tools; want the scripted call and the real server's", len(calls), len(calls[0].Reply.ToolCalls))
	}
	answered := calls[1]
	if answered.Error != "" || answered.Metrics.PromptEvalCount == 0 || len(answered.Tools) != 1 || len(answered.Format) == 0 {
		t.Fatalf("the real server's second call: error %q, %d prompt tokens, %d tools, format %q", answered.Error,
			answered.Metrics.PromptEvalCount, len(answered.Tools), answered.Format)
	}
	d, err := rig.Store.Dump(rig.S.ID())
	if err != nil {
		t.Fatal(err)
	}
	checkExchange(t, d.Histories["patient_1"])
	t.Logf("the real server evaluated %d prompt tokens and answered %q", answered.Metrics.PromptEvalCount, answered.Reply.Content)
	if d := replayShift(t, runs, nil, func(*session.Config) {}); d != nil {
		t.Fatalf("the replay diverged:\n%s", d)
	}
}

// firstScripted answers its first chat from first and every later one from the Backend it
// embeds.
type firstScripted struct {
	llm.Backend
	first llm.Backend
	calls int
}

func (b *firstScripted) Chat(ctx context.Context, req llm.Request, onDelta func(string)) (llm.Response, error) {
	b.calls++
	if b.calls == 1 {
		return b.first.Chat(ctx, req, onDelta)
	}
	return b.Backend.Chat(ctx, req, onDelta)
}
