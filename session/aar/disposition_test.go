package aar

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ward-sim/ward/session/action"
	"github.com/ward-sim/ward/session/physio"
)

// A working diagnosis can be revised; the last one stands, and each is kept with its time.
func TestDiagnosisRevisedAndScored(t *testing.T) {
	e, _ := play(t, "asthma-exacerbation", 60, step{30, "salbutamol 5 mg nebulised"})
	mustDo(t, errOf(e.Diagnose("anaphylaxsis")))
	e.AdvanceTo(120, nil)
	mustDo(t, errOf(e.Diagnose("acute severe asthma")))
	r := Of(e)
	if len(r.Diagnoses) != 2 || r.Diagnoses[0].Verdict != "differential" || r.Diagnoses[1].Verdict != "accepted" || r.Diagnoses[1].T != 120 {
		t.Fatalf("diagnoses %+v, want a differential then the accepted one at 120 s", r.Diagnoses)
	}
	if p := part(r, PartDiagnosis); p.Points != 35 || p.Max != 35 {
		t.Errorf("diagnosis part %+v, want 35/35 for the revision", p)
	}
	if p := part(r, PartDisposition); p.Points != 0 || p.Why != "no disposition given" {
		t.Errorf("disposition part %+v, want 0 and why", p)
	}
	pt := points(r, PointDiagnosis)
	for _, want := range []string{`working diagnosis "anaphylaxsis" at 01:00 (a differential`, `revised to "acute severe asthma" at 02:00 (right)`,
		"the case was acute severe asthma", "the findings pointed to it: widespread expiratory wheeze"} {
		if !strings.Contains(pt, want) {
			t.Errorf("the diagnosis point lacks %q:\n%s", want, pt)
		}
	}
	if _, err := e.Diagnose("  "); err == nil {
		t.Error("an empty diagnosis was taken")
	}
}

// A wrong diagnosis and a wrong disposition score nothing of their parts, and say what the case
// called for.
func TestWrongDiagnosisAndDisposition(t *testing.T) {
	e, _ := play(t, "asthma-exacerbation", 60, step{30, "salbutamol 5 mg nebulised"})
	mustDo(t, errOf(e.Diagnose("heart failure")))
	mustDo(t, errOf(e.Dispose("home")))
	r := Of(e)
	if p := part(r, PartDiagnosis); p.Points != 0 || !strings.Contains(p.Why, `"heart failure" is not acute severe asthma`) {
		t.Errorf("diagnosis part %+v", p)
	}
	if p := part(r, PartDisposition); p.Points != 0 || !strings.Contains(p.Why, "home; the case called for hdu or icu") {
		t.Errorf("disposition part %+v", p)
	}
	if r.Score.Total != part(r, PartActions).Points {
		t.Errorf("total %d is not the actions' part alone: %+v", r.Score.Total, r.Score.Parts)
	}
	if !strings.Contains(r.Score.HowScored(), "diagnosis 0/35") || !strings.Contains(r.Digest(), "Disposition: 01:00 — Sent to home; the case called for hdu or icu") {
		t.Errorf("the digest does not say it:\n%s", r.Digest())
	}
}

