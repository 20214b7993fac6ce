package session

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/analyzer"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/agents/offline"
	"github.com/ward-sim/ward/memory"
)

// The stages of a turn, each run alone on a session the whole turns before them built.

// stageTurn starts a turn as Turn does, without running it.
func (r *rig) stageTurn(text string) *turn {
	r.s.begin(llm.TraceInput{Op: llm.InputTurn, Text: text}, func(Event) {})
	return newTurn(text, func(Event) {})
}

// settle alone: a line for the active patient is stored in their conversation before anyone
// answers, and the conversation handed on is the one it continues, without it.
func TestSettleStoresTheLineBeforeAnyoneAnswers(t *testing.T) {
	r := newRig(t)
	r.turn("/admit patient_1 asthma-exacerbation")
	r.turn("How is your breathing?")
	line := "Is the tightness any better?"

	st, ok := r.s.settle(context.Background(), r.stageTurn(line))
	if !ok || r.s.active != "patient_1" {
		t.Fatalf("settle = ok %v, active %s; want patient_1", ok, r.s.active)
	}
	stored := contents(r.dump().Histories["patient_1"])
	if stored[len(stored)-1] != "user:"+line {
		t.Errorf("stored = %q: the line is not the newest message", stored)
	}
	if prior := contents(st.prior); !slices.Equal(prior, stored[:len(stored)-1]) {
		t.Errorf("prior = %q, want the stored conversation before the line", prior)
	}
}

// settle alone: a line naming another patient moves the turn to them and hands on their
// conversation, not the one it was typed in; what it says to them is stored in theirs, and a line
// that only goes to them stays where it was typed.
func TestSettleHandsOnTheConversationOfThePatientNamed(t *testing.T) {
	r := newRig(t)
	r.turn("/admit patient_1 asthma-exacerbation")
	r.turn("How is your breathing?")
	r.turn("/admit patient_2 anaphylaxis")
	r.turn("Any itching?")

	st, ok := r.s.settle(context.Background(), r.stageTurn("patient_1, is the tightness any better?"))
	if !ok || r.s.active != "patient_1" {
		t.Fatalf("settle = ok %v, active %s; want patient_1", ok, r.s.active)
	}
	if prior := contents(st.prior); !slices.Contains(prior, "user:How is your breathing?") || slices.Contains(prior, "user:Any itching?") {
		t.Errorf("prior = %q, want patient_1's conversation", prior)
	}
	if h := contents(r.dump().Histories["patient_1"]); h[len(h)-1] != "user:patient_1, is the tightness any better?" {
		t.Errorf("patient_1's conversation ends %q, want the question put to them", h[len(h)-1])
	}
	r.turn("review patient_2")
	histories := r.dump().Histories
	if h := contents(histories["patient_1"]); h[len(h)-1] != "user:review patient_2" {
		t.Errorf("patient_1's conversation ends %q, want the line that left it", h[len(h)-1])
	}
	if slices.Contains(contents(histories["patient_2"]), "user:review patient_2") {
		t.Error("a line that only went to patient_2 was stored in their conversation")
	}
}

// A line the analyzer's model sends to another patient is stored before the model is asked, in the
// conversation it was typed in, and moved to the patient's with the switch: their chat shows the
// question above the answer, and the one it left holds nothing of it.
func TestALineAModelSendsElsewhereMovesWithTheSwitch(t *testing.T) {
	model := &scripted{Backend: offline.New(), errs: []error{nil}, replies: []llm.Response{{Message: memory.Message{
		Content: `{"action":"SWITCH_EXISTING","patient_id":"patient_1","reasoning":"the wheezy one is patient_1"}`}}}}
	r := newRigWith(t, func(c *Config) {
		c.Analyzer = analyzer.NewAnalyzer(analyzer.NewLLMAnalyzer(model, analyzer.LLMAnalyzerConfig{}))
	})
	r.turn("/admit patient_1 asthma-exacerbation")
	r.turn("/admit patient_2 opioid-overdose")
	left := contents(r.dump().Histories["patient_2"])
	line := "check on the patient — is the tightness any better?"

	r.turn(line)
	if model.calls != 1 || r.s.Active() != "patient_1" {
		t.Fatalf("the model was asked %d times and patient %s is active; want once, patient_1", model.calls, r.s.Active())
	}
	histories := r.dump().Histories
	if got := contents(histories["patient_2"]); !slices.Equal(got, left) {
		t.Errorf("patient_2's conversation is %q, want it as it was: %q", got, left)
	}
	got := contents(histories["patient_1"])
	i := slices.Index(got, "user:"+line)
	if i < 0 || i == len(got)-1 || !strings.HasPrefix(got[i+1], "assistant:") {
		t.Errorf("patient_1's conversation is %q, want the line followed by the answer", got)
	}
	r.restart()
	if got := contents(r.dump().Histories["patient_2"]); !slices.Equal(got, left) {
		t.Errorf("after a restart patient_2's conversation is %q", got)
	}
}

