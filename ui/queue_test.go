package ui

import (
	"slices"
	"strings"
	"testing"

	"github.com/ward-sim/ward/session/live"
)

// userLines is what the trainee said in a patient's conversation, oldest first.
func userLines(f *fakeShift, patient string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, m := range f.histories[patient] {
		if m.Role == "user" && strings.HasSuffix(m.ID, "u") {
			out = append(out, m.Content)
		}
	}
	return out
}

// The first sequence, typed while the first line's reply is still coming: every line is
// sent whole, once, in order, to the patient it was typed for.
func TestLinesTypedDuringATurnRunInOrderToTheirPatient(t *testing.T) {
	f := newFakeWard()
	m, readNext := gatedTurn(t, f, "review patient_2")
	for _, line := range []string{"how are you? TA1", "any allergies TA2"} {
		typeText(m, line)
		press(t, m, "enter")
		if !m.input.Empty() {
			t.Fatalf("enter did not clear the input at once: %q", m.input.Value())
		}
	}
	press(t, m, "alt+3")
	typeText(m, "how is the pain TA3")
	press(t, m, "enter")
	out := screen(m)
	for _, want := range []string{"You · queued", "how are you? TA1", "any allergies TA2", "alt+3: switch to patient_3",
		"how is the pain TA3", "generating… · 4 queued"} {
		if !strings.Contains(out, want) {
			t.Errorf("the screen does not show %q:\n%s", want, out)
		}
	}
	close(f.gate)
	run(m, readNext)
	_, submitted := f.recorded()
	if want := []string{"review patient_2", "how are you? TA1", "any allergies TA2", "how is the pain TA3"}; !slices.Equal(submitted, want) {
		t.Fatalf("submitted %q, want %q", submitted, want)
	}
	if got := userLines(f, "patient_2"); !slices.Equal(got, []string{"how are you? TA1", "any allergies TA2"}) {
		t.Errorf("patient_2 heard %q", got)
	}
	if got := userLines(f, "patient_3"); !slices.Equal(got, []string{"how is the pain TA3"}) {
		t.Errorf("patient_3 heard %q", got)
	}
	if out := screen(m); strings.Contains(out, "queued") || strings.Contains(out, "generating") {
		t.Errorf("the status bar still speaks of a queue or a reply:\n%s", out)
	}
}

// The second sequence: lines typed while /wait runs are sent, and once everything has run the
// status bar says nothing is coming.
func TestStatusBarTellsTheTruthAfterAWait(t *testing.T) {
	f := newFakeWard()
	m, readNext := gatedTurn(t, f, "/wait 1m")
	for _, line := range []string{"how are you TD1", "is the pain better TD2"} {
		typeText(m, line)
		press(t, m, "enter")
	}
	press(t, m, "ctrl+r") // refused while busy, and said so until it is not
	if !strings.Contains(screen(m), "ctrl+r retries once nothing is running") {
		t.Fatalf("no word why ctrl+r waits:\n%s", screen(m))
	}
	close(f.gate)
	run(m, readNext)
	if _, submitted := f.recorded(); !slices.Equal(submitted, []string{"/wait 1m", "how are you TD1", "is the pain better TD2"}) {
		t.Fatalf("submitted %q", submitted)
	}
	out := screen(m)
	if !m.input.Empty() || strings.Contains(out, "still coming") || strings.Contains(out, "generating") || strings.Contains(out, "ctrl+r retries once") {
		t.Fatalf("input %q, or a stale status:\n%s", m.input.Value(), out)
	}
}

// esc takes queued lines back, newest first, into an empty input; with nothing queued it cancels
// the reply.
func TestEscTakesBackQueuedLinesThenCancels(t *testing.T) {
	f := newFakeWard()
	m, readNext := gatedTurn(t, f, "first")
	for _, line := range []string{"second", "third"} {
		typeText(m, line)
		press(t, m, "enter")
	}
	press(t, m, "esc")
	if m.input.Value() != "third" || len(m.queue) != 1 || m.turn.cancelled {
		t.Fatalf("esc: input %q, queue %v, cancelled %v", m.input.Value(), m.queue, m.turn.cancelled)
	}
	press(t, m, "esc") // the input holds a line: the queue stays
	if m.input.Value() != "third" || len(m.queue) != 1 || !strings.Contains(screen(m), "send or clear what you are typing first") {
		t.Fatalf("esc with text typed: input %q, queue %v\n%s", m.input.Value(), m.queue, screen(m))
	}
	press(t, m, "enter") // queued again, after "second"
	press(t, m, "esc", "backspace", "backspace", "backspace", "backspace", "backspace", "esc")
	if m.input.Value() != "second" || len(m.queue) != 0 {
		t.Fatalf("input %q, queue %v", m.input.Value(), m.queue)
	}
	press(t, m, "esc")
	if !m.turn.cancelled {
		t.Fatal("esc with nothing queued did not cancel the reply")
	}
	run(m, readNext)
	if _, submitted := f.recorded(); !slices.Equal(submitted, []string{"first"}) || m.input.Value() != "second" {
		t.Fatalf("submitted %q, input %q", submitted, m.input.Value())
	}
}

