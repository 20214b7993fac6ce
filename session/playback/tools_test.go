package playback

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/agents/ollama"
	"github.com/ward-sim/ward/agents/ollamatest"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/sessiontest"
)

const (
	breathless = `{"reply":"I can't get my breath.","entities_to_update":{},"derived_entities_to_update":{}}`
	noAllergy  = `{"reply":"No allergies that I know of.","entities_to_update":{},"derived_entities_to_update":{}}`
	quote      = "I can't breathe"
)

// The two-call tool flow of seeds 003 and 004, end to end through the Ollama client (agents/ollama
// against an httptest server speaking NDJSON). The Patient, offered record_quote, answers a
// question with five calls in one message: a valid one, the same again (the tool fails: memory
// holds that text already), one whose argument has the wrong type, one of a tool offered to
// another agent and one of no tool at all. ward validates each, runs only the valid one, and
// the second call carries every result, in the calls' order, then answers in the output format.
// The patient's interaction log holds the call and each result linked by ID. Next, the model
// writes its tool call as broken JSON text instead: nothing runs, the broken format is counted
// and the Patient is asked again under it. `ward replay` of the trace sends every request again
// byte for byte.
func TestTheTwoCallToolFlowThroughOllama(t *testing.T) {
	f := ollamatest.NewFake(t,
		ollamatest.CallsTools(patientCalls...),
		ollamatest.Answer(breathless),
		ollamatest.Answer(`{"name":"record_quote","arguments":{"speaker":"patient","quote":"no all`),
		ollamatest.Answer(noAllergy),
	)
	backend := ollama.New(f.Client(), ollamatest.TestModel, ollama.Options{})
	var trace strings.Builder
	rig := sessiontest.New(t, func(c *session.Config) {
		c.Backend, c.Tools, c.Seed, c.Trace = backend, true, 7, llm.NewTraceWriter(&trace)
	})
	for _, line := range []string{"/admit patient_1 asthma-exacerbation", "how is your breathing?", "any allergies?"} {
		rig.Turn(line)
	}

	reqs := f.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want the tool call and its second call, then the broken one and its repeat", len(reqs))
	}
	if len(reqs[0].Tools) != 1 || reqs[0].Tools[0].Function.Name != agents.ToolRecordQuote || len(reqs[0].Format) != 0 {
		t.Errorf("first call: tools %v, format %s; want record_quote offered and no format", reqs[0].Tools, reqs[0].Format)
	}
	second := reqs[1].Messages
	results := second[len(second)-5:]
	asked := second[len(second)-6]
	if len(asked.ToolCalls) != 5 || len(reqs[1].Format) == 0 || len(reqs[1].Tools) != 1 {
		t.Errorf("second call: %d calls asked before the results, format %s; want all five, held to the format", len(asked.ToolCalls), reqs[1].Format)
	}
	for i, m := range results {
		if m.Role != memory.RoleTool || m.Content != patientResults[i] {
			t.Errorf("second call's result %d: %s %q, want %q", i+1, m.Role, m.Content, patientResults[i])
		}
	}

	d, err := rig.Store.Dump(rig.S.ID())
	if err != nil {
		t.Fatal(err)
	}
	log := d.Histories["patient_1"]
	call := checkExchange(t, log)
	if last := log[len(log)-1]; last.Content != "No allergies that I know of." || toolCallIn(log[call+6:]) >= 0 {
		t.Errorf("after the broken tool call: last message %q, and a tool ran: %v", last.Content, toolCallIn(log[call+6:]) >= 0)
	}
	var mem memory.Memory
	if err := json.Unmarshal(d.Memory["patient_1"], &mem); err != nil || len(mem.Items(memory.KeyQuotes)) != 1 {
		t.Errorf("the patient's quotes: %v (%v), want the one recorded once", mem.Items(memory.KeyQuotes), err)
	}
	var ents memory.Entities
	if err := json.Unmarshal(d.Entities["patient_1"], &ents); err != nil || ents.Stats.FormatFailures[agents.AgentPatient] != 1 {
		t.Errorf("format failures %v (%v), want the broken tool call counted for the Patient", ents.Stats.FormatFailures, err)
	}

	runs, err := llm.ReadTrace(strings.NewReader(trace.String()))
	if err != nil {
		t.Fatal(err)
	}
	calls := runs[0].Calls
	if len(calls) != 4 || len(calls[0].Reply.ToolCalls) != 5 || calls[1].Retry != "tool results: second call" ||
		!strings.Contains(fmt.Sprint(calls[1].Messages), results[0].Content) {
		t.Fatalf("the trace's calls: %d, the first asked %d tools, the second %q", len(calls), len(calls[0].Reply.ToolCalls), calls[1].Retry)
	}
	// A model reads the results as its template renders them: Ollama's joins a run of them.
	rendered, err := ollamatest.Render(llm.Request{Messages: calls[1].Messages, Tools: calls[1].Tools})
	if want := "<|tool|>" + strings.Join(patientResults, "\n\n") + "<|end|>"; err != nil || !strings.Contains(rendered, want) {
		t.Errorf("the tiny model's template renders the second call without %q (%v):\n%s", want, err, rendered)
	}
	if d := replayShift(t, runs, nil, func(*session.Config) {}); d != nil {
		t.Fatalf("the replay diverged:\n%s", d)
	}
}

// patientCalls are what the Patient, offered record_quote, asks in one message: a valid call,
// the same again (the tool fails: memory holds that text already), an argument of the wrong type,
// a tool offered to another agent and a tool that does not exist. patientResults are ward's
// answers, in the same order.
var (
	patientCalls = []memory.ToolCall{
		{Name: agents.ToolRecordQuote, Args: map[string]any{"speaker": "patient", "quote": quote}},
		{Name: agents.ToolRecordQuote, Args: map[string]any{"speaker": "patient", "quote": quote}},
		{Name: agents.ToolRecordQuote, Args: map[string]any{"speaker": "patient", "quote": 42}},
		{Name: agents.ToolCheckVitals, Args: map[string]any{}},
		{Name: "order_ct_scan", Args: map[string]any{"region": "chest"}},
	}
	patientResults = []string{
		"recorded",
		"error: " + memory.ErrDuplicate.Error(),
		`error: record_quote's argument "quote" must be a string, not 42`,
		`error: no tool named "check_vitals" is offered to you (offered: [record_quote])`,
		`error: no tool named "order_ct_scan" is offered to you (offered: [record_quote])`,
	}
)

// checkExchange finds the Patient's call of patientCalls in an interaction log and checks that
// each result follows it, linked by the call's ID, and says what patientResults says. It returns
// the call's index.
func checkExchange(t *testing.T, log []memory.Message) int {
	t.Helper()
	call := toolCallIn(log)
	if call < 0 || len(log[call].ToolCalls) != len(patientCalls) || len(log) < call+1+len(patientCalls) {
		t.Fatalf("the interaction log holds no call of the five tools:\n%v", log)
	}
	for i, tc := range log[call].ToolCalls {
		res := log[call+1+i]
		if tc.ID == "" || res.ToolCallID != tc.ID || res.ToolName != tc.Name || res.Content != patientResults[i] {
			t.Errorf("call %d %s (%s) is answered by %+v", i+1, tc.Name, tc.ID, res)
		}
	}
	return call
}

// toolCallIn is the index of the first message that calls tools, -1 for none.
func toolCallIn(log []memory.Message) int {
	for i, m := range log {
		if len(m.ToolCalls) > 0 {
			return i
		}
	}
	return -1
}