// examine alone: an order changes the engine once; the same line examined again as a retry
// answers from the engine as it is and applies nothing twice.
func TestExamineAppliesAnOrderOnceAndNotOnRetry(t *testing.T) {
	r := newRig(t)
	r.turn("/admit patient_1 asthma-exacerbation")
	order := "give oxygen 15 L/min via non-rebreather mask"

	first := r.s.examine(r.stageTurn(order), settled{})
	if len(first.events) == 0 {
		t.Fatal("the order changed nothing in the engine")
	}
	again := r.s.examine(r.stageTurn(order), settled{retry: true})
	if len(again.events) != 0 {
		t.Errorf("a retry applied the order again: %+v", again.events)
	}
	if again.engine != first.engine {
		t.Error("the retry examined another engine")
	}
}

// converse alone: what the team says is handed on in order and nothing is stored; an order the
// Pharmacist holds back is answered by the Pharmacist first; when the line held nothing else, that
// word is the whole answer, and a question asked with it still has the patient's.
func TestConverseHandsOnWhatWasSaidAndStoresNothing(t *testing.T) {
	cases := []struct {
		line   string
		agents []string
	}{
		{"give amoxicillin 500 mg PO", []string{agents.AgentPharmacist}},
		{"give amoxicillin 500 mg PO and how is your breathing?", []string{agents.AgentPharmacist, agents.AgentPatient}},
	}
	for _, c := range cases {
		t.Run(c.line, func(t *testing.T) {
			r := newRig(t)
			r.turn("/admit patient_1 anaphylaxis")
			r.turn("what happened? any allergies?") // known, the allergy stops the order
			tt := r.stageTurn(c.line)
			st, ok := r.s.settle(context.Background(), tt)
			if !ok {
				t.Fatal("settle ended the turn")
			}
			x := r.s.examine(tt, st)
			before := contents(r.dump().Histories["patient_1"])

			said, err := r.s.converse(context.Background(), tt, st.prior, x)
			if err != nil {
				t.Fatal(err)
			}
			var who []string
			for _, m := range said {
				who = append(who, m.Agent)
			}
			if !slices.Equal(who, c.agents) {
				t.Errorf("said by %q, want %q", who, c.agents)
			}
			if after := contents(r.dump().Histories["patient_1"]); !slices.Equal(after, before) {
				t.Errorf("converse stored something:\nbefore %q\nafter  %q", before, after)
			}
		})
	}
}

// record alone: what was said is stored after the typed line in one commit, stamped with the
// sim clock; a failure that stopped the team is reported by its code, and what was said before
// it is kept.
func TestRecordStoresWhatWasSaidAndReportsTheFailure(t *testing.T) {
	r := newRig(t)
	r.turn("/admit patient_1 asthma-exacerbation")
	r.turn("/wait 2m")
	var events []Event
	tt := newTurn("How is your breathing?", func(e Event) { events = append(events, e) })
	said := []memory.Message{r.s.message(memory.RoleAssistant, agents.AgentPatient, "Tight… can't finish… a sentence.")}

	r.s.record(tt, said, llm.ErrEmpty)
	h := r.dump().Histories["patient_1"]
	last := h[len(h)-1]
	if last.Content != said[0].Content || last.Agent != agents.AgentPatient {
		t.Fatalf("the conversation ends %+v, want the Patient's line", last)
	}
	if last.Sim != r.s.sim.ward.Clock() || last.Sim == 0 {
		t.Errorf("stored at sim %v, want the clock %v", last.Sim, r.s.sim.ward.Clock())
	}
	var codes []string
	for _, e := range events {
		if e, ok := e.(ErrorEvent); ok {
			codes = append(codes, e.Code)
		}
	}
	if !slices.Equal(codes, []string{"LLM_EMPTY"}) {
		t.Errorf("errors reported %q, want LLM_EMPTY", codes)
	}
}
