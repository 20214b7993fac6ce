package session

import (
	"slices"
	"strings"
	"testing"

	"github.com/ward-sim/ward/session/physio"
)

// ward run, as a trainee busy with one patient: another, unseen, deteriorates during /wait. The
// nurse escalates, naming the numbers, as an escalation event and in that patient's chat; the
// roster summary shows it waiting, across a restart; acknowledging and reviewing the patient
// closes it, and the debrief times the review.
func TestRunUnseenPatientEscalatesDuringWait(t *testing.T) {
	r := newRig(t)
	turns := byTurn(runJSON(t, r.s, lines(
		"/admit patient_1 acs-sildenafil",
		"/admit patient_2 fracture-morphine-allergy",
		"check her vitals",
		"/wait 30m",
	)))
	wait := turns[3]
	var first []jsonEvent // patient_1's; her untreated fracture pain makes patient_2 urgent too
	for _, e := range ofKind(wait, "escalation") {
		if e.str("patient_id") == "patient_1" && e.num("repeats") == 0 {
			first = append(first, e)
		}
	}
	if len(first) == 0 {
		t.Fatalf("a STEMI left alone for 30 minutes raised no escalation: %v", ofKind(wait, "vitals"))
	}
	last := first[len(first)-1]
	if last.str("level") != physio.LevelEmergency || !strings.HasPrefix(last.str("text"), "NEWS2 ") || !strings.Contains(last.str("text"), "BP ") {
		t.Errorf("last escalation %v, want an emergency naming the numbers", last)
	}
	var told []jsonEvent
	for _, m := range ofKind(wait, "message") {
		if m.str("agent") == nurseAgent && m.str("patient_id") == "patient_1" {
			told = append(told, m)
		}
	}
	var sounded jsonEvent // the emergency call as it last sounded in the wait, with the numbers then
	for _, e := range ofKind(wait, "escalation") {
		if e.str("patient_id") == "patient_1" && e.num("raised") == last.num("raised") {
			sounded = e
		}
	}
	if len(told) != len(first) || told[len(told)-1].str("text") != sounded.str("text") {
		t.Errorf("the nurse's messages %v, want one per escalation, each as it last sounded, in patient_1's chat", told)
	}

	r.restart()
	waiting := r.s.Waiting()
	if len(waiting) != 2 || waiting[0].PatientID != "patient_1" || waiting[0].Level != physio.LevelEmergency ||
		waiting[1].Level != physio.LevelUrgent {
		t.Fatalf("after a restart, waiting %+v, want patient_1's emergency before patient_2's urgent call", waiting)
	}
	summaries := r.s.Summaries()
	if sm := summaries[0]; sm.ID != "patient_1" || !sm.Known || sm.Alert != physio.LevelEmergency {
		t.Errorf("roster summary %+v, want the last NEWS2 and the emergency", sm)
	}
	stored, _, err := r.s.Recent("patient_1", 10)
	if err != nil || len(stored) == 0 || stored[len(stored)-1].Agent != nurseAgent {
		t.Errorf("patient_1's chat ends with %+v (%v), want the nurse's call", stored, err)
	}

	turns = byTurn(runJSON(t, r.s, lines("/ack patient_1", "/switch patient_1", "/vitals", "/aar")))
	if msg := onlyOne(t, ofKind(turns[0], "message"), "ack message"); !strings.Contains(msg.str("text"), "Review the patient to close it") {
		t.Errorf("/ack said %v, want it to ask for a review", msg)
	}
	if w := r.s.Waiting(); len(w) != 1 || w[0].PatientID != "patient_2" {
		t.Errorf("patient_1 acknowledged and reviewed, waiting %+v, want only patient_2", w)
	}
	aar := onlyOne(t, ofKind(turns[3], "aar"), "aar")
	alerts := aar["alerts"].([]any)
	for _, a := range alerts {
		if _, ok := a.(map[string]any)["reviewed_after"].(float64); !ok {
			t.Errorf("alert %v has no time to review", a)
		}
	}
	var points []string
	for _, p := range aar["debrief"].([]any) {
		points = append(points, p.(map[string]any)["text"].(string))
	}
	if len(alerts) != len(first) || !strings.Contains(strings.Join(points, "\n"), "Nurse escalation (emergency) (NEWS2 ") {
		t.Errorf("alerts %v, debrief %q", alerts, points)
	}
}

func strs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// A monitored patient alarms while the trainee is with another, and the alarm sounds again until
// it is answered; /alarms shows and changes the limits.
func TestRunMonitorAlarmWhileAnotherPatientIsActive(t *testing.T) {
	r := newRig(t)
	turns := byTurn(runJSON(t, r.s, lines(
		"/admit patient_1 copd-exacerbation",
		"/alarms spo2<80 hr>150",
		"/alarms patient_1 spo2<8",
		"/alarms spo2 80",
		"/admit patient_2 opioid-overdose",
		"put him on the monitor",
		"/switch patient_1",
		"/wait 5m",
	)))
	limits := onlyOne(t, ofKind(turns[1], "message"), "limits").str("text")
	if !strings.Contains(limits, "spo2<80") || !strings.Contains(limits, "hr>150") || !strings.Contains(limits, "rr>30") {
		t.Errorf("/alarms said %q", limits)
	}
	for _, bad := range []int{2, 3} {
		if e := onlyOne(t, ofKind(turns[bad], "error"), "usage error"); e.str("code") != "USAGE" {
			t.Errorf("%v, want a usage error", e)
		}
	}
	first := onlyOne(t, ofKind(turns[5], "alarm"), "alarm on attaching the monitor")
	if first.str("patient_id") != "patient_2" || !strings.Contains(first.str("text"), "SpO2 ") {
		t.Errorf("alarm %v", first)
	}
	repeats := ofKind(turns[7], "alarm")
	if len(repeats) < 2 {
		t.Fatalf("%d alarms in 5 minutes while patient_1 was active, want it to sound again every 2 minutes", len(repeats))
	}
	for _, a := range repeats {
		if a.str("patient_id") != "patient_2" {
			t.Errorf("alarm from %s, whose limits are not crossed", a.str("patient_id"))
		}
	}
	// patient_1, a CO2 retainer with no target prescribed yet, is scored on Scale 1: a nurse's
	// emergency call for her may come first.
	if w := r.s.Waiting(); !slices.ContainsFunc(w, func(a PatientAlert) bool { return a.PatientID == "patient_2" && a.Level == physio.LevelAlarm }) {
		t.Errorf("waiting %+v, want patient_2's alarm", w)
	}
}

// A reading older than its NEWS2 calls for is overdue on the roster.
func TestSummaryOverdue(t *testing.T) {
	sm := summary{Known: true, NEWS2: 3, Band: physio.BandLow, At: 100}
	if sm.Overdue(100+20*60) || !sm.Overdue(100+20*60+1) {
		t.Error("a NEWS2 of 3 is due again after 20 sim minutes")
	}
	if (summary{}).Overdue(1e6) {
		t.Error("a patient never measured is unknown, not overdue")
	}
}
