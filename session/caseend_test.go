package session

import (
	"strings"
	"testing"

	"github.com/ward-sim/ward/agents/ollamatest"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session/aar"
	"github.com/ward-sim/ward/session/records"
)

// wardSaid is what ward itself said in a turn's events.
func wardSaid(events []jsonEvent) string {
	var out []string
	for _, m := range ofKind(events, "message") {
		if m.str("agent") == memory.SystemAgent {
			out = append(out, m.str("text"))
		}
	}
	return strings.Join(out, "\n")
}

// ward run, as a trainee: a working diagnosis, revised; a disposition that ends the case; the
// reflective questions asked and answered in turn; a closed patient's lines answered as such;
// the review scoring all three parts.
func TestRunDiagnosisDispositionAndReflection(t *testing.T) {
	r := newRig(t)
	turns := byTurn(runJSON(t, r.s, lines(
		"/admit patient_1 asthma-exacerbation",
		"/diagnosis anaphylaxis",
		"salbutamol 5 mg nebulised",
		"/diagnosis acute severe astma",
		"/note",
		"/dispo HDU",
		"She could not complete sentences and her respiratory rate was over 25; a silent chest would make it life-threatening",
		"oxygen and nebulised salbutamol first",
		"a silent chest or exhaustion",
		"how are you feeling now?",
		"/vitals",
		"/diagnosis asthma",
		"/wait 10m",
		"/aar",
	)))
	for i, want := range map[int]string{
		1: "Working diagnosis noted at 00:00: anaphylaxis.",
		3: "Working diagnosis revised at 00:00: acute severe astma (was anaphylaxis).",
		5: "patient_1 leaves for hdu at 00:00; the case is closed. Reflection 1 of 3: What made this an acute severe asthma",
		6: "Answer kept with the shift. Reflection 2 of 3:",
		8: "that was the last reflective question",
		9: "patient_1 has gone to hdu; the case is closed.",
	} {
		if got := wardSaid(turns[i]); !strings.Contains(got, want) {
			t.Errorf("turn %d: ward said %q, want %q", i, got, want)
		}
	}
	if n := len(ofKind(turns[9], "message")); n != 1 {
		t.Errorf("a closed patient's line reached the team: %d messages", n)
	}
	if note := ofKind(turns[4], "message"); len(note) != 1 || !strings.Contains(note[0].str("text"), "**A:** Working diagnosis: acute severe astma (at 00:00).") {
		t.Errorf("the SOAP note's assessment: %v", note)
	}
	for _, i := range []int{10, 11} {
		if e := ofKind(turns[i], "error"); len(e) != 1 || !strings.Contains(e[0].str("message"), "has gone to hdu") {
			t.Errorf("turn %d after the case: %v", i, e)
		}
	}
	aar := onlyOne(t, ofKind(turns[13], "aar"), "aar")
	parts := aar["score"].(map[string]any)["parts"].([]any)
	got := map[string]float64{}
	for _, p := range parts {
		pm := p.(map[string]any)
		got[pm["name"].(string)] = pm["points"].(float64)
	}
	if got["diagnosis"] != 35 || got["disposition"] != 20 {
		t.Errorf("score parts %v, want the diagnosis 35 and the disposition 20", got)
	}
	refl := aar["reflections"].([]any)
	if len(refl) != 3 || !strings.Contains(refl[0].(map[string]any)["answer"].(string), "complete sentences") {
		t.Errorf("reflections %v", refl)
	}
	e := r.engine("patient_1")
	if e.Clock() != 0 || !e.Closed() {
		t.Errorf("the closed case went on to %g", e.Clock())
	}
	if sm := r.s.Summaries()[0]; sm.Disposition != "hdu" || sm.Alert != "" {
		t.Errorf("the roster does not show where the patient went, or keeps an alarm on them: %+v", sm)
	}
	if !strings.Contains(r.s.reg.rosterAnswer(r.s.active), "(gone to hdu)") {
		t.Errorf("roster answer: %s", r.s.reg.rosterAnswer(r.s.active))
	}
}

// A diagnosis the rules do not accept goes to the model for a second opinion, which is recorded
// beside the rules' verdict and does not change the score.
func TestSecondOpinionIsRecorded(t *testing.T) {
	r, f := onFake(t, false, false, ollamatest.Answer(`{"verdict":"accepted","reason":"status asthmaticus is severe asthma"}`))
	r.turn("/admit patient_1 asthma-exacerbation")
	r.turn("/diagnosis status asthmaticus")
	reqs := f.Requests()
	if len(reqs) != 1 || !strings.Contains(reqs[0].Messages[0].Content, "acute severe asthma") || reqs[0].Messages[1].Content != "status asthmaticus" {
		t.Fatalf("second-opinion requests %+v", reqs)
	}
	d := r.engine("patient_1").Diagnoses()
	if len(d) != 1 || d[0].Verdict != "wrong" || d[0].SecondOpinion == nil || d[0].SecondOpinion.Verdict != "accepted" {
		t.Fatalf("recorded %+v", d)
	}
	rep := aar.Of(r.engine("patient_1"))
	if !strings.Contains(rep.Digest(), ollamatest.TestModel+"'s second opinion: accepted") {
		t.Errorf("the debrief does not show the second opinion:\n%s", rep.Digest())
	}
	for _, p := range rep.Score.Parts {
		if p.Name == aar.PartDiagnosis && p.Points != 0 {
			t.Errorf("the second opinion changed the score: %+v", p)
		}
	}
}