// The third sequence: /clear, then at once a line. The line's keys, its "y" among them, go to the
// input, not to the question; the clear waits for a deliberate y, and the line runs after it.
func TestClearQuestionIgnoresKeysTypedBeforeIt(t *testing.T) {
	for _, answer := range []string{"n", "y"} {
		f := newFakeWard()
		m := newTestModel(t, f, 120, 40)
		typeText(m, "/clear")
		press(t, m, "enter")
		if m.overlay != overlayConfirm {
			t.Fatal("no question before the clear")
		}
		typeText(m, "how are you feeling")
		press(t, m, "enter")
		if _, submitted := f.recorded(); len(submitted) != 0 || m.overlay != overlayConfirm {
			t.Fatalf("typed keys answered the question: submitted %q", submitted)
		}
		if !strings.Contains(screen(m), "waiting for your answer · 1 queued") {
			t.Fatalf("the status bar does not say what waits:\n%s", screen(m))
		}
		press(t, m, answer) // still too soon: the trainee has not paused to read
		if _, submitted := f.recorded(); len(submitted) != 0 || m.input.Value() != answer {
			t.Fatalf("%s pressed at once answered: submitted %q, input %q", answer, submitted, m.input.Value())
		}
		press(t, m, "backspace")
		later(m)
		press(t, m, answer)
		want := []string{"how are you feeling"}
		if answer == "y" {
			want = []string{"/clear", "how are you feeling"}
		}
		if _, submitted := f.recorded(); !slices.Equal(submitted, want) {
			t.Fatalf("answer %s: submitted %q, want %q", answer, submitted, want)
		}
	}
}

// The fourth sequence: a line names a new patient and the session asks before admitting; a line
// typed at once, and a switch, wait for the answer and run after it, in order.
func TestAdmissionQuestionKeepsTheLinesTypedAhead(t *testing.T) {
	f := newFakeWard()
	f.ask = live.Update{Kind: live.UpdateConfirm, Line: "/admit patient_6", Text: "Admit patient_6 as a new patient?"}
	m, readNext := gatedTurn(t, f, "review patient_6")
	typeText(m, "hello there")
	press(t, m, "enter")
	close(f.gate)
	run(m, readNext)
	if m.overlay != overlayConfirm || !strings.Contains(screen(m), "Admit patient_6") {
		t.Fatalf("no question:\n%s", screen(m))
	}
	press(t, m, "enter", "alt+2") // not answers: enter sends nothing from an empty input, alt+2 waits
	if _, submitted := f.recorded(); len(submitted) != 1 || m.overlay != overlayConfirm {
		t.Fatalf("a key that is not an answer answered: %q", submitted)
	}
	press(t, m, "ctrl+k")
	if m.overlay != overlayConfirm {
		t.Fatal("the palette took the question's place")
	}
	later(m)
	typeText(m, "a") // a trainee typing is not answering: the y goes to the input
	press(t, m, "y")
	if m.input.Value() != "ay" || m.overlay != overlayConfirm {
		t.Fatalf("typing answered: input %q", m.input.Value())
	}
	if !strings.Contains(screen(m), "Your text stays in the input") {
		t.Errorf("the question does not say why y went to the input:\n%s", screen(m))
	}
	press(t, m, "backspace", "backspace")
	later(m)
	press(t, m, "y")
	decisions, submitted := f.recorded()
	if want := []string{"review patient_6", "/admit patient_6", "hello there"}; !slices.Equal(submitted, want) {
		t.Fatalf("submitted %q, want %q", submitted, want)
	}
	if !slices.Equal(decisions, []string{"SWITCH_EXISTING patient_2"}) {
		t.Fatalf("the switch asked for during the question did not run after the lines: %q", decisions)
	}
}

// ctrl+c with lines queued says they will not be sent; a second press quits.
func TestQuitWithLinesQueuedWarnsFirst(t *testing.T) {
	f := newFakeWard()
	m, readNext := gatedTurn(t, f, "first")
	typeText(m, "second")
	press(t, m, "enter")
	if press(t, m, "ctrl+c") || !strings.Contains(screen(m), "1 queued line will not be sent") {
		t.Fatalf("quit at once, or no warning:\n%s", screen(m))
	}
	if !press(t, m, "ctrl+c") {
		t.Fatal("second ctrl+c did not quit")
	}
	run(m, readNext)
	if _, submitted := f.recorded(); !slices.Equal(submitted, []string{"first"}) {
		t.Fatalf("submitted %q", submitted)
	}
}

