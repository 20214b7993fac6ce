package session

import (
	"context"
	"slices"
	"testing"

	"github.com/ward-sim/ward/agents/llm"
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
