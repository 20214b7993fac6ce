package ollamatest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ward-sim/ward/agents/analyzer"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/agents/ollama"
	"github.com/ward-sim/ward/agents/ollamatest"
	"github.com/ward-sim/ward/memory"
)

// The live tests drive ward's own Ollama backend and analyzer against a real `ollama serve`
// serving the tiny model. They are skipped unless WARD_LIVE_OLLAMA=1 (.ci/run sets it). The
// KV-cache measurement plays real ward turns, so it lives with the session (session/live_test.go).

var live *ollamatest.Server

func TestMain(m *testing.M) {
	if !ollamatest.Live() {
		os.Exit(m.Run())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	srv, err := ollamatest.StartTiny(ctx, 1)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "live ollama:", err)
		os.Exit(1)
	}
	live = srv
	code := m.Run()
	if code != 0 {
		fmt.Fprintln(os.Stderr, "ollama serve log (tail):\n"+srv.LogTail(4000))
	}
	srv.Stop()
	os.Exit(code)
}

// backend is ward's Ollama backend for model on the live server.
func backend(t *testing.T, model string) *ollama.Backend {
	t.Helper()
	if live == nil {
		t.Skip("set " + ollamatest.LiveEnv + "=1 to run against a real ollama serve")
	}
	return ollama.New(live.Client, model, ollama.Options{})
}

// options are ward's load options (num_ctx above all: a change makes Ollama reload the model).
func options(numPredict int) llm.Options {
	return llm.Options{NumCtx: llm.DefaultNumCtx, NumPredict: numPredict, Seed: 7}
}

func say(text string) []memory.Message {
	return []memory.Message{{Role: "system", Content: "You are a patient."}, {Role: "user", Content: text}}
}

func TestLiveStreamingChat(t *testing.T) {
	b := backend(t, ollamatest.ModelName)
	var deltas []string
	resp, err := b.Chat(t.Context(), llm.Request{Messages: say("How are you?"), Options: options(32)},
		func(d string) { deltas = append(deltas, d) })
	if err != nil {
		t.Fatal(err)
	}
	if len(deltas) < 2 {
		t.Errorf("reply came in %d delta(s), want a stream of more than one", len(deltas))
	}
	if got := strings.Join(deltas, ""); got != resp.Message.Content {
		t.Errorf("deltas join to %q, reply is %q", got, resp.Message.Content)
	}
	if m := resp.Metrics; m.PromptEvalCount == 0 || m.EvalCount == 0 || m.PromptEvalDuration == 0 {
		t.Errorf("reply lacks metrics: %+v", m)
	}
	t.Logf("%d deltas, done_reason %q: %q", len(deltas), resp.DoneReason, resp.Message.Content)
}

