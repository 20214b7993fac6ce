package session

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ward-sim/ward/session/aar"
	"github.com/ward-sim/ward/session/physio"
)

// debriefOf is the review's debrief as lines, with their kinds.
func debriefOf(rep aar.Report) string {
	var out []string
	for _, p := range rep.Debrief {
		out = append(out, p.Kind+": "+p.Line())
	}
	return strings.Join(out, "\n")
}

// scoreLine is the breakdown's line whose item starts with prefix.
func scoreLine(rep aar.Report, prefix string) (aar.ScoreLine, bool) {
	for _, l := range rep.Score.Breakdown {
		if strings.HasPrefix(l.Item, prefix) {
			return l, true
		}
	}
	return aar.ScoreLine{}, false
}

// The scripted VF arrest of arrest-vf-ward is the case's, not the trainee's: the state change
// says so in the run's events and the timeline, and the review charges no deterioration for it.
func TestScriptedArrestIsNotChargedAsDeterioration(t *testing.T) {
	r := newRigWith(t, func(c *Config) { c.Seed = 42 })
	var states []physio.Event
	for _, line := range []string{"/admit patient_1 arrest-vf-ward", "check vitals", "/wait 35s",
		"he's in cardiac arrest, crash call, start CPR", "/wait 15s", "pads on, charge to 150 J", "/wait 10s",
		"stop compressions, rhythm check", "this is VF, stand clear, shock 150 J, resume CPR", "/wait 107s", "check vitals"} {
		states = append(states, simOf(r.turn(line), physio.EventState)...)
	}
	if len(states) != 2 || states[0].State.Cause != physio.CauseScript || states[1].State.Cause != physio.CauseTrainee {
		t.Fatalf("state changes %+v; want the scripted arrest, then ROSC after the trainee's shock", states)
	}
	rep := aar.Of(r.engine("patient_1"))
	d := debriefOf(rep)
	if strings.Contains(d, "deteriorated") {
		t.Errorf("the scripted arrest is charged as the trainee's:\n%s", d)
	}
	if !strings.Contains(timelineText(rep), "palpitations → vf-arrest: the ectopics trigger ventricular fibrillation (the case's script)") {
		t.Errorf("the timeline does not say the arrest was the case's:\n%s", timelineText(rep))
	}
	if tr := rep.Trajectory; tr.Since == nil || tr.Since.To != "vf-arrest" || !tr.Improved() {
		t.Errorf("trajectory %+v; want it judged from the scripted arrest, improved after ROSC", tr)
	}
}

// An injected deterioration is the instructor's: the trajectory is judged from where it took
// the patient, so a trainee who holds the patient there is not told they deteriorated.
func TestInjectedDeteriorationIsNotChargedToTheTrainee(t *testing.T) {
	r := newRigWith(t, func(c *Config) { c.Seed = 7 })
	r.turn("/admit patient_1 asthma-exacerbation")
	r.turn("check vitals")
	if _, err := r.inject(Injection{Kind: physio.InjectDeterioration, PatientID: "patient_1", State: "near-fatal"}); err != nil {
		t.Fatal(err)
	}
	r.turn("check vitals")
	r.turn("/wait 90s")
	r.turn("check vitals")
	rep := aar.Of(r.engine("patient_1"))
	if d := debriefOf(rep); strings.Contains(d, "deteriorated") {
		t.Errorf("the instructor's injection is charged as the trainee's:\n%s", d)
	}
	l, ok := scoreLine(rep, "patient trajectory")
	if !ok || l.Points == 0 || !strings.Contains(l.Why, "injected by the instructor at") {
		t.Errorf("trajectory line %+v; want it judged from the injection, not scored as a deterioration", l)
	}
}

