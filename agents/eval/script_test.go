package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
)

// patientTurn is a turn in which the Patient, given facts and hearing line, said reply.
func patientTurn(avpu, facts, line, reply string) PlayedTurn {
	out, _ := json.Marshal(map[string]any{"reply": reply, "entities_to_update": map[string]any{}, "derived_entities_to_update": map[string]any{}})
	call := llm.TraceRecord{Agent: agents.AgentPatient, Messages: []memory.Message{
		{Role: "system", Content: "You are the patient. Keep it to 1 or 2 sentences.\n\nPatient facts: {\"name\":\"Maya\",\"age\":34}"},
		{Role: "system", Content: "Engine facts: " + facts},
		{Role: "user", Content: line},
	}, Reply: memory.Message{Role: "assistant", Content: string(out)}}
	return PlayedTurn{Line: line, Calls: []llm.TraceRecord{call}, AVPU: avpu}
}

func TestJudgePatient(t *testing.T) {
	happened := `{"now":"T+02:00","happened":["Done: oxygen nrb 15 L/min."]}`
	tests := []struct {
		name, avpu, facts, line, reply, want string
	}{
		{"alert and sourced", "A", happened, "oxygen on at 15 litres", "Thank you… that's better. I'm Maya, 34.", ""},
		{"the trainee's number", "A", "{}", "is the pain 7 out of 10?", "Yes… about 7.", ""},
		{"invented vital", "A", happened, "how are you?", "My oxygen is 91 and my pulse 120.", "quotes numbers no fact gives: 91, 120"},
		{"out of character", "A", "{}", "hello", "As an AI language model I cannot feel pain.", `steps out of character ("As an AI")`},
		{"the output format", "A", "{}", "hello", `{"reply":"hi"}`, "the output format"},
		{"voice, a few words", "V", "{}", "what's your name?", "Get off… where's my… keys?", ""},
		{"voice, a speech", "V", "{}", "what happened?", "Well, I had my insulin this morning and then I went to work and forgot to eat lunch because the meeting ran late.", "says 23 words at AVPU V"},
		{"pain, a groan", "P", "{}", "can you hear me?", "*groans to a sternal rub*", ""},
		{"pain, narration", "P", "{}", "open your eyes", "no response; slow snoring breaths", ""},
		{"pain, speech", "P", "{}", "can you hear me?", "I can hear you, doctor.", "speaks in words at AVPU P"},
		{"unresponsive, a groan", "U", "{}", "can you hear me?", "*moans*", "makes sounds at AVPU U"},
		{"unresponsive, nothing", "U", "{}", "can you hear me?", "*no response*", ""},
	}
	for _, tt := range tests {
		turn := patientTurn(tt.avpu, tt.facts, tt.line, tt.reply)
		got := judgePatient(turn, replies(turn.Calls, agents.AgentPatient))
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: judged %q, want %q", tt.name, got, tt.want)
		}
	}
	if got := judgePatient(PlayedTurn{Line: "hello"}, nil); got != "the Patient did not answer" {
		t.Errorf("no reply judged %q", got)
	}
}

func TestDebriefNamesCriticalErrors(t *testing.T) {
	sedation := CriticalError{ID: "sedation", Description: "Sedating a patient who is struggling to breathe"}
	bolus := CriticalError{ID: "iv-adrenaline-bolus", Description: "An IV adrenaline bolus outside cardiac arrest — arrhythmia and hypertensive crisis"}
	tests := []struct {
		name    string
		errs    []CriticalError
		debrief string
		want    string
	}{
		{"named by its description", []CriticalError{sedation}, "Critical error: you sedated a patient struggling to breathe.", ""},
		{"named by its id", []CriticalError{bolus}, "Giving an IV bolus of adrenaline was the critical error.", ""},
		{"one of two missed", []CriticalError{sedation, bolus}, "The midazolam sedated someone who was struggling for breath.",
			`does not name the critical error "An IV adrenaline bolus`},
		{"about something else", []CriticalError{sedation}, "Good work on the oxygen; recheck the vitals sooner.", "does not name the critical error"},
		{"nothing on record", nil, "Well done.", "no critical error on record"},
		{"no debrief", []CriticalError{sedation}, "  ", "the Preceptor did not debrief"},
	}
	for _, tt := range tests {
		if got := judgeDebrief(tt.errs, tt.debrief); (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: judged %q, want %q", tt.name, got, tt.want)
		}
	}
}

// A model that invents numbers fails the patient eval below its bar; the report says which
// cases failed and why, as text and as markdown.
func TestEvalPatientBelowTheBar(t *testing.T) {
	invents := func(_ context.Context, s Script) (Played, error) {
		var p Played
		for i, line := range s.Lines {
			reply := "It hurts… please help."
			if i == 0 {
				reply = "My blood pressure is 180 over 110."
			}
			p.Turns = append(p.Turns, patientTurn("A", "{}", line, reply))
		}
		return p, nil
	}
	r := EvalPatient(context.Background(), named{"ollama", "tiny"}, invents)
	r.Min = DefaultMin
	if r.Total != len(r.Cases) || r.Passed == r.Total || r.Gate() == nil {
		t.Fatalf("a model that invents numbers passed: %s", r)
	}
	if err := r.Gate(); !strings.Contains(err.Error(), "below the bar of 90% (--min 0.90)") {
		t.Fatalf("gate: %v", err)
	}
	text, md := r.String(), r.Markdown()
	for _, want := range []string{"patient eval on ollama tiny", "FAIL: below the bar of 90%",
		"FAIL alert/asthma history: Hello, I'm Sam, one of the nurses. What brought you in today?: quotes numbers no fact gives: 180, 110",
		"PASS alert/asthma history: When did the breathing get this bad?"} {
		if !strings.Contains(text, want) {
			t.Errorf("text report lacks %q:\n%s", want, text)
		}
	}
	for _, want := range []string{"# ward eval patient", "| category | passed |", "| alert |",
		"| asthma history: When did the breathing get this bad? | alert | pass |", "| **FAIL** | quotes numbers no fact gives: 180, 110 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown report lacks %q:\n%s", want, md)
		}
	}
	r.Min = 0
	if r.Gate() != nil || !strings.Contains(r.String(), "report only (--min 0): this run cannot fail") {
		t.Errorf("--min 0 must report without failing:\n%s", r)
	}
}

// named is a backend that only names itself, for a report's headline.
type named struct{ name, model string }

func (n named) Name() string  { return n.name }
func (n named) Model() string { return n.model }
func (named) Chat(context.Context, llm.Request, func(string)) (llm.Response, error) {
	return llm.Response{}, nil
}

// The bar: a run at it passes, one below fails, and --min 0 never fails; a run of no case fails
// any bar, since it measured nothing.
func TestGate(t *testing.T) {
	report := func(passed, total int, min float64) Report {
		r := Report{Suite: "knowledge", Min: min}
		for i := range total {
			reason := ""
			if i >= passed {
				reason = "not in the top 3"
			}
			r.Record(fmt.Sprint("question ", i+1), "cards", reason, "")
		}
		return r
	}
	tests := []struct {
		passed, total int
		min           float64
		fails         bool
	}{
		{9, 10, 0.90, false},
		{8, 10, 0.90, true},
		{0, 10, 0, false},
		{0, 0, 0.90, true},
	}
	for _, tt := range tests {
		if err := report(tt.passed, tt.total, tt.min).Gate(); (err != nil) != tt.fails {
			t.Errorf("%d/%d at --min %.2f: gate %v", tt.passed, tt.total, tt.min, err)
		}
	}
}
