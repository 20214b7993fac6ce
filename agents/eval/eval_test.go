package eval

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/analyzer"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/agents/offline"
	"github.com/ward-sim/ward/memory"
)

func TestEvalDeltaOfflineHarness(t *testing.T) {
	r := EvalDelta(context.Background(), offline.New())
	if r.Total < 25 || r.Passed != r.Total || len(r.Failures()) != 0 {
		t.Fatalf("offline delta harness: %s", r)
	}
	var categories []string
	for _, c := range r.Categories {
		categories = append(categories, c.Category)
	}
	for _, want := range []string{"first_turn", "overwrite", "append", "mixed", "tool_results", "empty", "large", "malformed"} {
		if !slices.Contains(categories, want) {
			t.Errorf("no %s scenarios", want)
		}
	}
	if r.Rate != 1 || !strings.Contains(r.String(), "100.0%") {
		t.Errorf("report = %s", r)
	}
}

// cannedAgent answers every delta scenario with the same output and keeps
// the requests, standing in for a model.
type cannedAgent struct {
	llm.Backend
	output   string
	requests []llm.Request
}

func (c *cannedAgent) Name() string  { return "canned" }
func (c *cannedAgent) Model() string { return "canned-1" }

func (c *cannedAgent) Chat(_ context.Context, req llm.Request, _ func(string)) (llm.Response, error) {
	c.requests = append(c.requests, req)
	return llm.Response{Message: memory.Message{Role: "assistant", Content: c.output}}, nil
}

func TestEvalDeltaFailsNonConformingOutput(t *testing.T) {
	tests := []struct {
		name, output, reason string
	}{
		{"prose", "Sure, noted the diagnosis.", "not one JSON object"},
		{"legacy full state", `{"reply":"ok","entities":{"working_diagnosis":"x"}}`, "parsed as legacy"},
		{"missing derived", `{"reply":"ok","entities_to_update":{}}`, "missing derived_entities_to_update"},
		{"empty reply", `{"reply":"","entities_to_update":{},"derived_entities_to_update":{}}`, "empty reply"},
		{"derived key as conversation", `{"reply":"ok","entities_to_update":{"vitals_retrieved":1},"derived_entities_to_update":{}}`, "memory refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := EvalDelta(context.Background(), &cannedAgent{output: tt.output})
			if r.Passed == r.Total || !strings.Contains(r.String(), tt.reason) {
				t.Fatalf("want failures mentioning %q:\n%s", tt.reason, r)
			}
		})
	}
}

func TestEvalDeltaChecksKeysPerScenario(t *testing.T) {
	overwrite := deltaScenarios()[slices.IndexFunc(deltaScenarios(), func(s deltaScenario) bool { return s.Name == "handoff format changed" })]
	tests := []struct {
		name, output, reason string
	}{
		{"conforming", `{"reply":"I-PASS it is.","entities_to_update":{"Handoff Format Preference":"I-PASS"},"derived_entities_to_update":{}}`, ""},
		{"full state resent", `{"reply":"ok","entities_to_update":{"handoff_format_preference":"I-PASS","chief_complaint":"shortness of breath"},"derived_entities_to_update":{}}`, "resent unchanged chief_complaint"},
		{"key missing", `{"reply":"ok","entities_to_update":{},"derived_entities_to_update":{}}`, "lacks handoff_format_preference"},
	}
	for _, tt := range tests {
		if got := overwrite.check(tt.output); !strings.Contains(got, tt.reason) || (tt.reason == "") != (got == "") {
			t.Errorf("%s: check = %q, want %q", tt.name, got, tt.reason)
		}
	}
	empty := deltaScenarios()[slices.IndexFunc(deltaScenarios(), func(s deltaScenario) bool { return s.Category == "empty" })]
	if got := empty.check(`{"reply":"ok","entities_to_update":{"intent":"none"},"derived_entities_to_update":{}}`); !strings.Contains(got, "expected an empty delta") {
		t.Errorf("empty scenario with an update: %q", got)
	}
}

