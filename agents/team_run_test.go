package agents

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ward-sim/ward/memory"
)

// table is a Speaker for tests: it answers each agent with its lines in turn, the last one
// repeating, keeps what was said like the session's history, and records what it heard.
type table struct {
	lines   map[string][]string
	history []memory.Message
	spoken  []string
	events  []TeamEvent
	line    []string // "Agent/source" per route, "gate:state" and "note:stop" per event, in order
}

func (tb *table) Speak(_ context.Context, a Agent, r Route) (string, error) {
	tb.line = append(tb.line, a.Name+"/"+r.Source)
	lines := tb.lines[a.Name]
	n := 0
	for _, name := range tb.spoken {
		if name == a.Name {
			n++
		}
	}
	tb.spoken = append(tb.spoken, a.Name)
	if len(lines) == 0 {
		return "", fmt.Errorf("%s has no lines", a.Name)
	}
	reply := lines[min(n, len(lines)-1)]
	tb.history = append(tb.history, memory.Message{Role: "assistant", Agent: a.Name, Content: reply})
	return reply, nil
}

func (tb *table) Hear(e TeamEvent) {
	tb.events = append(tb.events, e)
	switch e.Kind {
	case EventGate:
		tb.line = append(tb.line, "gate:"+e.Gate)
	case EventNote:
		tb.line = append(tb.line, "note:"+e.Stop)
	}
}

// turn runs one trainee message the way the session does: the history before the message goes
// to Run, then the message and the replies are kept. It returns the outcome and the event line.
func (tb *table) turn(t *testing.T, team *Team, text string) (Outcome, string) {
	t.Helper()
	before := append([]memory.Message(nil), tb.history...)
	tb.history = append(tb.history, memory.Message{Role: "user", Content: text})
	tb.line, tb.spoken = nil, nil
	out, err := team.Run(context.Background(), before, text, tb)
	if err != nil {
		t.Fatal(err)
	}
	return out, strings.Join(tb.line, " ")
}

// threeStepPlan is an Orchestrator's plan for the whole team, as it asks for confirmation.
const threeStepPlan = "Here is a plan, one team member at a time:\n1. Monitor — read the vitals.\n" +
	"2. Pharmacist — explain the verdicts.\n3. Preceptor — coach the next priority.\nShall I go ahead?"

func TestRunGateHoldsAfterPlanAndLiftsOnYes(t *testing.T) {
	team := mustTeam(t)
	table := &table{lines: map[string][]string{AgentOrchestrator: {threeStepPlan},
		AgentMonitor: {"HR 124."}, AgentPharmacist: {"No flag."}, AgentPreceptor: {"Reassess."}}}

	out, got := table.turn(t, team, "what should I do next?")
	if got != "Orchestrator/fallback gate:waiting" {
		t.Fatalf("planning turn events = %q", got)
	}
	if out != (Outcome{Messages: 1, End: EndGate}) {
		t.Fatalf("planning turn = %+v, want one message ending at the gate", out)
	}
	if g := team.GateOf(table.history); !g.Waiting {
		t.Fatal("the stored history must show the gate waiting")
	}

	out, got = table.turn(t, team, "Yes, go ahead.")
	want := "gate:lifted Monitor/rule Pharmacist/rule Preceptor/rule"
	if got != want {
		t.Fatalf("confirmed turn events = %q, want %q", got, want)
	}
	if out != (Outcome{Messages: 3, End: EndPlanDone}) {
		t.Fatalf("confirmed turn = %+v", out)
	}
	if g := team.GateOf(table.history); g.Waiting {
		t.Fatal("the gate must be lifted once the trainee answered")
	}
}

func TestRunGateDropsPlanOnNewInstruction(t *testing.T) {
	team := mustTeam(t)
	table := &table{lines: map[string][]string{AgentOrchestrator: {threeStepPlan}, AgentPatient: {"Thank you."}}}
	table.turn(t, team, "what should I do next?")
	if _, got := table.turn(t, team, "apply oxygen 15 L via non-rebreather"); got != "Patient/rule" {
		t.Fatalf("events = %q: anything but a confirmation is a new instruction", got)
	}
}

func TestRunMentionRoutesDirectly(t *testing.T) {
	team := mustTeam(t)
	table := &table{lines: map[string][]string{AgentPharmacist: {"HARD STOP on ampicillin."}}}
	out, got := table.turn(t, team, "@Pharmacist why was the ampicillin blocked?")
	if got != "Pharmacist/mention" || out.End != EndDone {
		t.Fatalf("events = %q, outcome %+v", got, out)
	}
}

