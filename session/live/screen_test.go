package live

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/aar"
	"github.com/ward-sim/ward/session/physio"
	"github.com/ward-sim/ward/session/scenario"
	"github.com/ward-sim/ward/session/sessiontest"
)

// The screen's view: the roster row carries the waiting alert and the overdue reading, the view
// lists the alerts most urgent first, and the count of alarms sounded grows for the bell.
func TestLiveViewShowsWaitingAlerts(t *testing.T) {
	r := sessiontest.New(t, func(*session.Config) {})
	r.Turn("/admit patient_1 opioid-overdose")
	r.Turn("put him on the monitor")
	r.Turn("/admit patient_2 asthma-exacerbation")
	live := NewLive(r.S, nil)
	before := live.Snapshot().Sounded
	drain(live.Submit(context.Background(), "/wait 5m"))
	v := live.Snapshot()
	if v.Sounded <= before {
		t.Errorf("sounded %d after a /wait with an alarm repeating, was %d", v.Sounded, before)
	}
	if len(v.Alerts) != 2 || v.Alerts[0].PatientID != "patient_2" || v.Alerts[0].Level != AlertEmergency ||
		v.Alerts[1].Level != AlertAlarm {
		t.Errorf("alerts %+v, want patient_2's emergency call, then patient_1's alarm", v.Alerts)
	}
	for _, row := range v.Roster {
		if row.Alert.Level == AlertNone || row.Alert.PatientID != row.ID {
			t.Errorf("roster row %+v has no alert", row)
		}
	}
	if v.Patient.ID != "patient_2" {
		t.Errorf("an alert moved the active patient to %s", v.Patient.ID)
	}
}

// One reading, one wording: the vitals event, the header, the Monitor, the note and the review
// word the same NEWS2 the same way.
func TestOneNEWS2WordingEverywhere(t *testing.T) {
	r := sessiontest.Seeded(t)
	l := NewLive(r.S, nil)
	for _, line := range []string{"/admit patient_1 fracture-morphine-allergy", "check vitals", "/vitals", "/note", "/handoff", "/aar"} {
		drain(l.Submit(context.Background(), line))
	}
	var said []string
	for _, m := range l.Snapshot().Chat {
		said = append(said, m.Content)
	}
	readings := engine(t, r, "patient_1").Readings()
	words := readings[len(readings)-1].Score().String()
	if !regexp.MustCompile(`^NEWS2 \d+ (low|low-medium|medium|high) \(Scale [12]\)$`).MatchString(words) {
		t.Fatalf("the reading's NEWS2 reads %q", words)
	}
	chat := strings.Join(said, "\n")
	for _, where := range []string{"Measured at", "SOAP note", "SBAR handoff", "Score"} {
		i := strings.Index(chat, where)
		if i < 0 || !strings.Contains(chat[i:], words) {
			t.Errorf("%s does not word the NEWS2 as %q:\n%s", where, words, chat)
		}
	}
	if got := l.Snapshot().Patient.NEWS2.Text; got != words {
		t.Errorf("the header says %q, want %q", got, words)
	}
	rep := aar.Of(engine(t, r, "patient_1"))
	if rep.NEWS2Now.Text != words || rep.NEWS2AtArrival.Text != readings[0].Score().String() {
		t.Errorf("the review says %s → %s, want the first and last measured, ending %s", rep.NEWS2AtArrival.Text, rep.NEWS2Now.Text, words)
	}
	if strings.Contains(chat, "low-single") || strings.Contains(chat, "LOW-MED") {
		t.Errorf("an old wording of the band reached the trainee:\n%s", chat)
	}
}

// The instructor's (or a developer's) inspector is where the engine's truth shows: the scenario,
// its title, the state and the true GCS. A trainee's shows a note that it is masked.
func TestTheInspectorShowsTheEnginesTruth(t *testing.T) {
	for instructor, want := range map[bool]string{
		true:  "copd-exacerbation (COPD exacerbation in a CO2 retainer) · state exacerbation · true GCS 15",
		false: "[masked in a trainee's view: the case, its state and the true vitals; ward --instructor shows it]",
	} {
		r := sessiontest.New(t, func(c *session.Config) { c.Seed, c.Instructor = 1, instructor })
		l := NewLive(r.S, nil)
		drain(l.Submit(context.Background(), "/admit patient_1 copd-exacerbation"))
		drain(l.Submit(context.Background(), "how are you?"))
		if tr, ok := l.Trace(0); !ok || tr.Engine != want {
			t.Errorf("instructor %v: the inspector's engine line is %q", instructor, tr.Engine)
		}
	}
}

