package agents

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/agents/ollama"
	"github.com/ward-sim/ward/agents/ollamatest"
	"github.com/ward-sim/ward/memory"
)

func teamHistory(msgs ...memory.Message) []memory.Message { return msgs }

func teamUser(text string) memory.Message { return memory.Message{Role: "user", Content: text} }

func teamSaid(agent, text string) memory.Message {
	return memory.Message{Role: "assistant", Agent: agent, Content: text}
}

func TestRouteByRules(t *testing.T) {
	team := mustTeam(t)
	handedToMonitor := teamHistory(teamUser("how is she?"), teamSaid(AgentOrchestrator, "The Monitor has the numbers. Back to you, Monitor."))
	tests := []struct {
		name    string
		history []memory.Message
		text    string
		agent   string
		source  string
	}{
		{"mention", nil, "@Pharmacist is ampicillin safe here?", AgentPharmacist, RouteMention},
		{"mention any case", nil, "@PRECEPTOR how am I doing", AgentPreceptor, RouteMention},
		{"mention prefix", nil, "@pharm dose?", AgentPharmacist, RouteMention},
		{"mention beats handoff", handedToMonitor, "@Patient where does it hurt?", AgentPatient, RouteMention},
		{"ambiguous prefix is no mention", nil, "@p where does it hurt", AgentPatient, RouteRule},
		{"unknown mention is no mention", nil, "@Radiology hello", AgentPatient, RouteRule},
		{"aar command", nil, "/aar", AgentPreceptor, RouteRule},
		{"vitals command", handedToMonitor, "/vitals", AgentMonitor, RouteRule},
		{"handoff command with args", nil, "/handoff sbar", AgentOrchestrator, RouteRule},
		{"command before stale handoff", handedToMonitor, "/aar", AgentPreceptor, RouteRule},
		{"session command", nil, "/wait 5m", AgentOrchestrator, RouteFallback},
		{"handoff in last agent message", handedToMonitor, "and the trend?", AgentMonitor, RouteHandoff},
		{"handoff answered already", append(handedToMonitor, teamSaid(AgentMonitor, "HR 110.")), "thanks", AgentPatient, RouteRule},
		{"bedside question", nil, "any allergies?", AgentPatient, RouteRule},
		{"bedside action", nil, "give 0.5 mg epinephrine IM and check her vitals", AgentPatient, RouteRule},
		{"bedside why to patient", nil, "why did you call the ambulance?", AgentPatient, RouteRule},
		{"what next", nil, "What should I do next?", AgentOrchestrator, RouteFallback},
		{"explain", nil, "explain why her SpO2 target is lower", AgentOrchestrator, RouteFallback},
		{"third person question", nil, "is she getting worse?", AgentOrchestrator, RouteFallback},
		{"feedback", nil, "how am I doing so far", AgentOrchestrator, RouteFallback},
		{"dose question", nil, "what's the dose of adrenaline in anaphylaxis", AgentPreceptor, RouteFallback}, // a protocol question: the cards answer it
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := team.Route(context.Background(), tt.history, tt.text)
			if r.Agent != tt.agent || r.Source != tt.source {
				t.Fatalf("Route(%q) = %s/%s (%s), want %s/%s", tt.text, r.Agent, r.Source, r.Reasoning, tt.agent, tt.source)
			}
			if r.Reasoning == "" {
				t.Error("every route records why")
			}
		})
	}
}

func TestRouteTeamQuestions(t *testing.T) {
	team := []string{
		"What should we do now?", "what’s next", "Should I give more fluids", "any hints?", "help me prioritise",
		"Please explain the NEWS2 bands", "walk me through the anaphylaxis algorithm", "why is her BP dropping",
		"what does a NEWS2 of 7 mean?", "is it safe to give morphine?", "any interactions with her meds",
		"What's the dose of adrenaline?", "how did I do", "debrief please", "has he had his antibiotics?",
	}
	bedside := []string{
		"what happened this morning?", "can I listen to your chest?", "do you have any allergies?",
		"what's your name?", "why are you here today?", "I'm going to give you some oxygen",
		"check her blood pressure", "she needs a bigger cannula", "explained to the patient what will happen",
	}
	for _, text := range team {
		if !isTeamQuestion(text) {
			t.Errorf("%q is a question for the team", text)
		}
	}
	for _, text := range bedside {
		if isTeamQuestion(text) {
			t.Errorf("%q is bedside talk or an action", text)
		}
	}
}

func TestRouteHandoffWording(t *testing.T) {
	team := mustTeam(t)
	tests := []struct {
		reply, speaker, want string
		ok                   bool
	}{
		{"Done. Back to you, Orchestrator.", AgentMonitor, AgentOrchestrator, true},
		{"back to you @pharmacist", AgentMonitor, AgentPharmacist, true},
		{"BACK TO YOU — Preceptor", AgentMonitor, AgentPreceptor, true},
		{"Back to you.", AgentMonitor, AgentOrchestrator, true},
		{"Back to you, trainee.", AgentPharmacist, AgentOrchestrator, true},
		{"Back to you, trainee: what next?", AgentOrchestrator, "", false},
		{"Back to you, Monitor.", AgentMonitor, AgentOrchestrator, true},
		{"No handoff here.", AgentMonitor, "", false},
	}
	for _, tt := range tests {
		got, ok := team.handoff(tt.reply, tt.speaker)
		if got != tt.want || ok != tt.ok {
			t.Errorf("handoff(%q, %s) = %q %v, want %q %v", tt.reply, tt.speaker, got, ok, tt.want, tt.ok)
		}
	}
}