// Two questions in one turn: the second waits behind the first instead of replacing it, and a
// yes runs its line once the turn that asked has ended.
func TestQuestionsWaitBehindEachOther(t *testing.T) {
	f := newFakeWard()
	m, readNext := gatedTurn(t, f, "I prefer SBAR handoffs; see patient 6")
	m.Update(streamMsg{events: []live.Update{
		{Kind: live.UpdateConfirm, Text: "Make SBAR the format /handoff drafts?", Line: "/prefs handoff sbar"},
		{Kind: live.UpdateConfirm, Text: "Admit patient_6 as a new patient?", Line: "/admit patient_6"},
	}})
	if out := screen(m); !strings.Contains(out, "Make SBAR") || strings.Contains(out, "Admit patient_6") {
		t.Fatalf("the first question is not the one shown:\n%s", out)
	}
	later(m)
	press(t, m, "y")
	if out := screen(m); !strings.Contains(out, "Admit patient_6") {
		t.Fatalf("the second question did not follow the first:\n%s", out)
	}
	press(t, m, "n") // too soon after the first answer: goes to the input
	if m.overlay != overlayConfirm || m.input.Value() != "n" {
		t.Fatalf("the second question took a key pressed as it opened: input %q", m.input.Value())
	}
	press(t, m, "backspace")
	later(m)
	press(t, m, "n")
	close(f.gate)
	run(m, readNext)
	if _, submitted := f.recorded(); !slices.Equal(submitted, []string{"I prefer SBAR handoffs; see patient 6", "/prefs handoff sbar"}) {
		t.Fatalf("submitted %q", submitted)
	}
}

// A line that fails holds the lines typed after it: they may have been meant for the patient it
// did not find. A line typed now runs ahead of them; enter on an empty input sends them on.
func TestLinesAfterAFailedLineAreHeld(t *testing.T) {
	f := newFakeWard()
	f.fails = map[string]live.Update{"review patient_2a": {Code: "NEEDS_PATIENT_ID",
		Text: "patient_2a is not a patient ID ward can use. Which patient? On the roster: patient_1, patient_2, patient_3."}}
	m, readNext := gatedTurn(t, f, "review patient_2a")
	typeText(m, "how are you")
	press(t, m, "enter")
	close(f.gate)
	run(m, readNext)
	if _, submitted := f.recorded(); !slices.Equal(submitted, []string{"review patient_2a"}) {
		t.Fatalf("the line after the failed one was sent: %q", submitted)
	}
	out := screen(m)
	for _, want := range []string{"You · held", "patient_2a is not a patient ID", "held 1 line typed after it: enter on an empty input sends it on", "1 held"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("the screen lacks %q:\n%s", want, out)
		}
	}
	later(m)                        // the trainee reads why
	typeText(m, "review patient_2") // the correction runs at once, ahead of the held line
	press(t, m, "enter")
	if _, submitted := f.recorded(); len(submitted) != 2 || len(m.held) != 1 {
		t.Fatalf("the correction did not run ahead of the held line: %q, held %v", submitted, m.held)
	}
	press(t, m, "enter") // empty input: send the held line on
	if _, submitted := f.recorded(); !slices.Equal(submitted, []string{"review patient_2a", "review patient_2", "how are you"}) {
		t.Fatalf("submitted %q", submitted)
	}
	if got := userLines(f, "patient_2"); !slices.Equal(got, []string{"how are you"}) {
		t.Errorf("patient_2 heard %q", got)
	}
	if out := screen(m); strings.Contains(out, "held") {
		t.Errorf("the screen still speaks of held lines:\n%s", out)
	}
}

// No to a patient's admission holds the lines typed after the line that asked; esc takes a held
// line back.
func TestNoToAnAdmissionHoldsTheLinesTypedAfter(t *testing.T) {
	f := newFakeWard()
	f.ask = live.Update{Kind: live.UpdateConfirm, Line: "/admit patient_6", Text: "Admit patient_6 as a new patient?"}
	m, readNext := gatedTurn(t, f, "review patient_6")
	typeText(m, "hello there")
	press(t, m, "enter")
	close(f.gate)
	run(m, readNext)
	later(m)
	press(t, m, "n")
	if _, submitted := f.recorded(); len(submitted) != 1 || len(m.held) != 1 {
		t.Fatalf("after no: submitted %q, held %v", submitted, m.held)
	}
	press(t, m, "esc")
	if m.input.Value() != "hello there" || len(m.held) != 0 {
		t.Fatalf("esc did not take the held line back: input %q, held %v", m.input.Value(), m.held)
	}
}

// A line sent just after a line failed, before the trainee can have read why, was typed ahead of
// the failure: it is held too. After a pause, lines run as usual.
func TestALineTypedAsALineFailsIsHeld(t *testing.T) {
	f := newFakeWard()
	f.fails = map[string]live.Update{"review patient_2a": {Code: "NEEDS_PATIENT_ID", Text: "patient_2a is not a patient ID ward can use."}}
	m := newTestModel(t, f, 120, 40)
	typeText(m, "review patient_2a")
	press(t, m, "enter") // the turn fails before the next key, as on a fast backend
	typeText(m, "how are you")
	press(t, m, "enter")
	if _, submitted := f.recorded(); !slices.Equal(submitted, []string{"review patient_2a"}) || len(m.held) != 1 {
		t.Fatalf("the line typed ahead of the failure was sent: %q, held %v", submitted, m.held)
	}
	later(m)
	typeText(m, "review patient_2")
	press(t, m, "enter", "enter")
	if _, submitted := f.recorded(); !slices.Equal(submitted, []string{"review patient_2a", "review patient_2", "how are you"}) {
		t.Fatalf("submitted %q", submitted)
	}
}
