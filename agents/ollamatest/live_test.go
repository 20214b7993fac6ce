package ollamatest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ollama/ollama/api"
	"github.com/ward-sim/ward/agents/ollamatest"
)

// The live tests run against a real `ollama serve` serving the tiny model. They are skipped
// unless WARD_LIVE_OLLAMA=1 (.ci/run sets it).

var live *ollamatest.Server

func TestMain(m *testing.M) {
	if os.Getenv("WARD_LIVE_OLLAMA") != "1" {
		os.Exit(m.Run())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	srv, err := ollamatest.Start(ctx)
	if err == nil {
		err = ollamatest.CreateTinyModel(ctx, srv.Client, ollamatest.ModelName)
	}
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "live ollama:", err)
		if srv != nil {
			fmt.Fprintln(os.Stderr, srv.LogTail(4000))
			srv.Stop()
		}
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

func liveClient(t *testing.T) *api.Client {
	t.Helper()
	if live == nil {
		t.Skip("set WARD_LIVE_OLLAMA=1 to run against a real ollama serve")
	}
	return live.Client
}

// Every request uses the same load options (num_ctx above all): a change makes Ollama reload the
// model and drop its KV cache.
const numCtx = 8192

func options(numPredict int) map[string]any {
	return map[string]any{"num_ctx": numCtx, "num_predict": numPredict, "seed": 7}
}

type reply struct {
	content string
	chunks  int // streamed chunks that carried text
	final   api.ChatResponse
}

// chat sends one streaming chat request and collects the reply.
func chat(ctx context.Context, c *api.Client, req *api.ChatRequest) (reply, error) {
	var r reply
	err := c.Chat(ctx, req, func(resp api.ChatResponse) error {
		if resp.Message.Content != "" {
			r.chunks++
			r.content += resp.Message.Content
		}
		if resp.Done {
			r.final = resp
		}
		return nil
	})
	return r, err
}

func TestLiveStreamingChat(t *testing.T) {
	c := liveClient(t)
	r, err := chat(t.Context(), c, &api.ChatRequest{
		Model:    ollamatest.ModelName,
		Messages: []api.Message{{Role: "system", Content: "You are a patient."}, {Role: "user", Content: "How are you?"}},
		Options:  options(32),
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.chunks < 2 {
		t.Errorf("reply came in %d chunk(s), want a stream of more than one", r.chunks)
	}
	if !r.final.Done || r.final.PromptEvalCount == 0 || r.final.EvalCount == 0 {
		t.Errorf("final chunk lacks metrics: %+v", r.final)
	}
	t.Logf("%d chunks, done_reason %q: %q", r.chunks, r.final.DoneReason, r.content)
}

// decisionSchema is the analyzer's structured-output schema. Every string is bounded, so even
// random weights finish well inside num_predict.
const decisionSchema = `{
  "type": "object",
  "properties": {
    "action": {"type": "string", "enum": ["NONE", "ACTIVATE_NEW", "SWITCH_EXISTING", "UNCHANGED", "CLEAR"]},
    "patient_id": {"type": ["string", "null"], "maxLength": 64},
    "reasoning": {"type": "string", "maxLength": 300}
  },
  "required": ["action", "patient_id", "reasoning"],
  "additionalProperties": false
}`

func TestLiveFormatSchemaGivesValidJSON(t *testing.T) {
	c := liveClient(t)
	for seed := range 3 {
		opts := options(1024)
		opts["seed"] = seed
		stream := false
		r, err := chat(t.Context(), c, &api.ChatRequest{
			Model:    ollamatest.ModelName,
			Messages: []api.Message{{Role: "user", Content: "review patient_1"}},
			Format:   json.RawMessage(decisionSchema),
			Stream:   &stream,
			Options:  opts,
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := validDecision([]byte(r.content)); err != nil {
			t.Errorf("seed %d: %v (done_reason %q): %s", seed, err, r.final.DoneReason, r.content)
		}
		t.Logf("seed %d, %d tokens: %s", seed, r.final.EvalCount, r.content)
	}
}

// validDecision checks a reply against decisionSchema.
func validDecision(b []byte) error {
	var d map[string]json.RawMessage
	if err := json.Unmarshal(b, &d); err != nil {
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
	switch action {
	case "NONE", "ACTIVATE_NEW", "SWITCH_EXISTING", "UNCHANGED", "CLEAR":
	default:
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

// With api v0.6.5, Show reports a missing model as a 404 StatusError, but Chat (which always
// streams) turns the 404's body into a plain error: a backend must recognise both.
func TestLiveMissingModelIs404(t *testing.T) {
	c := liveClient(t)
	const missing = "ward-no-such-model"

	_, err := c.Show(t.Context(), &api.ShowRequest{Model: missing})
	var status api.StatusError
	if !errors.As(err, &status) || status.StatusCode != http.StatusNotFound {
		t.Errorf("show: err = %v, want a 404 StatusError", err)
	}

	_, err = chat(t.Context(), c, &api.ChatRequest{
		Model:    missing,
		Messages: []api.Message{{Role: "user", Content: "hello"}},
	})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("model %q not found", missing)) {
		t.Errorf("chat: err = %v, want model %q not found", err, missing)
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

func TestLiveKeepAlive(t *testing.T) {
	c := liveClient(t)
	ctx := t.Context()
	before := time.Now()
	_, err := chat(ctx, c, &api.ChatRequest{
		Model:     ollamatest.ModelName,
		Messages:  []api.Message{{Role: "user", Content: "hello"}},
		KeepAlive: &api.Duration{Duration: 30 * time.Minute},
		Options:   options(4),
	})
	if err != nil {
		t.Fatal(err)
	}
	m, ok := running(t, c)
	if !ok {
		t.Fatal("model not loaded after a request with keep_alive 30m")
	}
	if left := m.ExpiresAt.Sub(before); left < 29*time.Minute || left > 31*time.Minute {
		t.Errorf("expires_at is %s after the request, want about 30m", left.Round(time.Second))
	}

	if err := unload(ctx, c); err != nil {
		t.Fatal(err)
	}
}

// running reports the tiny model's entry in /api/ps.
func running(t *testing.T, c *api.Client) (api.ProcessModelResponse, bool) {
	t.Helper()
	ps, err := c.ListRunning(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ps.Models {
		if m.Model == ollamatest.ModelName+":latest" {
			return m, true
		}
	}
	return api.ProcessModelResponse{}, false
}

// unload sends keep_alive 0 and waits until /api/ps no longer lists the model.
func unload(ctx context.Context, c *api.Client) error {
	err := c.Chat(ctx, &api.ChatRequest{
		Model:     ollamatest.ModelName,
		KeepAlive: &api.Duration{Duration: 0},
	}, func(api.ChatResponse) error { return nil })
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		ps, err := c.ListRunning(ctx)
		if err != nil {
			return fmt.Errorf("model still loaded after keep_alive 0: %w", err)
		}
		if len(ps.Models) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.New("model still loaded 30s after keep_alive 0")
		case <-time.After(100 * time.Millisecond):
		}
	}
}