// The knowledge base's semantic half asks the server for one vector a text, in order, all of one
// length; the whole library is embedded by the knowledge eval in the long form (WARD_LIVE_FULL).
func TestLiveEmbed(t *testing.T) {
	b := backend(t, ollamatest.ModelName)
	texts := []string{"Adrenaline 1 mg IV every 3 to 5 minutes in a non-shockable arrest.", "Oxygen to a target of 94 to 98 %.", ""}
	vecs, err := b.Embed(t.Context(), ollamatest.ModelName, texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != len(texts) || len(vecs[0]) == 0 || len(vecs[1]) != len(vecs[0]) {
		t.Fatalf("%d vectors for %d texts, lengths %d and %d", len(vecs), len(texts), len(vecs[0]), len(vecs[1]))
	}
	if slices.Equal(vecs[0], vecs[1]) {
		t.Error("two different texts got the same vector")
	}
}

// recorder keeps the raw replies of the backend it wraps, to check what the model wrote.
type recorder struct {
	llm.Backend
	replies []string
}

func (r *recorder) Chat(ctx context.Context, req llm.Request, onDelta func(string)) (llm.Response, error) {
	resp, err := r.Backend.Chat(ctx, req, onDelta)
	r.replies = append(r.replies, resp.Message.Content)
	return resp, err
}

// The analyzer's own request (DecisionSchema as `format`, temperature 0) through ward's backend.
// A decision from the model must be schema-valid JSON. But greedy decoding of random weights
// loops, and Ollama's loop guard ends a reply after the same token 31 times in a row (llm/server.go
// in v0.6.5), without a final chunk: then the analyzer must fall back to the rules, as it does
// for any unusable answer. Either way the decision is one of the actions. Timeout and num_predict
// are generous: a string of 300 characters may be written as \uXXXX escapes.
func TestLiveAnalyzerDecides(t *testing.T) {
	rec := &recorder{Backend: backend(t, ollamatest.ModelName)}
	a := analyzer.NewLLMAnalyzer(rec, analyzer.LLMAnalyzerConfig{Timeout: 2 * time.Minute, NumPredict: 4096})
	inputs := []analyzer.AnalyzerInput{
		{Text: "review patient_1"},
		{Text: "go back to patient_2", ActivePatient: "patient_1", Roster: []string{"patient_1", "patient_2"}},
		{Text: "what is her blood pressure?", ActivePatient: "patient_1", Roster: []string{"patient_1"}},
	}
	for _, in := range inputs {
		d := a.Analyze(t.Context(), in)
		raw := rec.replies[len(rec.replies)-1]
		if !slices.Contains(analyzer.Actions, d.Action) {
			t.Errorf("%q: action %q is not one of %v", in.Text, d.Action, analyzer.Actions)
		}
		switch {
		case d.Source == analyzer.SourceLLM:
			if err := validDecision(raw); err != nil {
				t.Errorf("%q: the model's decision was used, but %v: %s", in.Text, err, raw)
			}
		case d.Source == analyzer.SourceFallback && cutByLoopGuard(raw):
			t.Logf("%q: Ollama's loop guard cut the greedy reply; the rules decided (%s)", in.Text, d.Reasoning)
		default:
			t.Errorf("%q: decision from %q (%s); raw reply %q", in.Text, d.Source, d.Reasoning, raw)
		}
		t.Logf("%q → %s from %s in %s: %s", in.Text, d.Action, d.Source, d.Elapsed.Round(time.Millisecond), raw)
	}
}

// cutByLoopGuard reports whether a reply ends in the run of identical tokens that makes Ollama
// stop a prediction. The tiny model's printable tokens are single characters.
func cutByLoopGuard(reply string) bool {
	const run = 31
	if len(reply) < run {
		return false
	}
	tail := reply[len(reply)-run:]
	return strings.Count(tail, tail[:1]) == run
}

// The analyzer's schema with sampling on, through ward's backend: the grammar holds for any seed,
// and sampling does not loop.
func TestLiveDecisionSchemaHoldsWhenSampling(t *testing.T) {
	b := backend(t, ollamatest.ModelName)
	for seed := range 3 {
		opts := options(4096)
		opts.Seed = seed
		resp, err := b.Chat(t.Context(), llm.Request{
			Messages: []memory.Message{{Role: "user", Content: "review patient_1"}},
			Format:   analyzer.DecisionSchema,
			Options:  opts,
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := validDecision(resp.Message.Content); err != nil {
			t.Errorf("seed %d: %v (done_reason %q): %s", seed, err, resp.DoneReason, resp.Message.Content)
		}
		t.Logf("seed %d, %d tokens: %s", seed, resp.Metrics.EvalCount, resp.Message.Content)
	}
}

// validDecision checks a reply against agents.DecisionSchema: exactly its three fields, the
// action from the enum, and every string within its maxLength (in characters, as JSON Schema
// counts them).
func validDecision(reply string) error {
	var d map[string]json.RawMessage
	if err := json.Unmarshal([]byte(reply), &d); err != nil {
		return fmt.Errorf("not a JSON object: %w", err)
	}
	if len(d) != 3 {
		return fmt.Errorf("want exactly action, patient_id, reasoning; got %d keys", len(d))
	}
	var action, reasoning string
	var patientID *string
	for key, dst := range map[string]any{"action": &action, "patient_id": &patientID, "reasoning": &reasoning} {
		raw, ok := d[key]
		if !ok {
			return fmt.Errorf("missing %q", key)
		}
		if err := json.Unmarshal(raw, dst); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
	}
	if !slices.Contains(analyzer.Actions, analyzer.Action(action)) {
		return fmt.Errorf("action %q not in the enum", action)
	}
	if patientID != nil && utf8.RuneCountInString(*patientID) > 64 {
		return fmt.Errorf("patient_id longer than 64")
	}
	if utf8.RuneCountInString(reasoning) > 300 {
		return fmt.Errorf("reasoning longer than 300")
	}
	return nil
}

// The server answers a missing model with a 404; ward's backend turns it into the typed error
// whose message tells the user what to run, from Probe (a StatusError) and from Chat (whose
// stream reports it as bare text) alike.
func TestLiveMissingModel(t *testing.T) {
	const missing = "ward-no-such-model"
	b := backend(t, missing)
	want := "model " + missing + " not found — ollama pull " + missing

	_, probeErr := b.Probe(t.Context())
	_, chatErr := b.Chat(t.Context(), llm.Request{Messages: say("hello"), Options: options(4)}, nil)
	for call, err := range map[string]error{"Probe": probeErr, "Chat": chatErr} {
		var notFound *llm.ModelNotFoundError
		if !errors.As(err, &notFound) || err.Error() != want {
			t.Errorf("%s: err = %v (%T), want *llm.ModelNotFoundError %q", call, err, err, want)
		}
	}

	body := strings.NewReader(`{"model":"` + missing + `","messages":[{"role":"user","content":"hello"}]}`)
	resp, err := http.Post(live.URL.JoinPath("/api/chat").String(), "application/json", body)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("POST /api/chat: status %d, want 404", resp.StatusCode)
	}
}

// Ward sends keep_alive with every request; the server keeps the model for that long after the
// reply, and unloads it at once for 0.
func TestLiveKeepAlive(t *testing.T) {
	b := backend(t, ollamatest.ModelName)
	ctx := t.Context()
	keep := func(d time.Duration) llm.Request {
		return llm.Request{Messages: say("hello"), Options: options(4), KeepAlive: d}
	}

	before := time.Now()
	if _, err := b.Chat(ctx, keep(llm.DefaultKeepAlive), nil); err != nil {
		t.Fatal(err)
	}
	m, loaded, err := live.Running(ctx, ollamatest.ModelName)
	if err != nil || !loaded {
		t.Fatalf("model not loaded after a request with keep_alive %s (err %v)", llm.DefaultKeepAlive, err)
	}
	if left := m.ExpiresAt.Sub(before); left < llm.DefaultKeepAlive-time.Minute || left > llm.DefaultKeepAlive+time.Minute {
		t.Errorf("expires_at is %s after the request, want about %s", left.Round(time.Second), llm.DefaultKeepAlive)
	}

	if _, err := b.Chat(ctx, keep(0), nil); err != nil {
		t.Fatal(err)
	}
	if err := live.WaitUnloaded(ctx, ollamatest.ModelName); err != nil {
		t.Errorf("keep_alive 0: %v", err)
	}
}

// The tiny model's template renders .Tools, so the server reports the tools capability and ward
// offers its tools to the model.
func TestLiveProbeReportsTools(t *testing.T) {
	caps, err := backend(t, ollamatest.ModelName).Probe(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !caps.Tools {
		t.Error("Probe: tools not reported for a template that renders .Tools")
	}
}

// ward doctor against a real server: the server, the model and a first call with ward's JSON
// format must pass; the rest is advice, logged for the CI report.
func TestLiveDoctor(t *testing.T) {
	checks := backend(t, ollamatest.ModelName).Doctor(t.Context(), llm.DefaultNumCtx)
	for _, c := range checks {
		t.Logf("%-12s ok=%v %s %s", c.Name, c.OK, c.Detail, c.Fix)
		if !c.OK && !c.Advice {
			t.Errorf("%s failed: %s (%s)", c.Name, c.Detail, c.Fix)
		}
	}
	if len(checks) < 8 {
		t.Fatalf("doctor stopped after %d checks", len(checks))
	}
}
