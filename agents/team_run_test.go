package agents

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/ward-sim/ward/memory"
)

// offlineTable plays a whole team with no model, as the offline backend
// does: the team replies from the engine's facts, the Patient from its
// persona. It keeps what was said, like the session's history.
type offlineTable struct {
	facts   TeamFacts
	history []memory.Message
	spoken  []string
}

func (o *offlineTable) speak(ctx context.Context, a Agent) (string, error) {
	reply, ok := OfflineTeamReply(a.Name, o.facts)
	if !ok {
		scene := &Scene{Agent: strings.ToLower(a.Name), Persona: &Persona{
			Name: "Ana", Age: 34, ChiefComplaint: "trouble breathing", Lines: []string{"It's hard to breathe."},
		}}
		resp, err := NewOffline().Chat(ctx, Request{Agent: a.Name, Scene: scene, Messages: []api.Message{{Role: "user", Content: o.facts.Input}}}, nil)
		if err != nil {
			return "", err
		}
		reply = resp.Message.Content
	}
	o.spoken = append(o.spoken, a.Name)
	o.history = append(o.history, memory.Message{Role: "assistant", Agent: a.Name, Content: reply})
	return reply, nil
}

// turn runs one trainee message the way the session does: history before
// the message goes to Run, then the message and the replies are kept.
func (o *offlineTable) turn(t *testing.T, team *Team, text string) (Outcome, []TeamEvent) {
	t.Helper()
	before := append([]memory.Message(nil), o.history...)
	o.history = append(o.history, memory.Message{Role: "user", Content: text})
	o.facts.Input, o.spoken = text, nil
	var events []TeamEvent
	out, err := team.Run(context.Background(), before, text, o.speak, func(e TeamEvent) { events = append(events, e) })
	if err != nil {
		t.Fatal(err)
	}
	return out, events
}

// eventLine renders events compactly for comparison.
func eventLine(events []TeamEvent) string {
	var parts []string
	for _, e := range events {
		switch e.Kind {
		case EventRoute:
			parts = append(parts, e.Agent+"/"+e.Source)
		case EventGate:
			parts = append(parts, "gate:"+e.Gate)
		case EventNote:
			parts = append(parts, "note:"+e.Stop)
		}
	}
	return strings.Join(parts, " ")
}

func TestRunGateHoldsAfterPlanAndLiftsOnYes(t *testing.T) {
	team := mustTeam(t)
	table := &offlineTable{facts: TeamFacts{
		Readings: []VitalsReading{{T: 60, Vitals: memory.Vitals{HR: 124, SpO2: 88}}},
		Orders:   []MedicationOrder{{Drug: "epinephrine", DoseMg: 0.5, Route: "IM"}},
	}}

	out, events := table.turn(t, team, "what should I do next?")
	if got := eventLine(events); got != "Orchestrator/fallback gate:waiting" {
		t.Fatalf("planning turn events = %q", got)
	}
	if out != (Outcome{Messages: 1, End: EndGate}) {
		t.Fatalf("planning turn = %+v, want one message ending at the gate", out)
	}
	if g := team.GateOf(table.history); !g.Waiting {
		t.Fatal("the stored history must show the gate waiting")
	}

	out, events = table.turn(t, team, "Yes, go ahead.")
	want := "gate:lifted Monitor/rule Pharmacist/rule Preceptor/rule"
	if got := eventLine(events); got != want {
		t.Fatalf("confirmed turn events = %q, want %q", got, want)
	}
	if out != (Outcome{Messages: 3, End: EndPlanDone}) {
		t.Fatalf("confirmed turn = %+v", out)
	}
	if g := team.GateOf(table.history); g.Waiting {
		t.Fatal("the gate must be lifted once the trainee answered")
	}
}

func TestRunAcceptsHistoryEndingWithTheMessage(t *testing.T) {
	plan := teamHistory(teamUser("what next?"), teamSaid(AgentOrchestrator, twoStepPlan), teamUser("yes"))
	_, events, _ := runScript(t, mustTeam(t), plan, "yes", map[string][]string{AgentMonitor: {"HR 110."}, AgentPharmacist: {"No flag."}})
	if events != "gate:lifted Monitor/rule Pharmacist/rule" {
		t.Fatalf("events = %q: the persisted confirmation must still lift the gate", events)
	}
}