// A disposition ends the case: the engine stands still, takes no action, refuses a second
// disposition and a new diagnosis, and asks the reflective questions in turn.
func TestDispositionEndsTheCase(t *testing.T) {
	e, _ := play(t, "asthma-exacerbation", 60)
	if _, _, ok := e.NextQuestion(); ok {
		t.Fatal("a reflective question before the case ended")
	}
	if _, err := e.Dispose("mortuary"); err == nil || !strings.Contains(err.Error(), "one of resus, icu") {
		t.Fatalf("an unknown place: %v", err)
	}
	mustDo(t, errOf(e.Dispose("ITU")))
	d, _ := e.Disposition()
	if d.Place != "icu" || !d.Accepted || d.T != 60 || !e.Closed() {
		t.Fatalf("disposition %+v", d)
	}
	before := e.TrueVitals()
	if ev := e.AdvanceTo(3600, nil); len(ev) != 0 || e.Clock() != 60 || e.TrueVitals() != before {
		t.Errorf("a closed case went on: %d events, clock %g", len(ev), e.Clock())
	}
	if ev := e.Apply(action.Parse("salbutamol 5 mg nebulised")[0]); ev != nil || len(e.Actions()) != 0 {
		t.Error("a closed case took an action")
	}
	if _, err := e.Dispose("ward"); err != physio.ErrClosed {
		t.Errorf("a second disposition: %v", err)
	}
	if _, err := e.Diagnose("asthma"); err != physio.ErrClosed {
		t.Errorf("a diagnosis after the case: %v", err)
	}
	for i, answer := range []string{"Unable to complete sentences, RR 30 and HR 120; a silent chest would be life-threatening", "oxygen and salbutamol nebs"} {
		n, q, ok := e.NextQuestion()
		if !ok || n != i || q.Question == "" {
			t.Fatalf("question %d: %d %q %v", i, n, q.Question, ok)
		}
		if err := e.Reflect(answer); err != nil {
			t.Fatal(err)
		}
	}
	r := Of(e)
	first := r.Reflections[0]
	if !slices.Contains(first.Named, "cannot complete sentences") || !slices.Contains(first.Named, "silent chest") || !slices.Contains(first.Missed, "exhaustion") {
		t.Errorf("first answer compared as %+v", first)
	}
	if got := points(r, PointReflection); !strings.Contains(got, "When would you call critical care?\" — not answered") {
		t.Errorf("the unanswered question is not in the debrief:\n%s", got)
	}
	// Everything round-trips through the snapshot, as the store keeps it.
	data, _ := json.Marshal(e.Snapshot())
	var snap physio.Snapshot
	if err := json.Unmarshal(data, &snap); err != nil {
		t.Fatal(err)
	}
	back, err := physio.Restore(snap, e.Scenario())
	if err != nil || !back.Closed() || len(Of(back).Reflections) != 2 {
		t.Fatalf("restored: %v closed %v", err, back.Closed())
	}
}

func part(r Report, name string) ScorePart {
	for _, p := range r.Score.Parts {
		if p.Name == name {
			return p
		}
	}
	return ScorePart{}
}

func points(r Report, kind string) string {
	var out []string
	for _, p := range r.Debrief {
		if p.Kind == kind {
			out = append(out, p.Labelled())
		}
	}
	return strings.Join(out, "\n")
}

// A scenario without a diagnosis key records the diagnosis unjudged and gives the whole score to
// the actions.
func TestDiagnosisWithoutAKey(t *testing.T) {
	s := *scenario(t, "hypoglycaemia")
	s.Diagnosis, s.Disposition = nil, nil
	e := physio.NewEngine("patient_1", &s, 42, 0)
	d, err := e.Diagnose("hypo")
	if err != nil || d.Verdict != "" || d.Term != "" {
		t.Fatalf("%+v %v", d, err)
	}
	r := Of(e)
	if len(r.Score.Parts) != 1 || r.Score.Parts[0].Max != 100 || points(r, PointDiagnosis) != "" {
		t.Errorf("parts %+v, diagnosis point %q", r.Score.Parts, points(r, PointDiagnosis))
	}
}

// A hypothermic patient left cooling below a systolic of 90 goes straight to a centre that can
// rewarm on ECLS (RCUK 2021), said as a crew says it; the emergency department stays right too.
func TestHypothermiaConveysToAnECLSCentre(t *testing.T) {
	for _, typed := range []string{"ECMO centre", "ECLS", "emergency department"} {
		e, _ := play(t, "hypothermia-prehospital", 60)
		mustDo(t, errOf(e.Dispose(typed)))
		if d, _ := e.Disposition(); !d.Accepted {
			t.Errorf("%q: disposition %+v, want it accepted", typed, d)
		}
	}
}
