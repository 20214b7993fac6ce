package ollama_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"

	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/agents/ollama"
	"github.com/ward-sim/ward/agents/ollamatest"
	"github.com/ward-sim/ward/memory"
)

// testStall keeps stall tests short. Only a reply scripted to stall ever meets it: every other
// reply is answered by a backend that waits an hour, so a loaded machine cannot fail a test.
const testStall = 100 * time.Millisecond

func newTestOllama(f *ollamatest.Fake, reply ollamatest.Reply) *ollama.Backend {
	stall := time.Hour
	if reply.Stall {
		stall = testStall
	}
	return ollama.New(f.Client(), ollamatest.TestModel, ollama.Options{StallTimeout: stall, FirstCall: stall})
}

func TestOllamaChatStreams(t *testing.T) {
	f := ollamatest.NewFake(t, ollamatest.Streamed("Hel", "lo ", "there"))
	req := llm.Request{
		Agent:     "patient",
		Messages:  []memory.Message{{Role: "user", Content: "how are you?"}},
		Options:   llm.Options{NumCtx: llm.DefaultNumCtx, NumPredict: 2000},
		KeepAlive: llm.DefaultKeepAlive,
	}
	var deltas []string
	resp, err := newTestOllama(f, ollamatest.Reply{}).Chat(context.Background(), req, func(d string) { deltas = append(deltas, d) })
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(deltas, []string{"Hel", "lo ", "there"}) {
		t.Errorf("deltas = %q", deltas)
	}
	if resp.Message.Content != "Hello there" || resp.Message.Role != "assistant" || resp.DoneReason != "stop" {
		t.Errorf("response = %+v", resp)
	}
	if resp.Metrics.PromptEvalCount != 42 || resp.Metrics.EvalCount != 7 {
		t.Errorf("metrics = %+v", resp.Metrics)
	}
	sent := f.Requests()[0]
	if sent.Model != ollamatest.TestModel || sent.Stream == nil || !*sent.Stream {
		t.Errorf("model %q stream %v", sent.Model, sent.Stream)
	}
	if sent.Options["num_ctx"] != float64(llm.DefaultNumCtx) || sent.KeepAlive == nil || sent.KeepAlive.Duration != llm.DefaultKeepAlive {
		t.Errorf("load options not passed through: %v keep_alive %v", sent.Options, sent.KeepAlive)
	}
}

