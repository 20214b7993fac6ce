package physio

import (
	"testing"

	"github.com/ward-sim/ward/session/action"
	sc "github.com/ward-sim/ward/session/scenario"
)

func exam(region string) action.Action {
	if region == "pupils" {
		return action.Action{Kind: sc.KindPupils, Region: region}
	}
	return action.Action{Kind: sc.KindExamine, Region: region}
}

// TestExaminationFindsTheStatesFindings: what an examination finds is the current state's
// finding, and it changes with the state.
func TestExaminationFindsTheStatesFindings(t *testing.T) {
	e := NewEngine("p", scenario(t, "asthma-exacerbation"), 1, 0)
	found := func() string {
		var got string
		for _, ev := range e.Apply(exam("auscultation")) {
			if r, ok := e.ResultOf(ev.Action); ok && ev.Kind == EventAction {
				got = r.Value
			}
		}
		return got
	}
	if got := found(); got != e.CurrentState().Finding("auscultation") || got == "" {
		t.Fatalf("auscultation = %q, want the state's finding", got)
	}
	e.AdvanceTo(20*60, nil)
	if e.State() != "near-fatal" {
		t.Fatalf("untreated at 20 min: %s, want near-fatal", e.State())
	}
	if got := found(); got != "silent chest" {
		t.Errorf("auscultation in near-fatal asthma = %q, want silent chest", got)
	}
}

// What an examination finds follows the body: just after the salbutamol acts the chest still
// sounds as it did, and once her breathing has eased the wheeze is better; the record keeps
// what was found then.
func TestExaminationFollowsTheBody(t *testing.T) {
	e := NewEngine("p", scenario(t, "asthma-exacerbation"), 1, 0)
	for _, a := range action.Parse("oxygen 15 L via non-rebreather, salbutamol 5 mg nebulised") {
		e.Apply(a)
	}
	listen := func() string {
		var found string
		for _, ev := range e.Apply(exam("auscultation")) {
			if ev.Kind == EventAction {
				found = ev.Action.Found
			}
		}
		return found
	}
	e.AdvanceTo(5*60+5, nil) // the salbutamol acts at 5 minutes
	severe, responding := scenario(t, "asthma-exacerbation").State("severe"), scenario(t, "asthma-exacerbation").State("responding")
	if e.State() != "responding" || listen() != severe.Finding("auscultation") {
		t.Errorf("seconds after the salbutamol acted (%s) the chest sounds %q, want it as before", e.State(), e.Actions()[len(e.Actions())-1].Found)
	}
	e.AdvanceTo(10*60, nil)
	if got := listen(); got != responding.Finding("auscultation") {
		t.Errorf("five minutes on the chest sounds %q, want %q", got, responding.Finding("auscultation"))
	}
	first := e.Actions()[len(e.Actions())-2]
	if r, _ := e.ResultOf(first); r.Value != severe.Finding("auscultation") {
		t.Errorf("the record of the first listen now says %q", r.Value)
	}
}