func TestRunHandoffContinuesTheTurn(t *testing.T) {
	team := mustTeam(t)
	table := &table{lines: map[string][]string{AgentOrchestrator: {"That one is for the Monitor. Back to you, Monitor."}, AgentMonitor: {"HR 110."}}}
	out, got := table.turn(t, team, "@Orchestrator read me her vitals")
	if got != "Orchestrator/mention Monitor/handoff" {
		t.Fatalf("events = %q", got)
	}
	if out != (Outcome{Messages: 2, End: EndDone}) {
		t.Fatalf("outcome = %+v", out)
	}
}

func runScript(t *testing.T, team *Team, history []memory.Message, text string, lines map[string][]string) (Outcome, string, []TeamEvent) {
	t.Helper()
	tb := &table{lines: lines}
	out, err := team.Run(context.Background(), history, text, tb)
	if err != nil {
		t.Fatal(err)
	}
	return out, strings.Join(tb.line, " "), tb.events
}

func TestRunTermination(t *testing.T) {
	plan := teamHistory(teamUser("what next?"), teamSaid(AgentOrchestrator, twoStepPlan))
	tests := []struct {
		name    string
		history []memory.Message
		text    string
		lines   map[string][]string
		events  string
		out     Outcome
	}{
		{"question ends the turn", nil, "@Monitor trend?",
			map[string][]string{AgentMonitor: {"HR 110 and falling. Shall I keep watching?"}},
			"Monitor/mention", Outcome{1, EndQuestion}},
		{"question ends a plan early", plan, "ok",
			map[string][]string{AgentMonitor: {"SpO2 was not measured. Do you want to check it now?"}},
			"gate:lifted Monitor/rule", Outcome{1, EndQuestion}},
		{"handoff beats the question", nil, "@Monitor trend?",
			map[string][]string{AgentMonitor: {"Any more? Back to you, Orchestrator."}, AgentOrchestrator: {"Noted."}},
			"Monitor/mention Orchestrator/handoff", Outcome{2, EndDone}},
		{"snapshot never ends it", nil, "@Monitor trend?",
			map[string][]string{AgentMonitor: {`PATIENT_CONTEXT_JSON: {"patient_id":"patient_4"}`}, AgentOrchestrator: {"The Monitor has nothing new."}},
			"Monitor/mention Orchestrator/rule", Outcome{2, EndDone}},
		{"snapshot continues the plan", plan, "yes",
			map[string][]string{AgentMonitor: {"patient_context_json: {}"}, AgentPharmacist: {"No flag."}},
			"gate:lifted Monitor/rule Pharmacist/rule", Outcome{2, EndPlanDone}},
		{"handoff back to the orchestrator mid-plan", plan, "yes",
			map[string][]string{AgentMonitor: {"HR 110. Back to you, Orchestrator."}, AgentOrchestrator: {"Thanks. Next step."}, AgentPharmacist: {"No flag."}},
			"gate:lifted Monitor/rule Orchestrator/handoff Pharmacist/rule", Outcome{3, EndPlanDone}},
		{"handoff to the next step ticks it off", plan, "yes",
			map[string][]string{AgentMonitor: {"HR 110. Back to you, Pharmacist."}, AgentPharmacist: {"No flag."}},
			"gate:lifted Monitor/rule Pharmacist/handoff", Outcome{2, EndPlanDone}},
		{"orchestrator re-plans and waits again", plan, "yes",
			map[string][]string{AgentMonitor: {"SpO2 82%. Back to you, Orchestrator."}, AgentOrchestrator: {"New plan:\n1. Patient — ask about allergies\n2. Pharmacist — check the order\nConfirm?"}},
			"gate:lifted Monitor/rule Orchestrator/handoff gate:waiting", Outcome{2, EndGate}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, events, _ := runScript(t, mustTeam(t), tt.history, tt.text, tt.lines)
			if events != tt.events || out != tt.out {
				t.Fatalf("events %q, outcome %+v; want %q, %+v", events, out, tt.events, tt.out)
			}
		})
	}
}

