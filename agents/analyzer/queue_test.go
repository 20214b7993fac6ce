package analyzer

import (
	"context"
	"testing"
	"time"

	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/agents/ollama"
	"github.com/ward-sim/ward/agents/ollamatest"
)

// A call that waits in the queue behind a busy slot for longer than its limits is answered, not
// taken for a stuck model: the analyzer's time limit and the backend's stall timer both count
// from when the call leaves the queue.
func TestLLMAnalyzerWaitInTheQueueIsNotAStall(t *testing.T) {
	const limit = time.Second
	busy := ollamatest.Slow(ollamatest.Streamed("one ", "slot ", "held ", "for ", "three ", "seconds"), 3*limit)
	f := ollamatest.NewFake(t, busy,
		answer(`{"action":"SWITCH_EXISTING","patient_id":"patient_4","reasoning":"the first patient was patient_4"}`))
	backend := ollama.New(f.Client(), ollamatest.TestModel, ollama.Options{StallTimeout: limit, FirstCall: limit})
	q := llm.NewQueue(backend, 1)

	held := make(chan error, 1)
	go func() {
		_, err := q.For("amy").Chat(t.Context(), llm.Request{Agent: "Patient"}, nil)
		held <- err
	}()
	for len(f.Requests()) == 0 {
		time.Sleep(time.Millisecond)
	}
	started := time.Now()
	d := NewLLMAnalyzer(q.For("ben"), LLMAnalyzerConfig{Timeout: limit}).Analyze(context.Background(), twoPatients)
	if d.Source != SourceLLM || d.PatientID != "patient_4" {
		t.Errorf("after waiting in the queue the analyzer gave %+v, want the model's switch to patient_4", d)
	}
	if waited := time.Since(started); waited < 2*limit {
		t.Errorf("the analyzer's call took %s: it did not wait behind the busy slot, so this shows nothing", waited)
	}
	if err := <-held; err != nil {
		t.Errorf("the call holding the slot: %v", err)
	}
}