// The caller runs the tools between the two calls; the backend must carry
// the tool calls out and the tool results back in.
func TestOllamaToolCallRoundTrip(t *testing.T) {
	call := api.ToolCall{Function: api.ToolCallFunction{Name: "check_vitals", Arguments: api.ToolCallFunctionArguments{"patient_id": "patient_4"}}}
	f := ollamatest.NewFake(t,
		ollamatest.Reply{Chunks: []api.ChatResponse{
			{Model: ollamatest.TestModel, Message: api.Message{Role: "assistant", ToolCalls: []api.ToolCall{call}}},
			ollamatest.DoneChunk("stop"),
		}},
		ollamatest.Streamed("Her SpO2 is 91%."),
	)
	o := newTestOllama(f, ollamatest.Reply{})
	req := llm.Request{
		Messages: []memory.Message{{Role: "user", Content: "check her vitals"}},
		Tools:    []llm.Tool{{Name: "check_vitals", Description: "measured vitals", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}},
	}
	first, err := o.Chat(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Message.ToolCalls) != 1 || first.Message.ToolCalls[0].Name != "check_vitals" {
		t.Fatalf("tool calls = %+v", first.Message.ToolCalls)
	}

	req.Messages = append(req.Messages, first.Message, memory.Message{Role: "tool", Content: `{"spo2":91}`})
	second, err := o.Chat(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if second.Message.Content != "Her SpO2 is 91%." {
		t.Errorf("second reply = %q", second.Message.Content)
	}

	sent := f.Requests()
	if len(sent) != 2 || len(sent[0].Tools) != 1 || sent[0].Tools[0].Function.Name != "check_vitals" {
		t.Fatalf("first request tools = %+v", sent[0].Tools)
	}
	got := sent[1].Messages
	if len(got) != 3 || len(got[1].ToolCalls) != 1 || got[2].Role != "tool" || got[2].Content != `{"spo2":91}` {
		t.Fatalf("second request messages = %+v", got)
	}
	if got[1].ToolCalls[0].Function.Arguments["patient_id"] != "patient_4" {
		t.Errorf("tool call arguments = %v", got[1].ToolCalls[0].Function.Arguments)
	}
}

func TestOllamaChatErrors(t *testing.T) {
	emptyMsg := "the model returned nothing — retry with ctrl+r"
	tests := []struct {
		name   string
		reply  ollamatest.Reply
		want   string
		isType func(error) bool
	}{
		{"empty answer", ollamatest.Streamed(), emptyMsg, isEmpty},
		{"whitespace answer", ollamatest.Streamed(" \n"), emptyMsg, isEmpty},
		{"length with no text", ollamatest.Reply{Chunks: []api.ChatResponse{ollamatest.DoneChunk("length")}}, emptyMsg, isEmpty},
		{"stall before any chunk", ollamatest.Reply{Stall: true}, "the model sent nothing for 100ms — ctrl+r retries (--stall sets how long ward waits)", isStall},
		{"no chunk at all", ollamatest.Reply{}, "Ollama's stream ended before a reply began: a line over 512 KiB (the client's limit) ends it there — check the server's log, then retry", func(error) bool { return true }},
		{"a line over the client's limit", ollamatest.Reply{Raw: `{"message":{"role":"assistant","content":"` + strings.Repeat("a", 600<<10) + `"}}` + "\n"},
			"Ollama's stream ended before a reply began: a line over 512 KiB (the client's limit) ends it there — check the server's log, then retry", func(error) bool { return true }},
		{"404 chat wording", ollamatest.NotFound(ollamatest.TestModel), "model tiny not found — ollama pull tiny", isNotFound},
		{"404 show wording", ollamatest.Reply{Status: http.StatusNotFound, Body: `{"error":"model 'tiny' not found"}`}, "model tiny not found — ollama pull tiny", isNotFound},
		{"server error", ollamatest.Reply{Status: http.StatusInternalServerError, Body: `{"error":"out of memory"}`}, "ollama: out of memory", func(error) bool { return true }},
		{"malformed JSON", ollamatest.Reply{Raw: "{\"message\":{\"role\":\"assistant\",\"content\":\"hi\"\n"},
			"Ollama sent a reply ward could not read (unmarshal: unexpected end of JSON input) — check the server's log, then retry", func(error) bool { return true }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := ollamatest.NewFake(t, tt.reply)
			_, err := newTestOllama(f, tt.reply).Chat(context.Background(), llm.Request{Messages: []memory.Message{{Role: "user", Content: "hi"}}}, nil)
			if err == nil || err.Error() != tt.want || !tt.isType(err) {
				t.Fatalf("err = %v (%T), want %q", err, err, tt.want)
			}
		})
	}
}

func TestOllamaEmptyReasons(t *testing.T) {
	tests := []struct {
		reply ollamatest.Reply
		want  string
	}{
		{ollamatest.Streamed(), "empty answer"},
		{ollamatest.Reply{Chunks: []api.ChatResponse{ollamatest.DoneChunk("length")}}, "num_predict reached before any text"},
	}
	for _, tt := range tests {
		f := ollamatest.NewFake(t, tt.reply)
		_, err := newTestOllama(f, tt.reply).Chat(context.Background(), llm.Request{}, nil)
		var empty *llm.EmptyError
		if !errors.As(err, &empty) || empty.Reason != tt.want {
			t.Errorf("err = %v, want reason %q", err, tt.want)
		}
	}
}

func TestOllamaRefused(t *testing.T) {
	u := ollamatest.RefusedURL(t)
	o := ollama.New(api.NewClient(u, http.DefaultClient), ollamatest.TestModel, ollama.Options{StallTimeout: testStall})
	want := "Ollama is not reachable at " + u.String() + " — start it with `ollama serve`, or run with --backend offline"

	_, err := o.Chat(context.Background(), llm.Request{}, nil)
	var unreachable *llm.UnreachableError
	if !errors.As(err, &unreachable) || err.Error() != want {
		t.Fatalf("Chat err = %v, want %q", err, want)
	}
	if _, err := o.Probe(context.Background()); err == nil || err.Error() != want {
		t.Fatalf("Probe err = %v, want %q", err, want)
	}
}