// The trainee discovers the case: nothing on their screen names a scenario's title, diagnosis
// or state, for any built-in scenario (a sample of every third under -race); the admission gives
// the presentation.
func TestTheTraineeSeesThePresentationNeverTheDiagnosis(t *testing.T) {
	lib, err := scenario.Load()
	if err != nil {
		t.Fatal(err)
	}
	for i, sc := range lib.List() {
		if !sessiontest.CheckedUnderRace(i, 3) {
			continue
		}
		t.Run(sc.ID, func(t *testing.T) {
			r := sessiontest.Seeded(t)
			l := NewLive(r.S, nil)
			input := []string{"/admit patient_1 " + sc.ID, "hello, what's happened today?", "any allergies? what medicines do you take?",
				"check vitals and blood sugar, look at his pupils", "/wait 20m", "how are you feeling?", "/vitals", "@Preceptor any hints?",
				"@Monitor how are the numbers?", "/note", "/handoff"}
			var said []string
			for _, line := range input {
				for _, u := range drain(l.Submit(context.Background(), line)) {
					if u.Kind != UpdateDelta {
						said = append(said, u.Text)
					}
				}
			}
			view := l.Snapshot()
			chat := strings.Join(said, "\n")
			for _, m := range view.Chat {
				chat += "\n" + m.Content
			}
			header := view.Patient.Name + " " + view.Patient.Presentation + " " + strings.Join(view.Patient.Found, " ")
			if view.Patient.Presentation != sc.Presentation {
				t.Errorf("the header shows %q, want the presentation %q", view.Patient.Presentation, sc.Presentation)
			}
			if !strings.Contains(chat, "admitted: "+sc.Demographics.Name) || !strings.Contains(chat, sc.Presentation) {
				t.Errorf("the admission does not give the presentation %q", sc.Presentation)
			}
			secrets := []string{sc.Title}
			for _, name := range sc.StateNames() {
				if strings.Contains(name, "-") { // a one-word state ("severe") is also an everyday word
					secrets = append(secrets, name)
				}
			}
			for _, secret := range secrets {
				if strings.Contains(strings.ToLower(chat+header), strings.ToLower(secret)) {
					t.Errorf("the trainee's screen names %q", secret)
				}
			}
		})
	}
}

// What the trainee asked about reads as words in the note and the handoff, never as the
// scenario's identifier ("about last_meal").
func TestTopicsReadAsWordsInTheNoteAndHandoff(t *testing.T) {
	r := sessiontest.Seeded(t)
	l := NewLive(r.S, nil)
	for _, line := range []string{"/admit patient_1 asthma-exacerbation", "when did you last eat?", "/note", "/handoff"} {
		drain(l.Submit(context.Background(), line))
	}
	var said []string
	for _, m := range l.Snapshot().Chat {
		said = append(said, m.Content)
	}
	chat := strings.Join(said, "\n")
	if strings.Contains(chat, "last_meal") || !strings.Contains(chat, "about last meal") {
		t.Errorf("the note and handoff do not word the question as words:\n%s", chat)
	}
}

// engine is a patient's engine, woken as a turn would wake it.
func engine(t *testing.T, r *sessiontest.Rig, id string) *physio.Engine {
	t.Helper()
	e, err := r.S.Engine(id)
	if err != nil || e == nil {
		t.Fatalf("patient %s: engine %v, %v", id, e, err)
	}
	return e
}

// A check in the second the nurse observed is the same moment measured twice. The trend pane, its
// arrows and the roster's NEWS2 direction compare the moment before, as the Monitor's "Since"
// does: found when a falling patient's arrows all said steady after `/wait 3m` and `/vitals`.
func TestATrendComparesTheMomentBefore(t *testing.T) {
	r := sessiontest.New(t, func(*session.Config) {})
	l := NewLive(r.S, nil)
	for _, line := range []string{"/admit patient_1 opioid-overdose", "oxygen via non-rebreather at 15 L/min and check vitals", "/wait 3m", "/vitals"} {
		drain(l.Submit(context.Background(), line))
	}
	readings := engine(t, r, "patient_1").Readings()
	n := len(readings)
	if n < 3 || readings[n-1].T != readings[n-2].T {
		t.Fatalf("want the last check in the second of the nurse's observation, so the two repeat one moment; readings %+v", readings)
	}
	before := readings[n-3]
	now := readings[n-1]
	v := l.Snapshot()
	for _, s := range v.Vitals {
		p := s.Points
		if len(p) < 2 || p[len(p)-1].At == p[len(p)-2].At {
			t.Fatalf("%s's trend ends with two points of one moment: %+v", s.Name, p)
		}
		if got := p[len(p)-2].Value; got != pointOf(before, s.Name) {
			t.Errorf("%s's trend compares %g, want the moment before's %g", s.Name, got, pointOf(before, s.Name))
		}
	}
	want := TrendFlat
	switch {
	case now.NEWS2 > before.NEWS2:
		want = TrendUp
	case now.NEWS2 < before.NEWS2:
		want = TrendDown
	}
	if want == TrendFlat {
		t.Fatalf("NEWS2 %d then %d: the case no longer moves in three minutes, so this proves nothing", before.NEWS2, now.NEWS2)
	}
	if got := v.Roster[0].Trend; got != want {
		t.Errorf("the roster's NEWS2 went %d → %d and shows trend %v, want %v", before.NEWS2, now.NEWS2, got, want)
	}
}

func pointOf(r physio.Reading, name string) float64 {
	return float64(map[string]int{"HR": r.HR, "RR": r.RR, "SpO2": r.SpO2, "SBP": r.SBP}[name])
}
