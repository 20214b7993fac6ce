package session

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/session/aar"
	"github.com/ward-sim/ward/session/physio"
)

// injectRig is a seeded shift with patient_1 on the anaphylaxis case, active.
func injectRig(t *testing.T) *rig {
	t.Helper()
	r := newRigWith(t, func(c *Config) { c.Seed = 7 })
	r.turn("/admit patient_1 anaphylaxis")
	return r
}

// inject runs an injection and returns its events.
func (r *rig) inject(in Injection) ([]Event, error) {
	r.t.Helper()
	var events []Event
	err := r.s.Inject(context.Background(), in, func(e Event) { events = append(events, e) })
	return events, err
}

// stored is a conversation's stored messages.
func (r *rig) stored(conv string) []memory.Message {
	r.t.Helper()
	msgs, _, err := r.s.Recent(conv, 1000)
	if err != nil {
		r.t.Fatal(err)
	}
	return msgs
}

func last(msgs []memory.Message) memory.Message {
	if len(msgs) == 0 {
		return memory.Message{}
	}
	return msgs[len(msgs)-1]
}

// instructorLines are the review's instructor points, as lines.
func instructorLines(rep aar.Report) string {
	var out []string
	for _, p := range rep.Debrief {
		if p.Kind == aar.PointInstructor {
			out = append(out, p.Line())
		}
	}
	return strings.Join(out, "\n")
}

// A deterioration moves the patient to the named state (the vitals follow: lower than the same
// shift's without it), the nurse calls for a review without naming the state, and the store,
// the review and the debrief keep it as the instructor's, across a restart.
func TestInjectDeteriorationMovesThePatient(t *testing.T) {
	control := injectRig(t)
	r := injectRig(t)
	events, err := r.inject(Injection{Kind: physio.InjectDeterioration, PatientID: "patient_1", State: "shock"})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.engine("patient_1").State(); got != "shock" {
		t.Fatalf("state after the injection = %q, want shock", got)
	}
	var heard []string
	for _, ev := range events {
		if m, ok := ev.(MessageEvent); ok {
			heard = append(heard, m.Agent+": "+m.Text)
		}
	}
	if len(heard) != 1 || !strings.HasPrefix(heard[0], "Nurse: I'm worried about") || strings.Contains(heard[0], "shock") {
		t.Errorf("the trainee heard %q; want the nurse's call, without the state's name", heard)
	}
	control.turn("/wait 2m")
	r.turn("/wait 2m")
	if got, want := r.engine("patient_1").TrueVitals().SBP, control.engine("patient_1").TrueVitals().SBP; got >= want-5 {
		t.Errorf("systolic 2 min after a deterioration to shock = %d; the same shift without it = %d", got, want)
	}
	msg := r.stored("patient_1")
	if i := indexBy(msg, memory.ByInstructor); i < 0 || msg[i].Agent != nurseAgent {
		t.Errorf("no stored nurse's line attributed to the instructor in %+v", msg)
	}
	r.restart()
	rep := aar.Of(r.engine("patient_1"))
	if got := instructorLines(rep); !strings.Contains(got, "the instructor injected a deterioration to shock") {
		t.Errorf("debrief's instructor points = %q", got)
	}
	md := rep.Markdown()
	for _, want := range []string{"## What the instructor injected", "→ shock: injected by the instructor"} {
		if !strings.Contains(md, want) {
			t.Errorf("the review lacks %q", want)
		}
	}
	if !strings.Contains(rep.Digest(), "Instructor: ") {
		t.Errorf("the debrief's digest does not name the instructor's injection:\n%s", rep.Digest())
	}
	var debrief string
	for _, ev := range r.turn("/aar") {
		if m, ok := ev.(MessageEvent); ok && m.Agent == "Preceptor" {
			debrief = m.Text
		}
	}
	if !strings.Contains(debrief, "**What the instructor injected**") || !strings.Contains(debrief, "a deterioration to shock") {
		t.Errorf("the Preceptor's debrief does not name the instructor's injection:\n%s", debrief)
	}
	dump, err := json.Marshal(r.dump())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(dump), `"by":"instructor"`) {
		t.Error("ward dump does not attribute the injected line to the instructor")
	}
}

// errorsOf is what a turn's error events said.
func errorsOf(events []Event) string {
	var out []string
	for _, ev := range events {
		if e, ok := ev.(ErrorEvent); ok {
			out = append(out, e.Message)
		}
	}
	return strings.Join(out, "\n")
}

func indexBy(msgs []memory.Message, by string) int {
	for i, m := range msgs {
		if m.By == by {
			return i
		}
	}
	return -1
}