// `ward progress` and `ward report` show each shift's diagnosis, disposition and reflective
// answers, read back from the store.
func TestProgressAndReportShowTheCaseEnd(t *testing.T) {
	r := traineeRig(t, "alice")
	r.turn("/admit patient_1 asthma-exacerbation")
	r.turn("/diagnosis life threatening asthma")
	r.turn("/dispo icu")
	r.turn("She could not complete sentences, a silent chest")
	r.newShift()
	r.turn("/admit patient_1 anaphylaxis")
	r.turn("/diagnosis acute severe asthma")
	r.newShift()

	p, err := records.ReadProgress(r.store, r.s.cfg.Scenarios)
	if err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	if err := p.Table(&table); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Diagnosis, disposition and reflection",
		`  1  patient_1 (asthma-exacerbation): diagnosis "life threatening asthma" (accepted) · disposition icu (right)`,
		"Q: What made this an acute severe asthma", "A: She could not complete sentences, a silent chest", "named 2 of 7 key points; missed:",
		`  2  patient_1 (anaphylaxis): diagnosis "acute severe asthma" (differential) · disposition none given`} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, table.String())
		}
	}
	if err := r.store.SignIn(persist.Person{Instructor: true}, nil); err != nil {
		t.Fatal(err)
	}
	report, err := records.ReadClassReport(r.store, r.s.cfg.Scenarios)
	if err != nil {
		t.Fatal(err)
	}
	var csv strings.Builder
	if err := report.CSV(&csv); err != nil {
		t.Fatal(err)
	}
	if rows := strings.Split(strings.TrimSpace(csv.String()), "\n"); len(rows) != 3 || !strings.HasSuffix(rows[0], ",diagnoses_right,dispositions_right") ||
		!strings.HasSuffix(rows[1], ",asthma-exacerbation,1,1") || !strings.HasSuffix(rows[2], ",anaphylaxis,0,0") {
		t.Errorf("CSV:\n%s", csv.String())
	}
	md := report.Markdown()
	for _, want := range []string{"### Diagnosis, disposition and reflection",
		`| 1 | patient_1 | asthma-exacerbation | "life threatening asthma" (accepted) | icu (right) | **What made this an acute severe asthma`,
		"She could not complete sentences, a silent chest (named 2 of 7 key points",
		`| 2 | patient_1 | anaphylaxis | "acute severe asthma" (differential) | none given | none given |`} {
		if !strings.Contains(md, want) {
			t.Errorf("the class report lacks %q:\n%s", want, md)
		}
	}
}

// An alarm waiting on a patient who leaves the ward no longer waits on the trainee.
func TestDispositionLeavesNoAlarmWaiting(t *testing.T) {
	r := newRig(t)
	r.turn("/admit patient_1 asthma-exacerbation")
	r.turn("/wait 10m")
	if len(r.s.Waiting()) == 0 {
		t.Fatal("no escalation after ten minutes of untreated asthma: the test needs one")
	}
	r.turn("/dispo icu")
	if w := r.s.Waiting(); len(w) != 0 {
		t.Errorf("alerts still waiting on a patient gone to ICU: %+v", w)
	}
}

// A shift is over once every patient on it has gone, or the instructor ended it; an empty one,
// or one with a patient still there, is not.
func TestAShiftIsOverWhenEveryPatientHasGone(t *testing.T) {
	r := traineeRig(t, "alice")
	if r.s.Over() {
		t.Error("an empty shift is over")
	}
	r.turn("/admit patient_1 asthma-exacerbation")
	r.turn("/admit patient_2 anaphylaxis")
	r.turn("/switch patient_1")
	r.turn("/dispo icu")
	if r.s.Over() {
		t.Error("the shift is over with patient_2 still there")
	}
	r.turn("/switch patient_2")
	r.turn("/dispo ward")
	if !r.s.Over() {
		t.Error("every patient has gone, and the shift is not over")
	}
	e := injectRig(t)
	if err := e.s.End(func(Event) {}); err != nil || !e.s.Over() {
		t.Errorf("a shift the instructor ended is not over (%v)", err)
	}
}