// Cancelling the turn is the caller's doing, not an empty answer.
func TestOllamaCallerCancel(t *testing.T) {
	f := ollamatest.NewFake(t, ollamatest.Reply{Stall: true})
	o := ollama.New(f.Client(), ollamatest.TestModel, ollama.Options{StallTimeout: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := o.Chat(ctx, llm.Request{}, nil)
	if !errors.Is(err, context.Canceled) || errors.Is(err, llm.ErrEmpty) {
		t.Fatalf("err = %v", err)
	}
}

func TestOllamaProbe(t *testing.T) {
	tests := []struct {
		name      string
		model     string
		show      api.ShowResponse
		wantTools bool
		wantErr   string
	}{
		{"tools capability", ollamatest.TestModel, api.ShowResponse{Capabilities: []model.Capability{model.CapabilityCompletion, model.CapabilityTools}}, true, ""},
		{"no tools capability", ollamatest.TestModel, api.ShowResponse{Capabilities: []model.Capability{model.CapabilityCompletion}, Template: "{{ .Tools }}"}, false, ""},
		{"template renders tools", ollamatest.TestModel, api.ShowResponse{Template: "{{ if .Tools }}{{ .Tools }}{{ end }}{{ .Messages }}"}, true, ""},
		{"template without tools", ollamatest.TestModel, api.ShowResponse{Template: "{{ .Messages }}"}, false, ""},
		{"embedding model", ollamatest.TestModel, api.ShowResponse{Capabilities: []model.Capability{model.CapabilityEmbedding}}, false, "model tiny cannot chat (capabilities: [embedding]) — choose another with --model"},
		{"missing model", "llama9", api.ShowResponse{}, false, "model llama9 not found — ollama pull llama9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := ollamatest.NewFake(t)
			f.SetShow(tt.show)
			caps, err := ollama.New(f.Client(), tt.model, ollama.Options{}).Probe(context.Background())
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || caps.Tools != tt.wantTools {
				t.Fatalf("caps = %+v, err = %v; want tools %v", caps, err, tt.wantTools)
			}
		})
	}
}

func isEmpty(err error) bool {
	var empty *llm.EmptyError
	return errors.Is(err, llm.ErrEmpty) && errors.As(err, &empty)
}

func isStall(err error) bool {
	var stall *llm.StallError
	return errors.As(err, &stall) && !errors.Is(err, llm.ErrEmpty)
}

func isNotFound(err error) bool {
	var nf *llm.ModelNotFoundError
	return errors.As(err, &nf)
}

// A stream the server ends without a done chunk keeps its text, marked as cut.
func TestOllamaReplyCutWithoutDone(t *testing.T) {
	cut := ollamatest.Streamed("I feel", " sick").Chunks
	f := ollamatest.NewFake(t, ollamatest.Reply{Chunks: cut[:len(cut)-1]})
	resp, err := newTestOllama(f, ollamatest.Reply{}).Chat(context.Background(), llm.Request{Messages: []memory.Message{{Role: "user", Content: "hi"}}}, nil)
	if err != nil || resp.Message.Content != "I feel sick" || resp.DoneReason != llm.DoneCut {
		t.Fatalf("got %q, %q, %v; want the text kept and done reason %q", resp.Message.Content, resp.DoneReason, err, llm.DoneCut)
	}
}

// Embed sends the texts to /api/embed and returns one vector per text, in order; a missing
// model is the typed error that says what to pull.
func TestOllamaEmbed(t *testing.T) {
	f := ollamatest.NewFake(t)
	b := ollama.New(f.Client(), ollamatest.TestModel, ollama.Options{})
	got, err := b.Embed(context.Background(), ollamatest.TestModel, []string{"adrenaline", "see"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0][0] != 10 || got[1][1] != 2 {
		t.Fatalf("embeddings = %v", got)
	}
	_, err = b.Embed(context.Background(), "nomic-embed-text", []string{"x"})
	var nf *llm.ModelNotFoundError
	if !errors.As(err, &nf) {
		t.Fatalf("missing embedding model: %v", err)
	}
}

// A reply that stalls after it began keeps what arrived, marked as stalled, so the trainee reads
// it and retries at once; one that runs away is cut at llm.MaxReplyBytes and marked too.
func TestOllamaKeepsWhatArrived(t *testing.T) {
	stalled := ollamatest.Reply{Chunks: ollamatest.Streamed("I feel", " sick").Chunks[:2], Stall: true}
	f := ollamatest.NewFake(t, stalled)
	resp, err := newTestOllama(f, stalled).Chat(context.Background(), llm.Request{}, nil)
	if err != nil || resp.Message.Content != "I feel sick" || resp.DoneReason != llm.DoneStalled {
		t.Fatalf("stalled mid-reply: %q %q %v", resp.Message.Content, resp.DoneReason, err)
	}

	huge := strings.Repeat("x", 64<<10)
	parts := []string{huge, huge, huge, huge, huge, huge}
	f = ollamatest.NewFake(t, ollamatest.Streamed(parts...))
	var streamed int
	resp, err = newTestOllama(f, ollamatest.Reply{}).Chat(context.Background(), llm.Request{}, func(d string) { streamed += len(d) })
	if err != nil || len(resp.Message.Content) != llm.MaxReplyBytes || resp.DoneReason != llm.DoneTooLong || streamed > llm.MaxReplyBytes {
		t.Fatalf("runaway reply: %d bytes kept, %d streamed, %q, %v", len(resp.Message.Content), streamed, resp.DoneReason, err)
	}
	if llm.Unfinished(resp.DoneReason) == "" {
		t.Error("a cut reply has no words to say why")
	}
}

// The first chunk may take as long as the model's measured pace says the prompt needs; before
// anything was measured, the first-call allowance.
func TestOllamaMeasuresItsPace(t *testing.T) {
	f := ollamatest.NewFake(t, ollamatest.Answer("fine"))
	b := newTestOllama(f, ollamatest.Reply{})
	if b.Pace().Measured() {
		t.Fatal("measured before any call")
	}
	if _, err := b.Chat(context.Background(), llm.Request{Messages: []memory.Message{{Role: "user", Content: "hi"}}}, nil); err != nil {
		t.Fatal(err)
	}
	if p := b.Pace(); !p.Measured() || p.ReplyPerToken != 2000/7 {
		t.Errorf("pace after one call: %+v (the fake reports 7 tokens in 2000 ns)", p)
	}
}

// A model that drips its reply never stalls, since each gap is short: the reply limit ends it,
// keeping what arrived, marked as cut, so that it is stored as a part and not as the whole.
func TestOllamaDripIsCutAtItsDeadline(t *testing.T) {
	drops := make([]string, 40)
	for i := range drops {
		drops[i] = "drip "
	}
	drip := ollamatest.Slow(ollamatest.Streamed(drops...), 4*time.Second) // a drop every 100 ms
	f := ollamatest.NewFake(t, drip)
	o := ollama.New(f.Client(), ollamatest.TestModel, ollama.Options{StallTimeout: time.Second, FirstCall: time.Second,
		ReplyLimit: 500 * time.Millisecond})
	started := time.Now()
	resp, err := o.Chat(context.Background(), llm.Request{}, nil)
	took := time.Since(started)
	if err != nil || resp.DoneReason != llm.DoneOverdue || !strings.HasPrefix(resp.Message.Content, "drip drip") {
		t.Fatalf("a dripping reply: %q %q %v", resp.Message.Content, resp.DoneReason, err)
	}
	if took > 2*time.Second {
		t.Errorf("the dripping reply held the call %s; its limit is 1.5 s", took)
	}
	if mark := llm.CutMark(resp.DoneReason); !strings.Contains(mark, "cut by ward") {
		t.Errorf("a reply ward cut has no mark: %q", mark)
	}
	if llm.CutMark(llm.DoneStalled) != "" {
		t.Error("a stalled reply, which the model stopped, is marked as cut by ward")
	}
}
