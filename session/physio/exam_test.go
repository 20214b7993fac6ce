package physio

import (
	"reflect"
	"slices"
	"testing"

	sc "github.com/ward-sim/ward/session/scenario"
)

func exam(region string) Action {
	if region == "pupils" {
		return Action{Kind: sc.KindPupils, Region: region}
	}
	return Action{Kind: sc.KindExamine, Region: region}
}

func exams(regions ...string) []Action {
	var out []Action
	for _, r := range regions {
		out = append(out, exam(r))
	}
	return out
}

func TestParseExaminations(t *testing.T) {
	cases := []struct {
		text string
		want []Action
	}{
		{"listen to her chest", exams("auscultation")},
		{"examine the leg", exams("limbs")},
		{"check the pulses and sensation in the right foot", exams("pulses", "limbs")},
		{"check the foot's circulation", exams("limbs")},
		{"examine his chest", exams("breathing", "percussion", "auscultation")},
		{"percuss the chest", exams("percussion")},
		{"look at her chest", exams("breathing")},
		{"listen to the heart", exams("heart")},
		{"heart sounds?", exams("heart")},
		{"what's the cap refill", exams("cap_refill")},
		{"check his pupils", exams("pupils")},
		{"what is her GCS?", exams("gcs")},
		{"look in her mouth", exams("airway")},
		{"feel the abdomen", exams("abdomen")},
		{"look at the skin", exams("skin")},
		{"examine him", exams("focused")},
		{"neuro exam", exams("gcs", "pupils", "limbs")},
		{"neurovascular status of the right leg", exams("limbs")},
		{"check the foot pulses", exams("limbs")},
		{"feel her pulses", exams("pulses")},
		{"listen to the heart and lungs", exams("heart", "auscultation")},
		{"A to E assessment", exams(sc.Regions...)},
		// Not examinations: no verb, a negation, a test, a position.
		{"is her chest clear", nil},
		{"don't examine the leg", nil},
		{"chest x-ray please", []Action{{Kind: sc.KindTest, Test: "chest_xray"}}},
		{"raise her legs", []Action{{Kind: sc.KindPosition, Position: "legs_raised"}}},
		{"take a look at the monitor", []Action{kind(sc.KindAttachMonitor)}},
	}
	for _, c := range cases {
		if got := ParseActions(c.text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q\n got %+v\nwant %+v", c.text, got, c.want)
		}
	}
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

func FuzzExaminations(f *testing.F) {
	for _, seed := range []string{"listen to her chest", "check the pulses and sensation in the right foot",
		"A to E", "neuro exam and pupils", "don't examine the leg, percuss", "examine examine chest heart"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, a := range ParseActions(text) {
			if a.Kind != sc.KindExamine && a.Kind != sc.KindPupils {
				continue
			}
			if !slices.Contains(sc.Regions, a.Region) {
				t.Fatalf("%q: examination of unknown region %q", text, a.Region)
			}
		}
	})
}

// What an examination finds follows the body: just after the salbutamol acts the chest still
// sounds as it did, and once her breathing has eased the wheeze is better; the record keeps
// what was found then.
func TestExaminationFollowsTheBody(t *testing.T) {
	e := NewEngine("p", scenario(t, "asthma-exacerbation"), 1, 0)
	for _, a := range ParseActions("oxygen 15 L via non-rebreather, salbutamol 5 mg nebulised") {
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