// A case that does not weigh the NEWS2 trajectory (arrest-asystole-stop: the decision to stop)
// says nothing about it, and its review says what the trainee is judged on.
func TestAsystoleStopIsJudgedOnTheDecision(t *testing.T) {
	r := newRigWith(t, func(c *Config) { c.Seed = 3 })
	r.turn("/admit patient_1 arrest-asystole-stop")
	r.turn("check vitals")
	r.turn("/wait 60s")
	r.turn("check vitals")
	rep := aar.Of(r.engine("patient_1"))
	if d := debriefOf(rep); strings.Contains(d, "did not improve") || strings.Contains(d, "No vital signs were measured after treatment") {
		t.Errorf("the asystole case is judged on NEWS2:\n%s", d)
	}
	if _, ok := scoreLine(rep, "patient trajectory"); ok {
		t.Errorf("the score has a trajectory line the case gives no weight")
	}
	judged := strings.Join(rep.JudgedOn, "\n")
	if !strings.Contains(judged, "Decide, as a team, to stop resuscitation") || !strings.Contains(judged, "What told you that resuscitation would not succeed?") ||
		strings.Contains(judged, "NEWS2") {
		t.Errorf("judged on:\n%s", judged)
	}
}

func timelineText(rep aar.Report) string {
	var out []string
	for _, e := range rep.Timeline {
		out = append(out, e.Text)
	}
	return strings.Join(out, "\n")
}

// Seed 000: the line that switches patient is kept in the patient it switches to, and the line
// that admits a patient opens their history, with ward's note of the admission below it.
func TestTheLineThatSwitchesIsInThePatientItSwitchesTo(t *testing.T) {
	r := newRig(t)
	r.turn("/admit patient_1")
	r.turn("/admit patient_2")
	r.turn("switch to patient_1")
	h := r.dump().Histories
	one, two := contents(h["patient_1"]), contents(h["patient_2"])
	if slices.Contains(two, "user:switch to patient_1") {
		t.Errorf("patient_2's history holds the line that left them: %q", two)
	}
	if len(one) < 4 || one[0] != "user:/admit patient_1" || !strings.HasPrefix(one[1], "assistant:patient_1 admitted: ") ||
		one[2] != "user:switch to patient_1" || !strings.HasPrefix(one[3], "assistant:") {
		t.Errorf("patient_1's history is %q; want the admission, then the switch above its answer", one)
	}
	if len(two) < 2 || two[0] != "user:/admit patient_2" {
		t.Errorf("patient_2's history is %q; want it opened by the line that admitted them", two)
	}

	fresh := newRig(t)
	fresh.turn("review patient_1")
	d := fresh.dump()
	if got := contents(d.Histories["patient_1"]); len(got) < 2 || got[0] != "user:review patient_1" {
		t.Errorf("the first line admitted patient_1 but their history is %q", got)
	}
	if len(d.SessionHistory) > 0 {
		t.Errorf("the shift's own history holds %q", contents(d.SessionHistory))
	}
}

// A hedge that names the right diagnosis ("pneumonia or PE", and it was PE) is the right
// diagnosis in second place: half the diagnosis part, and the debrief says so, never "not this
// case".
func TestARankedDifferentialIsCreditedByPlace(t *testing.T) {
	r := newRigWith(t, func(c *Config) { c.Seed = 5 })
	r.turn("/admit patient_1 pulmonary-embolism")
	r.turn("/diagnosis pneumonia or PE")
	rep := aar.Of(r.engine("patient_1"))
	var part aar.ScorePart
	for _, p := range rep.Score.Parts {
		if p.Name == aar.PartDiagnosis {
			part = p
		}
	}
	if part.Max == 0 || part.Points != (part.Max+1)/2 || !strings.Contains(part.Why, "in place 2 of its differential") {
		t.Errorf("diagnosis part %+v; want half the weight for the right diagnosis in second place", part)
	}
	if d := debriefOf(rep); strings.Contains(d, "not this case") || !strings.Contains(d, "right, in place 2 of the differential") {
		t.Errorf("the debrief:\n%s", d)
	}
}

