package session

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
)

// `ward run` shows pruning as it happens: a wait of five minutes on the monitor prunes the
// readings that repeat the last kept one (memory's vitals_repeat rule), and a conversation that
// outgrows the message window leaves its first messages behind (message_window). Each event names
// its rule, what it took out as a prompt showed it, and the tokens that saves; the trace keeps
// the same, numbered by turn, and the inspector's record of the turn holds it.
func TestRunReportsWhatPruningTookOut(t *testing.T) {
	input := []string{"/admit patient_1 asthma-exacerbation", "/vitals", "/wait 5m"}
	for i := range 10 {
		input = append(input, fmt.Sprintf("how is your breathing now? (%d)", i+1))
	}
	var trace bytes.Buffer
	r := newRigWith(t, func(c *Config) { c.Trace = llm.NewTraceWriter(&trace) })
	events := runJSON(t, r.s, lines(input...))

	rules := map[string]jsonEvent{}
	for i, turn := range byTurn(events) {
		for _, e := range ofKind(turn, "pruning") {
			pruned, _ := e["pruned"].([]any)
			if e.str("patient_id") != "patient_1" || len(pruned) == 0 || e.num("tokens_saved") <= 0 {
				t.Errorf("turn %d: pruning event %v, want the patient, what was pruned and the tokens saved", i+1, e)
			}
			rules[e.str("rule")] = e
			e["turn"] = float64(i + 1)
		}
	}
	vitals, ok := rules[memory.RuleVitalsRepeat]
	if !ok || vitals.num("turn") != 3 || !strings.Contains(fmt.Sprint(vitals["pruned"]), "HR ") {
		t.Fatalf("no vitals_repeat pruning on the /wait turn: %v", rules)
	}
	window, ok := rules[memory.RuleMessageWindow]
	if !ok || !strings.Contains(fmt.Sprint(window["pruned"]), "user: how is your breathing now? (1)") {
		t.Fatalf("no message_window pruning naming the first question: %v", rules)
	}

	runs, err := llm.ReadTrace(&trace)
	if err != nil {
		t.Fatal(err)
	}
	traced := map[string]int{}
	for _, p := range runs[0].Prunings {
		traced[p.Rule] = p.Turn
	}
	if traced[memory.RuleVitalsRepeat] != 3 || traced[memory.RuleMessageWindow] != int(window.num("turn")) {
		t.Errorf("the trace's prunings by turn: %v", traced)
	}
	var inspected []string
	for _, rec := range r.s.Turns() {
		for _, p := range rec.Pruned {
			inspected = append(inspected, p.Rule)
		}
	}
	if strings.Join(inspected, " ") != memory.RuleVitalsRepeat+" "+memory.RuleMessageWindow {
		t.Errorf("the inspector's turns hold prunings %v", inspected)
	}
}