// A result arrives as the lab's, in the patient's results; a relative's call is spoken in the
// relative's voice. Each is in the review as the instructor's.
func TestInjectResultAndCall(t *testing.T) {
	r := injectRig(t)
	if _, err := r.inject(Injection{Kind: physio.InjectResult, PatientID: "patient_1", Text: "K+ 6.8"}); err != nil {
		t.Fatal(err)
	}
	if m := last(r.stored("patient_1")); m.Agent != labAgent || !strings.HasSuffix(m.Content, ": K+ 6.8") || m.By != memory.ByInstructor {
		t.Errorf("the result was stored as %+v", m)
	}
	if v, _ := r.s.ActivePatient(); !strings.Contains(strings.Join(v.Found, "; "), "result K+ 6.8") {
		t.Errorf("the header's results = %q, want the result that arrived", v.Found)
	}
	if _, err := r.inject(Injection{Kind: physio.InjectCall, PatientID: "patient_1", Text: "Is she going to be all right?"}); err != nil {
		t.Fatal(err)
	}
	if m := last(r.stored("patient_1")); !strings.Contains(m.Agent, "(on the phone)") || m.Content != "Is she going to be all right?" {
		t.Errorf("the call was stored as %+v", m)
	}
	got := instructorLines(aar.Of(r.engine("patient_1")))
	for _, want := range []string{"a result arriving: K+ 6.8", `a relative's phone call: "Is she going to be all right?"`} {
		if !strings.Contains(got, want) {
			t.Errorf("debrief's instructor points lack %q:\n%s", want, got)
		}
	}
}

// An admission puts a new patient on the roster with the case named, not active, with the
// admission note in their conversation and a word in the active one; it survives a restart.
func TestInjectAdmission(t *testing.T) {
	r := injectRig(t)
	if _, err := r.inject(Injection{Kind: physio.InjectAdmission, Scenario: "hypoglycaemia"}); err != nil {
		t.Fatal(err)
	}
	if r.s.Active() != "patient_1" {
		t.Errorf("the admission made %q active", r.s.Active())
	}
	if m := last(r.stored("patient_2")); !strings.HasPrefix(m.Content, "patient_2 admitted:") || m.By != memory.ByInstructor {
		t.Errorf("patient_2's conversation ends with %+v", m)
	}
	if m := last(r.stored("patient_1")); m.Content != "News of patient_2: /switch patient_2 to see it." {
		t.Errorf("the active conversation ends with %+v", m)
	}
	r.restart()
	if got := r.s.reg.roster; len(got) != 2 || got[1] != "patient_2" {
		t.Fatalf("roster after a restart = %v", got)
	}
	e := r.engine("patient_2")
	if e.Scenario().ID != "hypoglycaemia" || !strings.Contains(instructorLines(aar.Of(e)), "this admission, with the case hypoglycaemia") {
		t.Errorf("patient_2 is on %s with the instructor's points %q", e.Scenario().ID, instructorLines(aar.Of(e)))
	}
}

// A refused injection says why and changes nothing: not the engine, not the store.
func TestInjectRefusalsChangeNothing(t *testing.T) {
	r := injectRig(t)
	before, msgs := engineJSON(t, r), len(r.stored("patient_1"))
	for _, c := range []struct {
		in   Injection
		want string
	}{
		{Injection{Kind: physio.InjectDeterioration, PatientID: "patient_9", State: "shock"}, `no patient "patient_9"`},
		{Injection{Kind: physio.InjectDeterioration, PatientID: "patient_1", State: "worse"}, `no state "worse": one of pea-arrest, peri-arrest, reaction, recovered, responding, rosc, shock`},
		{Injection{Kind: physio.InjectDeterioration, PatientID: "patient_1", State: "reaction"}, "in state reaction already"},
		{Injection{Kind: physio.InjectResult, PatientID: "patient_1"}, "needs some words"},
		{Injection{Kind: physio.InjectCall, PatientID: "patient_1", Text: " \x1b[2J "}, "needs some words"},
		{Injection{Kind: physio.InjectCall, PatientID: "patient_1", Text: strings.Repeat("so worried ", 50)}, "at most 500 characters"},
		{Injection{Kind: "flood", PatientID: "patient_1"}, `no injection "flood"`},
		{Injection{Kind: physio.InjectAdmission, Scenario: "no-such-case"}, `no scenario "no-such-case"`},
		{Injection{Kind: physio.InjectAdmission, Scenario: "anaphylaxis"}, "another patient of this shift has that case"},
		{Injection{Kind: physio.InjectAdmission, PatientID: "patient_1", Scenario: "hypoglycaemia"}, "on the roster already"},
		{Injection{Kind: physio.InjectAdmission, PatientID: "bed 4", Scenario: "hypoglycaemia"}, "not a patient ID"},
	} {
		if _, err := r.inject(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.in, err, c.want)
		}
	}
	if engineJSON(t, r) != before || len(r.stored("patient_1")) != msgs || len(r.s.reg.roster) != 1 {
		t.Error("a refused injection changed the shift")
	}
}

