package ui

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/ward-sim/ward/session/live"
	"github.com/ward-sim/ward/themes"
)

// raise puts an alert on a fake patient and counts it as sounded, as the session would.
func (f *fakeShift) raise(id string, level live.AlertLevel, text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.roster {
		if f.roster[i].ID == id {
			f.roster[i].Alert = live.Alert{PatientID: id, Level: level, Text: text, Raised: f.clock}
		}
	}
	f.sounded++
}

// An alarm on another patient shows on the roster and the status bar while the trainee stays
// where they are; the jump key goes to it, and the acknowledge key sends /ack for that patient.
func TestAlarmWhileAnotherPatientIsActive(t *testing.T) {
	f := newFakeWard()
	m := newTestModel(t, f, 120, 40)
	f.raise("patient_3", live.AlertEmergency, "NEWS2 9 — RR 30, SpO2 88% on air. Emergency — please come now.")
	m.Update(snapshotMsg{state: f.Snapshot()})
	s := screen(m)
	if !strings.Contains(s, "EMERGENCY patient_3: NEWS2 9") || !strings.Contains(s, "alt+a go to alarm") {
		t.Fatalf("the status bar does not show the emergency:\n%s", s)
	}
	if m.state.Patient.ID != "patient_1" {
		t.Fatalf("an alarm switched the patient to %s", m.state.Patient.ID)
	}
	if order := rosterIDs(m); order[0] != "patient_3" {
		t.Errorf("roster order %v: an emergency call goes first, whatever the last score said", order)
	}
	press(t, m, "alt+a")
	if m.state.Patient.ID != "patient_3" {
		t.Fatalf("alt+a went to %s, want patient_3", m.state.Patient.ID)
	}
	// With the emergency's patient active, the key goes to the next alert waiting.
	press(t, m, "alt+a")
	if m.state.Patient.ID != "patient_2" {
		t.Errorf("alt+a from the alarm's own patient went to %s, want the next waiting (patient_2)", m.state.Patient.ID)
	}
	press(t, m, "alt+k")
	if _, submitted := f.recorded(); !slices.Contains(submitted, "/ack") {
		t.Errorf("alt+k submitted %v, want /ack", submitted)
	}
}

func rosterIDs(m *Model) []string {
	var ids []string
	for _, e := range m.roster.ordered() {
		ids = append(ids, e.ID)
	}
	return ids
}

// The bell rings once for each snapshot in which an alarm sounded, and never with the setting off.
func TestBellRingsWhenAnAlarmSounds(t *testing.T) {
	for _, on := range []bool{true, false} {
		f := newFakeWard()
		var bell bytes.Buffer
		th, _ := themes.New("dark", false)
		opts := Options{Theme: th, Clipboard: io.Discard}
		if on {
			opts.Bell = &bell
		}
		m := New(f, opts)
		_, cmd := m.Update(snapshotMsg{state: f.Snapshot()})
		run(m, cmd)
		f.raise("patient_3", live.AlertAlarm, "Alarm: SpO2 84 (below 90).")
		for range 2 { // the same count twice: one ring
			_, cmd = m.Update(snapshotMsg{state: f.Snapshot()})
			run(m, cmd)
		}
		want := ""
		if on {
			want = "\a"
		}
		if bell.String() != want {
			t.Errorf("bell on=%v rang %q, want %q", on, bell.String(), want)
		}
	}
}

func TestAlarmKeysWithNothingWaiting(t *testing.T) {
	f := newFakeWard()
	f.roster[1].Alert = live.Alert{}
	m := newTestModel(t, f, 120, 40)
	press(t, m, "alt+a")
	if m.state.Patient.ID != "patient_1" || !strings.Contains(m.notice.text, "no alarm") {
		t.Errorf("alt+a with nothing waiting: patient %s, notice %q", m.state.Patient.ID, m.notice.text)
	}
}

// The status bar quotes as much of an alert as its left two thirds hold: all of it on a wide
// terminal, a cut one on a narrow one.
func TestStatusBarQuotesTheAlertAsWidthAllows(t *testing.T) {
	const text = "NEWS2 9 — RR 30, SpO2 88% on air. Emergency — please come now."
	for _, tc := range []struct {
		width int
		whole bool
	}{{180, true}, {100, false}} {
		f := newFakeWard()
		m := newTestModel(t, f, tc.width, 40)
		f.raise("patient_3", live.AlertEmergency, text)
		m.Update(snapshotMsg{state: f.Snapshot()})
		s := screen(m)
		if !strings.Contains(s, "EMERGENCY patient_3: NEWS2 9 — RR 30, SpO2 88%") {
			t.Fatalf("at %d columns the alert's first 32 characters are not quoted:\n%s", tc.width, s)
		}
		if strings.Contains(s, text) != tc.whole {
			t.Errorf("at %d columns, whole alert quoted = %v, want %v:\n%s", tc.width, !tc.whole, tc.whole, s)
		}
	}
}

// The roster marks a score on Scale 2, the exception a prescription makes, and leaves Scale 1
// as it is.
func TestRosterMarksAScoreOnScale2(t *testing.T) {
	th, _ := themes.New("dark", true)
	for scale, want := range map[int]string{1: " 6", 2: " 6²"} {
		got := stripStyles(scoreCell(&th, live.Score{Known: true, Value: 6, Band: live.BandMedium, Scale: scale}))
		if got != want {
			t.Errorf("Scale %d: the roster shows %q, want %q", scale, got, want)
		}
	}
}