// The handoff carries what the record says a receiver must hear: the nurse's emergency calls,
// the working diagnosis, and what is still waiting (seed 004: key events, pending tasks,
// critical alerts).
func TestHandoffCarriesEscalationsDiagnosisAndPending(t *testing.T) {
	r := newRigWith(t, func(c *Config) { c.Seed = 7 })
	r.turn("/admit patient_1 asthma-exacerbation")
	r.turn("/diagnosis acute severe asthma")
	r.turn("/wait 8m")
	var escalations int
	for _, a := range r.engine("patient_1").Alerts() {
		if a.Kind == physio.AlertEscalation {
			escalations++
		}
	}
	if escalations == 0 {
		t.Fatal("no escalation in 8 untreated minutes of severe asthma: the repro needs one")
	}
	for _, format := range []string{"sbar", "ipass", "mist"} {
		got := saidText(r.turn("/handoff " + format))
		for _, want := range []string{"Nurse escalation", "Working diagnosis: acute severe asthma", "not yet reviewed"} {
			if !strings.Contains(got, want) {
				t.Errorf("%s lacks %q:\n%s", format, want, got)
			}
		}
		if strings.Contains(got, "no safety alerts") {
			t.Errorf("%s says there were no alerts:\n%s", format, got)
		}
		if doubled := regexp.MustCompile(`[.?!][.;]`).FindString(got); doubled != "" {
			t.Errorf("%s runs a call's own stop into the list's (%q):\n%s", format, doubled, got)
		}
	}
}

// Each handoff hands on what is still to come, read from the record: the tests sent whose
// results are not back (the bloods and the cultures, not the lactate read at the bedside), and the
// review of a drug's response, due at its peak (the formulary's course), overdue once that has
// passed with no look since, and gone once the trainee has looked.
func TestHandoffCarriesResultsAwaitedAndReviewsDue(t *testing.T) {
	r := newRigWith(t, func(c *Config) { c.Seed = 7 })
	r.turn("/admit patient_1 sepsis-urosepsis")
	r.turn("send bloods, blood cultures and a lactate")
	r.turn("give paracetamol 1 g orally")
	paracetamol := "review of the response to paracetamol 1 g PO (given at T+00:00) "
	for _, format := range []string{"sbar", "ipass", "mist"} {
		got := saidText(r.turn("/handoff " + format))
		for _, want := range []string{"bloods result awaited (ordered at T+00:00: sent to the lab;",
			"blood cultures result awaited", paracetamol + "due at T+1:00:00"} {
			if !strings.Contains(got, want) {
				t.Errorf("%s lacks %q:\n%s", format, want, got)
			}
		}
		if strings.Contains(got, "lactate result awaited") || strings.Contains(got, "nothing recorded as pending") {
			t.Errorf("%s: the lactate is back, and something is pending:\n%s", format, got)
		}
	}
	r.turn("/wait 61m")
	for _, format := range []string{"sbar", "ipass", "mist"} {
		if got := saidText(r.turn("/handoff " + format)); !strings.Contains(got, paracetamol+"overdue since T+1:00:00") {
			t.Errorf("%s an hour on, with no look since:\n%s", format, got)
		}
	}
	r.turn("check vitals")
	for _, format := range []string{"sbar", "ipass", "mist"} {
		if got := saidText(r.turn("/handoff " + format)); strings.Contains(got, "review of the response to paracetamol") ||
			!strings.Contains(got, "bloods result awaited") {
			t.Errorf("%s after the trainee looked:\n%s", format, got)
		}
	}
}

// The nurse's observation and the trainee's check in one second are one moment measured twice:
// the review does not judge a trend from it, nor give half the trajectory's marks for a score
// that "held" between a reading and itself.
func TestOneMomentMeasuredTwiceIsNoTrajectory(t *testing.T) {
	r := newRig(t)
	r.turn("/admit patient_1 opioid-overdose")
	r.turn("/wait 5m")
	r.turn("check vitals")
	readings := r.engine("patient_1").Readings()
	if len(readings) != 2 || readings[0].T != readings[1].T || readings[0].Source != physio.ReadByNurse {
		t.Fatalf("readings %+v; want the nurse's observation and the check in one second", readings)
	}
	rep := aar.Of(r.engine("patient_1"))
	if tr := rep.Trajectory; tr.Judged || !strings.HasPrefix(tr.String(), "measured only once") {
		t.Errorf("trajectory %q (judged %v); want it measured only once", tr, tr.Judged)
	}
	if l, ok := scoreLine(rep, "patient trajectory"); !ok || l.Points != 0 {
		t.Errorf("the trajectory's score line %+v; want no marks for a trend never seen", l)
	}
	if d := debriefOf(rep); !strings.Contains(d, "measured only once") {
		t.Errorf("the debrief does not say the trend was never seen:\n%s", d)
	}
}