func TestEvalDeltaSendsTheAgentPrompt(t *testing.T) {
	agent := &cannedAgent{output: "{}"}
	EvalDelta(context.Background(), agent)
	if len(agent.requests) != len(deltaScenarios()) {
		t.Fatalf("%d requests for %d scenarios", len(agent.requests), len(deltaScenarios()))
	}
	for i, req := range agent.requests {
		sc := deltaScenarios()[i]
		if string(req.Format) != string(agents.AgentOutputSchema) || req.Agent != sc.Agent {
			t.Errorf("%s: format or agent wrong: %s %s", sc.Name, req.Agent, req.Format)
		}
		if !strings.Contains(req.Messages[0].Content, agents.DeltaOutputInstructions) {
			t.Errorf("%s: system text lacks the output instructions", sc.Name)
		}
		var entities string
		for _, m := range req.Messages {
			if text, ok := strings.CutPrefix(m.Content, "Entities you hold: "); ok && m.Role == "system" {
				entities = text
			}
		}
		if entities == "" {
			if len(sc.Known)+len(sc.KnownDerived) > 0 {
				t.Errorf("%s: the prompt lacks the known entities", sc.Name)
			}
			continue
		}
		var view struct{ Conversation, Derived map[string]any }
		if err := json.Unmarshal([]byte(entities), &view); err != nil {
			t.Fatalf("%s: entity context is not JSON: %v", sc.Name, err)
		}
		if len(view.Conversation) != len(sc.Known) || len(view.Derived) != len(sc.KnownDerived) {
			t.Errorf("%s: entity context %s does not match the known entities", sc.Name, entities)
		}
	}
}

// The eval's prompt is laid out as the session's: Prompt.Messages, with the entities after the
// earlier conversation and before the turn's user message and tool rounds.
func TestEvalDeltaLaysOutThePromptAsTheSession(t *testing.T) {
	team, err := agents.LoadTeam("")
	if err != nil {
		t.Fatal(err)
	}
	sc := deltaScenarios()[slices.IndexFunc(deltaScenarios(), func(s deltaScenario) bool { return s.Name == "legacy reply in history" })]
	req, err := sc.request(team)
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range req.Messages {
		roles = append(roles, m.Role)
	}
	if got := strings.Join(roles, ","); got != "system,user,assistant,system,user" {
		t.Fatalf("roles = %s, want static, history, entities, then the turn", got)
	}
	if !strings.HasPrefix(req.Messages[3].Content, "Entities you hold: ") || req.Messages[4].Content != sc.Messages[2].Content {
		t.Errorf("messages = %+v", req.Messages)
	}
	tools := deltaScenarios()[slices.IndexFunc(deltaScenarios(), func(s deltaScenario) bool { return s.Name == "vitals read" })]
	if req, _ := tools.request(team); req.Messages[len(req.Messages)-1].Role != "tool" {
		t.Errorf("the tool round must follow the user message: %+v", req.Messages)
	}
}

func TestEvalAnalyzerOfflineHarness(t *testing.T) {
	r := EvalAnalyzer(context.Background(), analyzer.NewAnalyzer(nil))
	if r.Total < 40 || r.Passed != r.Total {
		t.Fatalf("rules analyzer on the labelled set: %s", r)
	}
	if r.Backend != analyzer.SourceRules {
		t.Errorf("Backend = %q, want the decision source rules", r.Backend)
	}
}

// brokenModel is an analyzer whose model never answers, so every decision
// is the rules' fallback. It embeds the interface: the eval only calls Analyze.
type brokenModel struct{ analyzer.Analyzer }

func (brokenModel) Analyze(ctx context.Context, in analyzer.AnalyzerInput) analyzer.Decision {
	d := analyzer.RulesAnalyzer{}.Analyze(ctx, in)
	d.Source = analyzer.SourceFallback
	return d
}

func TestEvalAnalyzerFailsFallbacks(t *testing.T) {
	r := EvalAnalyzer(context.Background(), brokenModel{})
	if r.Passed != 0 || len(r.Failures()) != r.Total || !strings.Contains(r.Failures()[0].Reason, "no usable answer") {
		t.Fatalf("fallback decisions must fail: %s", r)
	}
}

func TestEvalAnalyzerReportsWrongDecisions(t *testing.T) {
	r := EvalAnalyzer(context.Background(), fixedDecision(func(context.Context, analyzer.AnalyzerInput) analyzer.Decision {
		return analyzer.Decision{Action: analyzer.ActionNone, Source: analyzer.SourceLLM}
	}))
	if r.Passed == 0 || r.Passed == r.Total || !strings.Contains(r.String(), `want ACTIVATE_NEW "patient_4", got NONE ""`) {
		t.Fatalf("report = %s", r)
	}
}

// fixedDecision adapts a function to the Analyzer interface; like a model, it never decides
// immediately.
type fixedDecision func(context.Context, analyzer.AnalyzerInput) analyzer.Decision

func (f fixedDecision) Analyze(ctx context.Context, in analyzer.AnalyzerInput) analyzer.Decision {
	return f(ctx, in)
}
func (fixedDecision) Immediate(analyzer.AnalyzerInput) (analyzer.Decision, bool) {
	return analyzer.Decision{}, false
}