func TestRunGateDropsPlanOnNewInstruction(t *testing.T) {
	team := mustTeam(t)
	table := &offlineTable{}
	table.turn(t, team, "what should I do next?")
	_, events := table.turn(t, team, "apply oxygen 15 L via non-rebreather")
	if got := eventLine(events); got != "Patient/rule" {
		t.Fatalf("events = %q: anything but a confirmation is a new instruction", got)
	}
}

func TestRunMentionRoutesDirectly(t *testing.T) {
	team := mustTeam(t)
	table := &offlineTable{facts: TeamFacts{
		Orders:   []MedicationOrder{{Drug: "ampicillin", DoseMg: 1000, Route: "IV"}},
		Verdicts: []SafetyVerdict{{Level: "hard_stop", Drug: "ampicillin", Reason: "penicillin allergy covers ampicillin"}},
	}}
	out, events := table.turn(t, team, "@Pharmacist why was the ampicillin blocked?")
	if got := eventLine(events); got != "Pharmacist/mention" || out.End != EndDone {
		t.Fatalf("events = %q, outcome %+v", got, out)
	}
	if reply := table.history[len(table.history)-1].Content; !strings.Contains(reply, "HARD STOP") || !strings.Contains(reply, "penicillin allergy") {
		t.Errorf("Pharmacist reply %q does not voice the engine's verdict", reply)
	}
}

func TestRunHandoffContinuesTheTurn(t *testing.T) {
	team := mustTeam(t)
	table := &offlineTable{facts: TeamFacts{Readings: []VitalsReading{{T: 90, Vitals: memory.Vitals{HR: 110}}}}}
	out, events := table.turn(t, team, "@Orchestrator read me her vitals")
	if got := eventLine(events); got != "Orchestrator/mention Monitor/handoff" {
		t.Fatalf("events = %q", got)
	}
	if out != (Outcome{Messages: 2, End: EndDone}) {
		t.Fatalf("outcome = %+v", out)
	}
}

// scriptedTable answers each agent with its lines in turn, the last one
// repeating, so a test can drive any conversation shape.
type scriptedTable struct {
	lines  map[string][]string
	spoken []string
}

func (s *scriptedTable) speak(_ context.Context, a Agent) (string, error) {
	lines := s.lines[a.Name]
	n := 0
	for _, name := range s.spoken {
		if name == a.Name {
			n++
		}
	}
	s.spoken = append(s.spoken, a.Name)
	if len(lines) == 0 {
		return "", fmt.Errorf("%s has no lines", a.Name)
	}
	return lines[min(n, len(lines)-1)], nil
}

func runScript(t *testing.T, team *Team, history []memory.Message, text string, lines map[string][]string) (Outcome, string, []TeamEvent) {
	t.Helper()
	s := &scriptedTable{lines: lines}
	var events []TeamEvent
	out, err := team.Run(context.Background(), history, text, s.speak, func(e TeamEvent) { events = append(events, e) })
	if err != nil {
		t.Fatal(err)
	}
	return out, eventLine(events), events
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
	out, err := team.Run(context.Background(), nil, "hello", func(context.Context, Agent) (string, error) { return "", boom }, nil)
	if !errors.Is(err, boom) || out.Messages != 0 {
		t.Fatalf("Run = %+v, %v; want the speak error and no messages", out, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := team.Run(ctx, nil, "hello", (&scriptedTable{}).speak, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Run err = %v", err)
	}
}

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
	sources := []string{RouteMention, RouteHandoff, RouteRule, RouteLLM, RouteFallback}
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
		var events []TeamEvent
		out, err := team.Run(context.Background(), h, text, func(context.Context, Agent) (string, error) { return text, nil },
			func(e TeamEvent) { events = append(events, e) })
		if err != nil || out.End == "" || out.Messages < 1 || out.Messages > team.MaxMessages {
			t.Fatalf("Run(%q) = %+v, %v", text, out, err)
		}
		for _, e := range events {
			if e.Kind != EventRoute {
				continue
			}
			if _, ok := team.Agent(e.Agent); !ok || !slices.Contains(sources, e.Source) {
				t.Fatalf("route event %+v", e)
			}
		}
	})
}