func TestRunCapStopsALoop(t *testing.T) {
	circle := map[string][]string{
		AgentOrchestrator: {"Back to you, Monitor."},
		AgentMonitor:      {"Back to you, Pharmacist."},
		AgentPharmacist:   {"Back to you, Orchestrator."},
	}
	for _, limit := range []int{DefaultMaxMessages, 2} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			team := mustTeam(t)
			team.MaxMessages = limit
			out, _, events := runScript(t, team, nil, "@Orchestrator go", circle)
			if out != (Outcome{Messages: limit, End: EndCap}) {
				t.Fatalf("outcome = %+v, want %d messages ending at the cap", out, limit)
			}
			last := events[len(events)-1]
			if last.Kind != EventNote || last.Stop != EndCap || !strings.Contains(last.Text, fmt.Sprint(limit)) {
				t.Fatalf("last event = %+v, want a visible cap note", last)
			}
		})
	}
}

func TestRunLoopGuard(t *testing.T) {
	bounce := map[string][]string{
		AgentMonitor:    {"That's a drug question. Back to you, Pharmacist."},
		AgentPharmacist: {"That's a vitals question. Back to you, Monitor."},
	}
	out, line, events := runScript(t, mustTeam(t), nil, "@Monitor is the BP ok for GTN?", bounce)
	if line != "Monitor/mention Pharmacist/handoff Monitor/handoff note:loop" {
		t.Fatalf("events = %q", line)
	}
	if out != (Outcome{Messages: 3, End: EndLoop}) {
		t.Fatalf("outcome = %+v", out)
	}
	note := events[len(events)-1]
	if !strings.Contains(note.Text, AgentMonitor) || !strings.Contains(note.Text, AgentPharmacist) {
		t.Errorf("loop note %q must name both agents", note.Text)
	}
}

func TestRunStopsOnSpeakError(t *testing.T) {
	team := mustTeam(t)
	boom := errors.New("the model returned nothing")
	out, err := team.Run(context.Background(), nil, "hello", failing{boom})
	if !errors.Is(err, boom) || out.Messages != 0 {
		t.Fatalf("Run = %+v, %v; want the speak error and no messages", out, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := team.Run(ctx, nil, "hello", &table{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Run err = %v", err)
	}
}

// failing is a Speaker whose every agent fails with err.
type failing struct{ err error }

func (f failing) Speak(context.Context, Agent, Route) (string, error) { return "", f.err }
func (failing) Hear(TeamEvent)                                        {}

// echo is a Speaker whose every agent answers text, remembering the routes.
type echo struct {
	text   string
	routes []Route
}

func (e *echo) Speak(_ context.Context, a Agent, r Route) (string, error) {
	r.Agent = a.Name
	e.routes = append(e.routes, r)
	return e.text, nil
}
func (*echo) Hear(TeamEvent) {}

// FuzzTeamTurn feeds any text as the trainee's message and as every agent's
// reply: routing and plan parsing never panic, only team agents are named,
// and every turn ends within the cap with a reason.
func FuzzTeamTurn(f *testing.F) {
	for _, seed := range []string{
		"", "yes", "@", "@p", "@Pharmacist dose?", "/aar", "/", "back to you", "Back to you, Monitor.",
		twoStepPlan, "1. Patient\n2. Patient\n3. Orchestrator", "PATIENT_CONTEXT_JSON: {}", "what next?", "?",
		"- Monitor\n- back to you, Pharmacist", "\x00\xff", "BACK TO YOU @orch",
	} {
		f.Add(seed)
	}
	team := mustTeam(f)
	sources := []string{RouteMention, RouteHandoff, RouteRule, RouteLLM, RouteFallback, RouteRouterFailed}
	f.Fuzz(func(t *testing.T, text string) {
		for _, name := range team.PlanIn(text) {
			if _, ok := team.Agent(name); !ok {
				t.Fatalf("PlanIn named %q", name)
			}
		}
		if IsConfirmation(text) != IsConfirmation(text+" !") {
			t.Fatalf("punctuation changed IsConfirmation(%q)", text)
		}
		h := teamHistory(teamSaid(AgentOrchestrator, text))
		s := &echo{text: text}
		out, err := team.Run(context.Background(), h, text, s)
		if err != nil || out.End == "" || out.Messages < 1 || out.Messages > team.MaxMessages {
			t.Fatalf("Run(%q) = %+v, %v", text, out, err)
		}
		for _, r := range s.routes {
			if _, ok := team.Agent(r.Agent); !ok || !slices.Contains(sources, r.Source) {
				t.Fatalf("route %+v", r)
			}
		}
	})
}
