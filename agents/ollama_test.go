package agents

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// testStall keeps stall tests short; nothing asserts on timing.
const testStall = 100 * time.Millisecond

func newTestOllama(t *testing.T, f *fakeOllama) *Ollama {
	return NewOllama(f.client(t), testModel, OllamaOptions{StallTimeout: testStall})
}

func TestOllamaChatStreams(t *testing.T) {
	f := newFakeOllama(t, streamed("Hel", "lo ", "there"))
	keepAlive := &api.Duration{Duration: DefaultKeepAlive}
	req := Request{
		Agent:     "patient",
		Messages:  []api.Message{{Role: "user", Content: "how are you?"}},
		Options:   map[string]any{"num_ctx": DefaultNumCtx, "num_predict": 2000},
		KeepAlive: keepAlive,
	}
	var deltas []string
	resp, err := newTestOllama(t, f).Chat(context.Background(), req, func(d string) { deltas = append(deltas, d) })
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
	sent := f.chatRequests()[0]
	if sent.Model != testModel || sent.Stream == nil || !*sent.Stream {
		t.Errorf("model %q stream %v", sent.Model, sent.Stream)
	}
	if sent.Options["num_ctx"] != float64(DefaultNumCtx) || sent.KeepAlive == nil || sent.KeepAlive.Duration != DefaultKeepAlive {
		t.Errorf("load options not passed through: %v keep_alive %v", sent.Options, sent.KeepAlive)
	}
}

// The caller runs the tools between the two calls; the backend must carry
// the tool calls out and the tool results back in.
func TestOllamaToolCallRoundTrip(t *testing.T) {
	call := api.ToolCall{Function: api.ToolCallFunction{Name: "check_vitals", Arguments: api.ToolCallFunctionArguments{"patient_id": "patient_4"}}}
	f := newFakeOllama(t,
		fakeReply{chunks: []api.ChatResponse{
			{Model: testModel, Message: api.Message{Role: "assistant", ToolCalls: []api.ToolCall{call}}},
			doneChunk("stop"),
		}},
		streamed("Her SpO2 is 91%."),
	)
	o := newTestOllama(t, f)
	req := Request{
		Messages: []api.Message{{Role: "user", Content: "check her vitals"}},
		Tools:    api.Tools{{Type: "function", Function: api.ToolFunction{Name: "check_vitals", Description: "measured vitals"}}},
	}
	first, err := o.Chat(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Message.ToolCalls) != 1 || first.Message.ToolCalls[0].Function.Name != "check_vitals" {
		t.Fatalf("tool calls = %+v", first.Message.ToolCalls)
	}

	req.Messages = append(req.Messages, first.Message, api.Message{Role: "tool", Content: `{"spo2":91}`})
	second, err := o.Chat(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if second.Message.Content != "Her SpO2 is 91%." {
		t.Errorf("second reply = %q", second.Message.Content)
	}

	sent := f.chatRequests()
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
		reply  fakeReply
		want   string
		isType func(error) bool
	}{
		{"empty answer", streamed(), emptyMsg, isEmpty},
		{"whitespace answer", streamed(" \n"), emptyMsg, isEmpty},
		{"length with no text", fakeReply{chunks: []api.ChatResponse{doneChunk("length")}}, emptyMsg, isEmpty},
		{"stall before any chunk", fakeReply{stall: true}, emptyMsg, isEmpty},
		{"stall mid-stream", fakeReply{chunks: streamed("I feel").chunks[:1], stall: true}, emptyMsg, isEmpty},
		{"no done chunk", fakeReply{}, emptyMsg, isEmpty},
		{"404 chat wording", notFound(testModel), "model tiny not found — ollama pull tiny", isNotFound},
		{"404 show wording", fakeReply{status: http.StatusNotFound, body: `{"error":"model 'tiny' not found"}`}, "model tiny not found — ollama pull tiny", isNotFound},
		{"server error", fakeReply{status: http.StatusInternalServerError, body: `{"error":"out of memory"}`}, "ollama: out of memory", func(error) bool { return true }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeOllama(t, tt.reply)
			_, err := newTestOllama(t, f).Chat(context.Background(), Request{Messages: []api.Message{{Role: "user", Content: "hi"}}}, nil)
			if err == nil || err.Error() != tt.want || !tt.isType(err) {
				t.Fatalf("err = %v (%T), want %q", err, err, tt.want)
			}
		})
	}
}

