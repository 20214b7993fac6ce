package session

import (
	"context"
	"strings"
	"testing"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/agents/offline"
	"github.com/ward-sim/ward/memory"
)

// toolCallingModel calls check_vitals on its first request and answers on the second, recording
// what it was sent. It embeds Backend so it overrides only Chat.
type toolCallingModel struct {
	llm.Backend
	requests []llm.Request
}

func (m *toolCallingModel) Chat(_ context.Context, req llm.Request, onDelta func(string)) (llm.Response, error) {
	m.requests = append(m.requests, req)
	if len(m.requests) == 1 {
		call := memory.ToolCall{Name: agents.ToolCheckVitals, Args: map[string]any{}}
		return llm.Response{Message: memory.Message{Role: "assistant", ToolCalls: []memory.ToolCall{call}}, DoneReason: "stop"}, nil
	}
	reply := `{"reply":"Heart rate as measured.","entities_to_update":{},"derived_entities_to_update":{}}`
	onDelta(reply)
	return llm.Response{Message: memory.Message{Role: "assistant", Content: reply}, DoneReason: "stop"}, nil
}

func TestToolCallRoundTrip(t *testing.T) {
	r := newRig(t)
	model := &toolCallingModel{Backend: offline.New()}
	r.cfg.Backend, r.cfg.Tools = model, true
	r.restart()
	r.turn("/admit patient_1 asthma-exacerbation")
	model.requests = nil
	events := r.turn("@Monitor what are her numbers now?")

	if len(model.requests) != 2 {
		t.Fatalf("want a tool call then a second call, got %d requests", len(model.requests))
	}
	first, second := model.requests[0], model.requests[1]
	if len(first.Tools) != 1 || first.Tools[0].Name != agents.ToolCheckVitals || first.Format != nil {
		t.Errorf("first call should offer check_vitals without a JSON format: tools %v format %s", first.Tools, first.Format)
	}
	last := second.Messages[len(second.Messages)-1]
	if last.Role != "tool" || !strings.Contains(last.Content, `"spo2"`) || len(second.Tools) != 1 || second.Format == nil {
		t.Errorf("second call should end with the engine's reading, offer the same tools (the cached prompt start) and ask for the output format: %+v", last)
	}
	var vitals int
	for _, e := range events {
		if se, ok := e.(SimEvent); ok && se.Kind() == "vitals" {
			vitals++
		}
	}
	if vitals != 1 {
		t.Errorf("the tool's check should report one vitals event, got %d", vitals)
	}
	h := r.dump().Histories["patient_1"]
	var sawCall, sawResult bool
	for _, m := range h {
		sawCall = sawCall || (len(m.ToolCalls) == 1 && m.ToolCalls[0].Name == agents.ToolCheckVitals)
		sawResult = sawResult || (m.Role == "tool" && m.ToolName == agents.ToolCheckVitals && m.ToolCallID != "")
	}
	if !sawCall || !sawResult {
		t.Errorf("the interaction log lacks the tool call (%v) or its result (%v)", sawCall, sawResult)
	}
	if h[len(h)-1].Content != "Heart rate as measured." {
		t.Errorf("stored reply %q", h[len(h)-1].Content)
	}
}

// A message too long for the context is refused before any call, with a clear error; the text
// itself is stored.
func TestMessageTooLongForTheContext(t *testing.T) {
	r := newRig(t)
	r.turn("/admit patient_1 asthma-exacerbation")
	huge := strings.Repeat("she says the pain is everywhere and ", 2000) // about 18,000 tokens
	events := r.turn(huge)
	var code string
	for _, e := range events {
		if ee, ok := e.(ErrorEvent); ok {
			code = ee.Code
		}
		if _, ok := e.(LLMCallEvent); ok {
			t.Error("a prompt over num_ctx was sent")
		}
	}
	if code != "PROMPT_TOO_LONG" {
		t.Errorf("error code %q, want PROMPT_TOO_LONG", code)
	}
	h := r.dump().Histories["patient_1"]
	if h[len(h)-1].Content != huge {
		t.Error("the long message was not stored")
	}
}