// Ending the shift closes every open case as the instructor's end, says so to the trainee,
// stops the clock and marks the shift ended, across a restart; nothing more can be injected.
func TestEndClosesEveryCase(t *testing.T) {
	r := injectRig(t)
	r.turn("/admit patient_2 hypoglycaemia")
	r.turn("/dispo ward") // patient_2 has gone: their case stays as it closed
	var events []Event
	if err := r.s.End(func(e Event) { events = append(events, e) }); err != nil {
		t.Fatal(err)
	}
	if d, _ := r.engine("patient_1").Disposition(); d.Place != physio.PlaceEnded {
		t.Errorf("patient_1's disposition = %q", d.Place)
	}
	if d, _ := r.engine("patient_2").Disposition(); d.Place != "ward" {
		t.Errorf("patient_2's disposition = %q, want the ward the trainee chose", d.Place)
	}
	if _, paused, _ := r.s.Clock(); !paused {
		t.Error("the clock runs on after the end")
	}
	r.restart()
	if !r.s.Ended() {
		t.Fatal("the shift is not marked ended after a restart")
	}
	if m := last(r.stored("patient_1")); !strings.Contains(m.Content, "The instructor ended the shift for debrief") {
		t.Errorf("patient_1's conversation ends with %q", m.Content)
	}
	r.turn("/switch patient_1")
	if refused := errorsOf(r.turn("/dispo icu")); !strings.Contains(refused, "The instructor ended patient_1's case for debrief") {
		t.Errorf("a disposition of the ended case got %q", refused)
	}
	rep := aar.Of(r.engine("patient_1"))
	if !strings.Contains(rep.Markdown(), "The instructor ended the case before a disposition") {
		t.Error("the review does not say the instructor ended the case")
	}
	if refused := errorsOf(r.turn("/admit patient_3")); !strings.Contains(refused, "no new patient comes in") || len(r.s.reg.roster) != 2 {
		t.Errorf("an admission after the end: %q, roster %v", refused, r.s.reg.roster)
	}
	if err := r.s.End(func(Event) {}); !errors.Is(err, ErrShiftEnded) {
		t.Errorf("a second end: %v", err)
	}
	if _, err := r.inject(Injection{Kind: physio.InjectResult, PatientID: "patient_1", Text: "Hb 70"}); !errors.Is(err, ErrShiftEnded) {
		t.Errorf("an injection after the end: %v", err)
	}
}

// A patient the instructor moves to a better state is not called worse: the nurse says they look
// better, still without naming the state.
func TestInjectedImprovementIsCalledBetter(t *testing.T) {
	r := injectRig(t)
	if _, err := r.inject(Injection{Kind: physio.InjectDeterioration, PatientID: "patient_1", State: "shock"}); err != nil {
		t.Fatal(err)
	}
	r.turn("/wait 5m")
	events, err := r.inject(Injection{Kind: physio.InjectDeterioration, PatientID: "patient_1", State: "recovered"})
	if err != nil {
		t.Fatal(err)
	}
	var heard []string
	for _, ev := range events {
		if m, ok := ev.(MessageEvent); ok {
			heard = append(heard, m.Agent+": "+m.Text)
		}
	}
	if len(heard) != 1 || !strings.Contains(heard[0], "looks better than they did") || strings.Contains(heard[0], "recovered") {
		t.Errorf("the trainee heard %q; want the nurse saying they look better, without the state's name", heard)
	}
}

// An admission while the registry mirror holds summaries the store has not had yet (the clock
// moved a NEWS2 since the last commit, as a running screen's does) is stored with the new patient:
// the commit writes the registry once, as the mirror has it with the admission.
func TestInjectAdmissionOverUnsavedSummaries(t *testing.T) {
	r := injectRig(t)
	r.s.reg.unsaved = true
	if _, err := r.inject(Injection{Kind: physio.InjectAdmission, Scenario: "hypoglycaemia"}); err != nil {
		t.Fatal(err)
	}
	r.restart()
	if got := r.s.reg.roster; len(got) != 2 || got[1] != "patient_2" {
		t.Fatalf("roster after a restart = %v, want patient_2 on it", got)
	}
}