func TestOllamaEmptyReasons(t *testing.T) {
	tests := []struct {
		reply fakeReply
		want  string
	}{
		{streamed(), "empty answer"},
		{fakeReply{chunks: []api.ChatResponse{doneChunk("length")}}, "num_predict reached before any text"},
		{fakeReply{stall: true}, "stalled: 100ms without a chunk"},
	}
	for _, tt := range tests {
		f := newFakeOllama(t, tt.reply)
		_, err := newTestOllama(t, f).Chat(context.Background(), Request{}, nil)
		var empty *EmptyError
		if !errors.As(err, &empty) || empty.Reason != tt.want {
			t.Errorf("err = %v, want reason %q", err, tt.want)
		}
	}
}

func TestOllamaRefused(t *testing.T) {
	u := refusedURL(t)
	o := NewOllama(api.NewClient(u, http.DefaultClient), testModel, OllamaOptions{StallTimeout: testStall})
	want := "Ollama is not reachable at " + u.String() + " — start it with `ollama serve`, or run with --backend offline"

	_, err := o.Chat(context.Background(), Request{}, nil)
	var unreachable *UnreachableError
	if !errors.As(err, &unreachable) || err.Error() != want {
		t.Fatalf("Chat err = %v, want %q", err, want)
	}
	if _, err := o.Probe(context.Background()); err == nil || err.Error() != want {
		t.Fatalf("Probe err = %v, want %q", err, want)
	}
}

// Cancelling the turn is the caller's doing, not an empty answer.
func TestOllamaCallerCancel(t *testing.T) {
	f := newFakeOllama(t, fakeReply{stall: true})
	o := NewOllama(f.client(t), testModel, OllamaOptions{StallTimeout: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := o.Chat(ctx, Request{}, nil)
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrEmpty) {
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
		{"tools capability", testModel, api.ShowResponse{Capabilities: []model.Capability{model.CapabilityCompletion, model.CapabilityTools}}, true, ""},
		{"no tools capability", testModel, api.ShowResponse{Capabilities: []model.Capability{model.CapabilityCompletion}, Template: "{{ .Tools }}"}, false, ""},
		{"template renders tools", testModel, api.ShowResponse{Template: "{{ if .Tools }}{{ .Tools }}{{ end }}{{ .Messages }}"}, true, ""},
		{"template without tools", testModel, api.ShowResponse{Template: "{{ .Messages }}"}, false, ""},
		{"embedding model", testModel, api.ShowResponse{Capabilities: []model.Capability{model.CapabilityEmbedding}}, false, "model tiny cannot chat (capabilities: [embedding]) — choose another with --model"},
		{"missing model", "llama9", api.ShowResponse{}, false, "model llama9 not found — ollama pull llama9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeOllama(t)
			f.show = tt.show
			caps, err := NewOllama(f.client(t), tt.model, OllamaOptions{}).Probe(context.Background())
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
	var empty *EmptyError
	return errors.Is(err, ErrEmpty) && errors.As(err, &empty)
}

func isNotFound(err error) bool {
	var nf *ModelNotFoundError
	return errors.As(err, &nf)
}

// A stream the server ends without a done chunk keeps its text, marked as cut.
func TestOllamaReplyCutWithoutDone(t *testing.T) {
	cut := streamed("I feel", " sick").chunks
	f := newFakeOllama(t, fakeReply{chunks: cut[:len(cut)-1]})
	resp, err := newTestOllama(t, f).Chat(context.Background(), Request{Messages: []api.Message{{Role: "user", Content: "hi"}}}, nil)
	if err != nil || resp.Message.Content != "I feel sick" || resp.DoneReason != DoneCut {
		t.Fatalf("got %q, %q, %v; want the text kept and done reason %q", resp.Message.Content, resp.DoneReason, err, DoneCut)
	}
}