func TestRouteAsksTheRouterModel(t *testing.T) {
	tests := []struct {
		name, content string
		status        int
		agent, source string
	}{
		{"verdict", `{"verdict":"Monitor","reasoning":"asks about the trend"}`, http.StatusOK, AgentMonitor, RouteLLM},
		{"verdict any case", `{"verdict":"pharmacist","reasoning":"a dose"}`, http.StatusOK, AgentPharmacist, RouteLLM},
		{"not an agent", `{"verdict":"Radiologist","reasoning":"imaging"}`, http.StatusOK, AgentOrchestrator, RouteRouterFailed},
		{"not json", `Monitor, I think`, http.StatusOK, AgentOrchestrator, RouteRouterFailed},
		{"model missing", ``, http.StatusNotFound, AgentOrchestrator, RouteRouterFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			team := mustTeam(t)
			reply := ollamatest.Answer(tt.content)
			if tt.status != http.StatusOK {
				reply = ollamatest.NotFound(ollamatest.TestModel)
			}
			f := ollamatest.NewFake(t, reply)
			team.Router = ollama.New(f.Client(), ollamatest.TestModel, ollama.Options{})
			r := team.Route(context.Background(), teamHistory(teamUser("give oxygen"), teamSaid(AgentPatient, "Thank you.")), "what should I do next?")
			if r.Agent != tt.agent || r.Source != tt.source {
				t.Fatalf("route = %s/%s (%s), want %s/%s", r.Agent, r.Source, r.Reasoning, tt.agent, tt.source)
			}
			if sent := f.Requests(); len(sent) != 1 {
				t.Fatalf("%d router calls, want 1", len(sent))
			} else {
				checkRouterRequest(t, team, sent[0])
			}
		})
	}
}

func checkRouterRequest(t *testing.T, team *Team, req ollamatest.ChatRequest) {
	t.Helper()
	var schema struct {
		Properties struct {
			Verdict   struct{ Enum []string }
			Reasoning struct{ MaxLength int }
		}
	}
	if err := json.Unmarshal(req.Format, &schema); err != nil {
		t.Fatalf("format is not a JSON schema: %v", err)
	}
	if strings.Join(schema.Properties.Verdict.Enum, ",") != strings.Join(team.Names(), ",") || schema.Properties.Reasoning.MaxLength != 300 {
		t.Errorf("schema = %s, want verdict enum of the team and reasoning maxLength 300", req.Format)
	}
	if req.Options["temperature"] != float64(0) {
		t.Errorf("temperature = %v, want 0", req.Options["temperature"])
	}
	last := req.Messages[len(req.Messages)-1].Content
	if !strings.Contains(last, "what should I do next?") || !strings.Contains(last, "Patient: Thank you.") {
		t.Errorf("router prompt lacks the message or the recent conversation:\n%s", last)
	}
}

// fixedRouter answers every chat with one fixed reply or error,
// overriding only what routing uses.
type fixedRouter struct {
	llm.Backend
	reply string
	err   error
	calls int
}

func (b *fixedRouter) Chat(context.Context, llm.Request, func(string)) (llm.Response, error) {
	b.calls++
	return llm.Response{Message: memory.Message{Role: "assistant", Content: b.reply}}, b.err
}

func TestRouteRouterOnlyForTeamQuestions(t *testing.T) {
	team := mustTeam(t)
	router := &fixedRouter{reply: `{"verdict":"Preceptor","reasoning":"teaching"}`}
	team.Router = router
	for _, text := range []string{"@Monitor trend?", "/vitals", "check her pulse", "where does it hurt?"} {
		if r := team.Route(context.Background(), nil, text); r.Source == RouteLLM {
			t.Errorf("%q went to the router", text)
		}
	}
	if router.calls != 0 {
		t.Fatalf("router called %d times for rule-decided messages", router.calls)
	}
	if r := team.Route(context.Background(), nil, "explain the NEWS2 bands"); r.Agent != AgentPreceptor || r.Source != RouteLLM {
		t.Errorf("team question = %+v, want Preceptor by llm", r)
	}
	router.err = errors.New("connection refused")
	if r := team.Route(context.Background(), nil, "explain the NEWS2 bands"); r.Agent != AgentOrchestrator || r.Source != RouteRouterFailed || !strings.Contains(r.Reasoning, "refused") {
		t.Errorf("router error = %+v, want Orchestrator, the router failed, with the cause", r)
	}
}

func BenchmarkRouteDecision(b *testing.B) {
	team := mustTeam(b)
	h := teamHistory(teamUser("check her vitals"), teamSaid(AgentPatient, "I feel dizzy."), teamUser("any allergies?"), teamSaid(AgentPatient, "Penicillin."))
	inputs := []string{
		"@Pharmacist is ampicillin safe?",
		"/vitals",
		"give 0.5 mg epinephrine IM, applying oxygen 15 L via non-rebreather",
		"any allergies to medicines?",
		"what should I do next?",
	}
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		team.Route(ctx, h, inputs[i%len(inputs)])
	}
}
