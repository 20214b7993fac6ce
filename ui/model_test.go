package ui

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/live"
	"github.com/ward-sim/ward/themes"
)

func screen(m *Model) string { return ansi.Strip(m.View()) }

func headerLine(m *Model) string { return strings.SplitN(screen(m), "\n", 2)[0] }

func TestEnterSendsAndTheReplyStreamsIn(t *testing.T) {
	f := newFakeWard()
	m := newTestModel(t, f, 120, 40)
	typeText(m, "how do you feel?")
	press(t, m, "enter")

	if _, submitted := f.recorded(); !slices.Equal(submitted, []string{"how do you feel?"}) {
		t.Fatalf("submitted %q", submitted)
	}
	if !m.input.Empty() {
		t.Errorf("input not cleared: %q", m.input.Value())
	}
	out := screen(m)
	for _, want := range []string{"how do you feel?", "my throat is tight."} {
		if !strings.Contains(out, want) {
			t.Errorf("screen lacks %q:\n%s", want, out)
		}
	}
	if m.turn != nil || len(m.chat.live) != 0 {
		t.Error("turn still running after the engine closed its channel")
	}
}

func TestEnterWithEmptyInputSendsNothing(t *testing.T) {
	f := newFakeWard()
	m := newTestModel(t, f, 120, 40)
	press(t, m, "enter", "space", "enter")
	if _, submitted := f.recorded(); len(submitted) != 0 {
		t.Fatalf("submitted %q", submitted)
	}
}

func TestCtrlJInsertsANewline(t *testing.T) {
	f := newFakeWard()
	m := newTestModel(t, f, 120, 40)
	typeText(m, "give oxygen")
	press(t, m, "ctrl+j")
	typeText(m, "then recheck")
	if got := m.input.Value(); got != "give oxygen\nthen recheck" {
		t.Fatalf("input = %q", got)
	}
	press(t, m, "enter")
	if _, submitted := f.recorded(); !slices.Equal(submitted, []string{"give oxygen\nthen recheck"}) {
		t.Fatalf("submitted %q", submitted)
	}
}

func TestUpDownRecallEarlierInputsWhenEmpty(t *testing.T) {
	m := newTestModel(t, newFakeWard(), 120, 40)
	for _, s := range []string{"one", "two"} {
		typeText(m, s)
		press(t, m, "enter")
	}
	steps := []struct{ key, want string }{
		{"up", "two"}, {"up", "one"}, {"up", "one"}, {"down", "two"}, {"down", ""},
	}
	for _, s := range steps {
		press(t, m, s.key)
		if got := m.input.Value(); got != s.want {
			t.Fatalf("after %s: input = %q, want %q", s.key, got, s.want)
		}
	}
	// Once the recalled text is edited, up moves the cursor instead.
	press(t, m, "up")
	typeText(m, "!")
	press(t, m, "up")
	if got := m.input.Value(); got != "two!" {
		t.Fatalf("edited recall was replaced: %q", got)
	}
}

func TestAltNumberSwitchesThroughTheEngine(t *testing.T) {
	f := newFakeWard()
	m := newTestModel(t, f, 120, 40)
	press(t, m, "alt+2")
	if !strings.HasPrefix(headerLine(m), "patient_2") {
		t.Fatalf("header after alt+2: %q", headerLine(m))
	}
	press(t, m, "alt+3", "alt+3", "alt+1")
	decisions, _ := f.recorded()
	want := []string{"SWITCH_EXISTING patient_2", "SWITCH_EXISTING patient_3", "SWITCH_EXISTING patient_1"}
	if !slices.Equal(decisions, want) {
		t.Fatalf("decisions %q, want %q (switching to the active patient records nothing)", decisions, want)
	}
	press(t, m, "alt+9")
	if !strings.Contains(screen(m), "no patient 9") {
		t.Errorf("alt+9 on a roster of 3 says nothing:\n%s", screen(m))
	}
}

func TestCtrlNAndCtrlPWalkTheRosterInDisplayOrder(t *testing.T) {
	f := newFakeWard()
	m := newTestModel(t, f, 120, 40)
	// By acuity: patient_1 (7), patient_2 (3, one parameter at 3), patient_3 (1).
	steps := []struct{ key, want string }{
		{"ctrl+n", "patient_2"}, {"ctrl+n", "patient_3"}, {"ctrl+n", "patient_1"}, {"ctrl+p", "patient_3"},
	}
	for _, s := range steps {
		press(t, m, s.key)
		if got := m.state.Patient.ID; got != s.want {
			t.Fatalf("after %s: active %s, want %s", s.key, got, s.want)
		}
	}
}

func TestTabCyclesFocus(t *testing.T) {
	m := newTestModel(t, newFakeWard(), 120, 40)
	for _, want := range []focusArea{focusChat, focusRoster, focusInput} {
		press(t, m, "tab")
		if m.focus != want {
			t.Fatalf("focus = %d, want %d", m.focus, want)
		}
	}
	press(t, m, "shift+tab")
	if m.focus != focusRoster {
		t.Fatalf("shift+tab: focus = %d, want roster", m.focus)
	}
	press(t, m, "esc")
	if m.focus != focusInput || !m.input.focused {
		t.Fatal("esc with nothing running does not return to the input")
	}
}

func TestRosterEnterSwitchesToTheSelectedPatient(t *testing.T) {
	f := newFakeWard()
	m := newTestModel(t, f, 120, 40)
	press(t, m, "tab", "tab", "down", "down", "enter")
	if got := m.state.Patient.ID; got != "patient_3" {
		t.Fatalf("active %s, want patient_3", got)
	}
	if m.focus != focusInput {
		t.Errorf("focus stays on the roster after a switch: %d", m.focus)
	}
	if decisions, _ := f.recorded(); !slices.Equal(decisions, []string{"SWITCH_EXISTING patient_3"}) {
		t.Fatalf("decisions %q", decisions)
	}
}

func TestRosterOrderToggles(t *testing.T) {
	f := newFakeWard()
	f.roster[0], f.roster[2] = f.roster[2], f.roster[0] // IDs out of acuity order
	m := newTestModel(t, f, 120, 40)
	ids := func() string {
		var out []string
		for _, e := range m.roster.ordered() {
			out = append(out, e.ID)
		}
		return strings.Join(out, ",")
	}
	if got := ids(); got != "patient_1,patient_2,patient_3" {
		t.Fatalf("acuity order %s", got)
	}
	press(t, m, "tab", "tab", "alt+o")
	if got := ids(); got != "patient_3,patient_2,patient_1" {
		t.Fatalf("ID order %s", got)
	}
	if !strings.Contains(screen(m), "by ID") {
		t.Error("sidebar does not say the order changed")
	}
	press(t, m, "esc", "alt+o") // it works from the input too
	if got := ids(); got != "patient_1,patient_2,patient_3" {
		t.Fatalf("alt+o from the input: %s", got)
	}
}

func TestPagingAndFollowMode(t *testing.T) {
	f := newFakeWard()
	f.histories["patient_1"] = bigHistory("patient_1", 200)
	m := newTestModel(t, f, 120, 40)
	if !m.chat.Following() {
		t.Fatal("a fresh chat does not follow")
	}
	last := "(199)"
	if !strings.Contains(screen(m), last) {
		t.Fatalf("newest message not on screen:\n%s", screen(m))
	}

	press(t, m, "pgup")
	if m.chat.Following() || strings.Contains(screen(m), last) {
		t.Fatal("pgup did not scroll away from the newest message")
	}
	press(t, m, "pgdown")
	if !m.chat.Following() {
		t.Fatal("pgdn back to the bottom did not resume following")
	}

	press(t, m, "home")
	if !strings.Contains(screen(m), "(0)") {
		t.Fatalf("home did not show the oldest message:\n%s", screen(m))
	}
	// A new message while scrolled up: the view stays, a marker appears.
	f.histories["patient_1"] = append(f.histories["patient_1"], live.ChatMessage{ID: "new", Role: "assistant", Content: "fresh"})
	m.Update(snapshotMsg{state: f.Snapshot()})
	if out := screen(m); !strings.Contains(out, "(0)") || !strings.Contains(out, "new messages ↓") {
		t.Fatalf("scrolled view moved or has no marker:\n%s", out)
	}
	press(t, m, "end")
	if out := screen(m); !m.chat.Following() || !strings.Contains(out, "fresh") || strings.Contains(out, "new messages ↓") {
		t.Fatalf("end did not return to the newest line:\n%s", out)
	}
}

// With the chat focused, ↑ and ↓ move a selection over the messages, and the view follows it.
func TestChatFocusSelectsMessages(t *testing.T) {
	f := newFakeWard()
	f.histories["patient_1"] = bigHistory("patient_1", 50)
	m := newTestModel(t, f, 120, 40)
	press(t, m, "tab")
	if m.chat.selected != 49 {
		t.Fatalf("focusing the chat selects message %d, want the newest (49)", m.chat.selected)
	}
	press(t, m, "up", "up")
	if m.chat.selected != 47 {
		t.Fatalf("two ups: message %d selected, want 47", m.chat.selected)
	}
	for i := 0; i < 40; i++ {
		press(t, m, "up")
	}
	if m.chat.selected != 7 || m.chat.Following() || !strings.Contains(screen(m), "(7)") {
		t.Fatalf("selection %d is not on screen:\n%s", m.chat.selected, screen(m))
	}
	press(t, m, "end")
	if !m.chat.Following() {
		t.Fatal("end in the chat did not follow")
	}
}

func TestStreamingWhileScrolledUpShowsMarker(t *testing.T) {
	f := newFakeWard()
	f.histories["patient_1"] = bigHistory("patient_1", 100)
	m, readNext := gatedTurn(t, f, "and now?")
	press(t, m, "pgup")
	m.Update(streamMsg{events: []live.Update{{Kind: live.UpdateDelta, MessageID: "r1", Agent: "patient", Text: "I am"}}})
	if !strings.Contains(screen(m), "new messages ↓") {
		t.Fatalf("no marker for a streaming reply below:\n%s", screen(m))
	}
	press(t, m, "end")
	if !strings.Contains(screen(m), "I am") {
		t.Fatalf("streamed text not shown at the bottom:\n%s", screen(m))
	}
	press(t, m, "esc")
	run(m, readNext)
}

// gatedTurn shows f, whose turns hold after storing the user's text until
// the test ends them, and sends text. It returns the command reading the
// turn's first events, without running it, so the test controls the stream.
func gatedTurn(t *testing.T, f *fakeShift, text string) (*Model, tea.Cmd) {
	t.Helper()
	f.gate = make(chan struct{})
	m := newTestModel(t, f, 120, 40)
	typeText(m, text)
	_, cmd := m.Update(keyMsg("enter"))
	_, readFirst := m.Update(cmd())
	if m.turn == nil || readFirst == nil {
		t.Fatal("enter did not start a turn")
	}
	return m, readFirst
}

func TestEscCancelsTheGeneration(t *testing.T) {
	m, readNext := gatedTurn(t, newFakeWard(), "talk to me")
	press(t, m, "esc")
	if !m.turn.cancelled {
		t.Fatal("esc did not cancel")
	}
	run(m, readNext) // the engine stops and closes its channel
	if m.turn != nil {
		t.Fatal("turn not over after the engine stopped")
	}
	if !strings.Contains(screen(m), "reply cancelled") {
		t.Errorf("no word of the cancel:\n%s", screen(m))
	}
}

func TestCtrlCQuits(t *testing.T) {
	t.Run("idle", func(t *testing.T) {
		m := newTestModel(t, newFakeWard(), 120, 40)
		if !press(t, m, "ctrl+c") {
			t.Fatal("ctrl+c did not quit")
		}
	})
	t.Run("generating: waits for the engine", func(t *testing.T) {
		m, readNext := gatedTurn(t, newFakeWard(), "hello")
		if press(t, m, "ctrl+c") {
			t.Fatal("first ctrl+c while generating quit at once")
		}
		if !run(m, readNext) {
			t.Fatal("did not quit once the cancelled turn ended")
		}
	})
	t.Run("generating: second press forces", func(t *testing.T) {
		m, readNext := gatedTurn(t, newFakeWard(), "hello")
		press(t, m, "ctrl+c")
		if !press(t, m, "ctrl+c") {
			t.Fatal("second ctrl+c did not force the quit")
		}
		run(m, readNext)
	})
}

func TestCtrlRRetriesTheLastTurn(t *testing.T) {
	f := newFakeWard()
	f.replyErr = "the model returned nothing — retry with ctrl+r"
	m := newTestModel(t, f, 120, 40)
	typeText(m, "hello")
	press(t, m, "enter")
	if !strings.Contains(screen(m), "the model returned nothing") {
		t.Fatalf("error not shown:\n%s", screen(m))
	}
	f.replyErr = ""
	press(t, m, "ctrl+r")
	if f.retries != 1 {
		t.Fatalf("retries = %d", f.retries)
	}
	if out := screen(m); strings.Contains(out, "returned nothing") || !strings.Contains(out, "throat is tight") {
		t.Fatalf("retry did not replace the error with a reply:\n%s", out)
	}
}

// A switch asked for mid-reply waits for the reply, and the line typed after it goes to the
// patient it names.
func TestSwitchWhileGeneratingWaitsItsTurn(t *testing.T) {
	f := newFakeWard()
	m, readNext := gatedTurn(t, f, "hello")
	press(t, m, "alt+2")
	typeText(m, "and you?")
	press(t, m, "enter")
	if decisions, _ := f.recorded(); len(decisions) != 0 || !strings.Contains(screen(m), "queued — alt+2: switch to patient_2") {
		t.Fatalf("switched mid-reply, or the switch is not shown as queued: %q\n%s", decisions, screen(m))
	}
	close(f.gate)
	run(m, readNext)
	if decisions, _ := f.recorded(); !slices.Equal(decisions, []string{"SWITCH_EXISTING patient_2"}) {
		t.Fatalf("decisions %q", decisions)
	}
	if h := f.histories["patient_2"]; h[len(h)-2].Content != "and you?" {
		t.Fatalf("the line after alt+2 did not reach patient_2: %+v", h)
	}
}

func TestCtrlOInspector(t *testing.T) {
	f := newFakeWard()
	f.traces = []live.TurnTrace{sampleTrace()}
	m := newTestModel(t, f, 120, 40)
	var clip bytes.Buffer
	m.opts.Clipboard = &clip

	press(t, m, "ctrl+o")
	out := screen(m)
	for _, want := range []string{"Turn 3", "UNCHANGED → patient_1", "source rules", "▸ memory", "num_predict 400", "cache hit"} {
		if !strings.Contains(out, want) {
			t.Errorf("inspector lacks %q:\n%s", want, out)
		}
	}
	press(t, m, "down", "down", "down", "enter")
	if out := screen(m); !strings.Contains(out, "[safety-critical] system:") {
		t.Errorf("unfolded memory lacks its recall rule:\n%s", out)
	}

	press(t, m, "c")
	if !strings.HasPrefix(clip.String(), "\x1b]52;c;") {
		t.Errorf("copy wrote %q, want an OSC 52 sequence", clip.String())
	}
	press(t, m, "s")
	saved, err := os.ReadFile(filepath.Join(m.opts.SaveDir, "ward-prompt-turn3-call1.txt"))
	if err != nil || !strings.Contains(string(saved), "=== memory (80 tokens) ===") {
		t.Errorf("saved prompt: %v %q", err, saved)
	}

	press(t, m, "[")
	if !strings.Contains(screen(m), "no trace") {
		t.Errorf("older than the first turn shows something:\n%s", screen(m))
	}
	press(t, m, "]", "esc")
	if m.overlay != overlayNone {
		t.Fatal("esc did not close the inspector")
	}
	press(t, m, "ctrl+o", "ctrl+o")
	if m.overlay != overlayNone {
		t.Fatal("ctrl+o does not toggle")
	}
}

func TestCtrlKPalette(t *testing.T) {
	f := newFakeWard()
	m := newTestModel(t, f, 120, 40)
	press(t, m, "ctrl+k")
	if !strings.Contains(screen(m), "/patients") {
		t.Fatalf("palette does not list commands:\n%s", screen(m))
	}
	typeText(m, "vit")
	if out := screen(m); strings.Contains(out, "/patients") || !strings.Contains(out, "/vitals") {
		t.Fatalf("filter did not narrow the list:\n%s", out)
	}
	press(t, m, "enter")
	if _, submitted := f.recorded(); !slices.Equal(submitted, []string{"/vitals"}) {
		t.Fatalf("submitted %q", submitted)
	}

	press(t, m, "ctrl+k")
	typeText(m, "switch")
	press(t, m, "enter")
	if got := m.input.Value(); got != "/switch " {
		t.Fatalf("a command with arguments should wait in the input, got %q", got)
	}
	press(t, m, "ctrl+k", "esc")
	if m.overlay != overlayNone {
		t.Fatal("esc did not close the palette")
	}
}

func TestQuestionMarkHelp(t *testing.T) {
	m := newTestModel(t, newFakeWard(), 120, 40)
	press(t, m, "?")
	out := screen(m)
	for _, want := range []string{"alt+1…9", "ctrl+o", "prompt inspector", "ctrl+j"} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q", want)
		}
	}
	press(t, m, "?")
	if m.overlay != overlayNone {
		t.Fatal("? did not close help")
	}
	typeText(m, "any allergies")
	press(t, m, "?")
	if m.overlay != overlayNone || m.input.Value() != "any allergies?" {
		t.Fatalf("? while typing should type: overlay %d, input %q", m.overlay, m.input.Value())
	}
}

func TestStartDialog(t *testing.T) {
	f := newFakeWard()
	m := New(f, Options{StartShifts: []ShiftChoice{
		{ID: "quiet-night", Title: "Quiet night", Summary: "2 patients"},
		{ID: "busy-ed", Title: "Busy ED", Summary: "4 patients"},
	}})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	if !strings.Contains(screen(m), "Empty roster") {
		t.Fatalf("no start dialog:\n%s", screen(m))
	}
	press(t, m, "a", "down", "enter") // typing names the trainee, and goes nowhere else
	if !slices.Equal(f.started, []string{"busy-ed for a"}) || m.overlay != overlayNone {
		t.Fatalf("started %q, overlay %d", f.started, m.overlay)
	}
	if m.input.Value() != "" {
		t.Fatalf("key leaked into the input: %q", m.input.Value())
	}
}

// The start dialog names the trainee: the login name by default, changed by typing, fixed when
// the trainee's passphrase opened an encrypted database.
func TestStartDialogNamesTheTrainee(t *testing.T) {
	shifts := []ShiftChoice{{ID: "quiet-night", Title: "Quiet night", Summary: "2 patients"}}
	f := newFakeWard()
	m := New(f, Options{StartShifts: shifts, Trainee: "sam"})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	if !strings.Contains(screen(m), "Trainee: sam") {
		t.Fatalf("the dialog does not name the trainee:\n%s", screen(m))
	}
	press(t, m, "backspace", "backspace", "backspace")
	typeText(m, "Dr Lee")
	press(t, m, "enter")
	if !slices.Equal(f.started, []string{"quiet-night for Dr Lee"}) {
		t.Fatalf("started %q, want quiet-night for Dr Lee", f.started)
	}

	f = newFakeWard()
	m = New(f, Options{StartShifts: shifts, Trainee: "alice", TraineeFixed: true})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	press(t, m, "backspace", "x")
	if out := screen(m); !strings.Contains(out, "Trainee: alice (signed in: their passphrase or key opened ward)") {
		t.Fatalf("a fixed trainee changed, or is not said to be fixed:\n%s", out)
	}
	press(t, m, "enter")
	if !slices.Equal(f.started, []string{"quiet-night for alice"}) {
		t.Fatalf("started %q, want quiet-night for alice", f.started)
	}
}

// The start dialog offers the trainee's suggested next shift first, with why each patient was
// chosen: enter takes it, one key; another choice is a move away. It is offered only while the
// dialog names the trainee it was drawn for.
func TestStartDialogOffersTheNextShiftWithItsReasons(t *testing.T) {
	why := `you missed the critical action "oxygen" in 2 case(s) (asthma-exacerbation, pulmonary-embolism); this case asks for it again`
	shifts := []ShiftChoice{
		{ID: "next", Title: "Your next shift", Summary: "2 patients, chosen for you", Trainee: "sam",
			Reasons: []string{why, "you have not yet met a case of obstetrics"}},
		{ID: "quiet-night", Title: "Quiet night", Summary: "2 patients"},
	}
	f := newFakeWard()
	m := New(f, Options{StartShifts: shifts, Trainee: "sam"})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	out := screen(m)
	for _, want := range []string{"Your next shift", `  1. you missed the critical action "oxygen" in 2 case(s)`, "      exacerbation, pulmonary-embolism)",
		"  2. you have not yet met a case of obstetrics"} {
		if !strings.Contains(out, want) {
			t.Errorf("the dialog does not show %q:\n%s", want, out)
		}
	}
	press(t, m, "enter")
	if !slices.Equal(f.started, []string{"next for sam"}) {
		t.Fatalf("enter started %q; want the next shift for sam", f.started)
	}

	f = newFakeWard()
	m = New(f, Options{StartShifts: shifts, Trainee: "sam"})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	press(t, m, "down", "enter")
	if !slices.Equal(f.started, []string{"quiet-night for sam"}) {
		t.Fatalf("started %q; want the shift chosen instead", f.started)
	}

	f = newFakeWard()
	m = New(f, Options{StartShifts: shifts, Trainee: "sam"})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	press(t, m, "x")
	if out := screen(m); strings.Contains(out, "Your next shift") || strings.Contains(out, "oxygen") {
		t.Errorf("sam's next shift is offered to samx:\n%s", out)
	}
	press(t, m, "enter")
	if !slices.Equal(f.started, []string{"quiet-night for samx"}) {
		t.Fatalf("started %q; want the first shift left for samx", f.started)
	}
}

// The next shift is read after the first frame and offered first when it comes: a trainee who
// has not moved is on it, one who moved stays on their choice; a failure to read it is said and
// leaves the built-in shifts.
func TestStartDialogOffersTheNextShiftWhenItComes(t *testing.T) {
	next := ShiftChoice{ID: "next", Title: "Your next shift", Summary: "1 patient(s), chosen for you", Trainee: "sam",
		Reasons: []string{"you have not yet met a case of trauma"}}
	builtin := []ShiftChoice{{ID: "quiet-night", Title: "Quiet night", Summary: "2 patients"}, {ID: "busy-ed", Title: "Busy ED", Summary: "3 patients"}}
	read := 0
	opts := Options{StartShifts: builtin, Trainee: "sam", NextShift: func() (*ShiftChoice, error) { read++; return &next, nil }}
	f := newFakeWard()
	m := New(f, opts)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	if out := screen(m); !strings.Contains(out, "Quiet night") || strings.Contains(out, "Your next shift") || read != 0 {
		t.Fatalf("before Init's commands ran (read %d times):\n%s", read, out)
	}
	run(m, m.readNextShift())
	if out := screen(m); read != 1 || !strings.Contains(out, "Your next shift") || !strings.Contains(out, "a case of trauma") {
		t.Fatalf("the offer did not come (read %d times):\n%s", read, out)
	}
	press(t, m, "enter")
	if !slices.Equal(f.started, []string{"next for sam"}) {
		t.Fatalf("started %q; want the offer, which a cursor left first is on", f.started)
	}

	f = newFakeWard()
	m = New(f, opts)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	press(t, m, "down")
	m.Update(nextShiftMsg{choice: &next})
	press(t, m, "enter")
	if !slices.Equal(f.started, []string{"busy-ed for sam"}) {
		t.Fatalf("started %q; want busy-ed, which the trainee had moved to before the offer came", f.started)
	}

	f = newFakeWard()
	m = New(f, Options{StartShifts: builtin, Trainee: "sam", Notice: "offline backend"})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	m.Update(nextShiftMsg{err: errors.New("progress unreadable")})
	if got := m.notice.text; got != "offline backend; no next shift offered: progress unreadable" {
		t.Errorf("the notice after a failed read is %q; want it said beside the notice there was", got)
	}
	if out := screen(m); !strings.Contains(out, "Quiet night") {
		t.Errorf("a failed read took the built-in shifts away:\n%s", out)
	}
}

// Over a shift that is over, the dialog may be closed on it, to review it: nothing starts.
func TestStartDialogGoesBackToAShiftThatIsOver(t *testing.T) {
	f := newFakeWard()
	m := New(f, Options{Trainee: "sam", StartShifts: []ShiftChoice{
		{ID: "next", Title: "Your next shift", Summary: "1 patient(s), chosen for you", Trainee: "sam", Reasons: []string{"you have not yet met a case of trauma"}},
		{Title: "Back to your last shift", Summary: "it is over: /aar reviews each patient", Stay: true, Trainee: "sam"},
	}})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	press(t, m, "down", "enter")
	if len(f.started) != 0 || m.overlay != overlayNone {
		t.Fatalf("started %q, overlay %d; want the dialog closed on the last shift", f.started, m.overlay)
	}
}

func TestLargePasteIsHeldAsideAndSentWhole(t *testing.T) {
	f := newFakeWard()
	m := newTestModel(t, f, 120, 40)
	big := strings.Repeat("line of pasted observations 0123456789\n", 2600) // ~100 KB
	typeText(m, "see below")
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(big), Paste: true})
	if m.input.ta.Value() != "see below" {
		t.Fatal("the large paste went into the textarea")
	}
	if !strings.Contains(screen(m), "pasted 99.0 KB, 2601 lines") {
		t.Fatalf("no note of the held paste:\n%s", screen(m))
	}
	press(t, m, "enter")
	_, submitted := f.recorded()
	if len(submitted) != 1 || submitted[0] != strings.TrimSpace("see below\n"+big) {
		t.Fatalf("paste not sent whole: %d bytes", len(submitted[0]))
	}
	// Pasted CR line ends become newlines, as they do in the textarea.
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(strings.ReplaceAll(big, "\n", "\r")), Paste: true})
	if m.input.Value() != big {
		t.Fatal("CR line ends of a held paste were not made newlines")
	}
	press(t, m, "backspace")
	// Backspace on an empty input drops a held paste.
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(big), Paste: true})
	press(t, m, "backspace")
	if !m.input.Empty() {
		t.Fatal("backspace did not drop the held paste")
	}
}

// An input holds at most a turn's bytes: a paste that would pass them is refused whole, with a
// word, and what was held before stays; typing is bounded too.
func TestInputIsBounded(t *testing.T) {
	m := newTestModel(t, newFakeWard(), 120, 40)
	half := strings.Repeat("x", session.MaxInputBytes/2+1)
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(half), Paste: true})
	run(m, cmd)
	_, cmd = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(half), Paste: true})
	run(m, cmd)
	if len(m.input.Value()) != len(half) {
		t.Errorf("the input holds %d bytes after a paste past the bound; want the first paste's %d", len(m.input.Value()), len(half))
	}
	if !strings.Contains(screen(m), "was not added; send it in parts") {
		t.Errorf("no word of the paste refused:\n%s", screen(m))
	}
	press(t, m, "backspace")
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(strings.Repeat("y", maxTyped+10))})
	if n := len(m.input.Value()); n != maxTyped {
		t.Errorf("typing holds %d characters, want at most %d", n, maxTyped)
	}
}

func TestResize(t *testing.T) {
	m := newTestModel(t, newFakeWard(), 120, 40)
	if !strings.Contains(screen(m), "PATIENTS") {
		t.Fatal("no sidebar at 120 columns")
	}
	m.Update(tea.WindowSizeMsg{Width: 99, Height: 30})
	out := screen(m)
	if strings.Contains(out, "PATIENTS") || !strings.Contains(out, "▸1 patient_1") || !strings.Contains(out, "2 patient_2") {
		t.Fatalf("below 100 columns the roster should be one line:\n%s", out)
	}
	m.Update(tea.WindowSizeMsg{Width: 59, Height: 20})
	if !strings.Contains(screen(m), "Terminal too small") {
		t.Fatalf("no too-small message at 59x20:\n%s", screen(m))
	}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 15})
	if !strings.Contains(screen(m), "Terminal too small") {
		t.Fatal("no too-small message at 80x15")
	}
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 16})
	out = screen(m)
	if strings.Contains(out, "too small") || !strings.Contains(out, "ALLERGY peanuts (anaphylaxis), penicillin") {
		t.Fatalf("60x16 should show the screen with the whole allergy badge:\n%s", out)
	}
}

func TestAllergyBadgeIsNeverCut(t *testing.T) {
	f := newFakeWard()
	p := f.patients["patient_1"]
	p.Allergies = []string{"penicillin (anaphylaxis)", "latex (urticaria)", "morphine (true allergy, hypotension)", "aspirin (bronchospasm)"}
	f.patients["patient_1"] = p
	for _, width := range []int{60, 80, 120} {
		m := newTestModel(t, f, width, 30)
		flat := strings.Join(strings.Fields(screen(m)), " ")
		for _, a := range p.Allergies {
			if !strings.Contains(flat, a) {
				t.Errorf("width %d: allergy %q cut:\n%s", width, a, screen(m))
			}
		}
		assertFills(t, m.View(), width, 30, "long allergies")
	}
}

func TestFirstScreenExplainsHowToBegin(t *testing.T) {
	f := newFakeWard()
	f.active, f.roster = "", nil
	m := newTestModel(t, f, 120, 40)
	if !strings.Contains(screen(m), "Type 'review patient_1'") {
		t.Fatalf("no first-screen hint:\n%s", screen(m))
	}
}

// Words typed in one burst arrive as one key message named by the text; "right" must not move
// the cursor, and "?" inside text must not open help.
func TestBurstTypedTextIsText(t *testing.T) {
	m := newTestModel(t, newFakeWard(), 120, 40)
	for _, text := range []string{"how are you feeling right now?", "left", "up", "enter", "home end"} {
		m.input.ta.Reset()
		m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(text)})
		if got := m.input.ta.Value(); got != text {
			t.Errorf("typed %q in a burst, input holds %q", text, got)
		}
		if m.overlay != overlayNone {
			t.Errorf("typing %q opened an overlay", text)
		}
	}
}

// A switch loads only the newest page of a long history; scrolling back past its oldest message
// loads the page before it, and the view stays on the message it showed.
func TestScrollingBackLoadsOlderPages(t *testing.T) {
	f := newFakeWard()
	f.histories["patient_1"] = bigHistory("patient_1", 250)
	f.page = 100
	m := newTestModel(t, f, 120, 40)
	if got := len(m.state.Chat); got != 100 || !m.state.ChatMore {
		t.Fatalf("first snapshot holds %d messages (more %v), want the newest 100 and more", got, m.state.ChatMore)
	}
	press(t, m, "home")
	if got := len(m.state.Chat); got != 200 {
		t.Fatalf("home at the oldest loaded message: %d messages held, want 200", got)
	}
	if first := m.chat.history[m.chat.top.item].ID; first != "patient_1-150" {
		t.Errorf("after loading older messages the view shows %s, want patient_1-150 where it was", first)
	}
	press(t, m, "home")
	press(t, m, "home")
	if got := len(m.state.Chat); got != 250 || m.state.ChatMore {
		t.Errorf("after paging to the start: %d messages (more %v), want all 250 and no more", got, m.state.ChatMore)
	}
}

// A message that cites protocol passages shows their sources under it, in the chat's own wrap.
func TestChatShowsSourcesUnderAMessage(t *testing.T) {
	f := newFakeWard()
	f.histories["patient_1"] = append(f.histories["patient_1"], live.ChatMessage{ID: "cited", Role: "assistant", Agent: "Preceptor",
		Content: "Give 0.5 mg IM into the thigh. [1]",
		Sources: []string{"[1] Anaphylaxis › Adrenaline — Resuscitation Council UK, Emergency treatment of anaphylaxis (2021)"}})
	m := newTestModel(t, f, 120, 40)
	out := screen(m)
	answer, source := strings.Index(out, "Give 0.5 mg IM"), strings.Index(out, "[1] Anaphylaxis › Adrenaline — Resuscitation Council UK")
	if answer < 0 || source < answer {
		t.Fatalf("the source is not under the message:\n%s", out)
	}
}

// A trainee started from the dialog gets the theme they prefer; one that cannot be made keeps
// the theme ward opened with, and says so, with the shift started.
func TestStartDialogTakesTheStartedTraineesTheme(t *testing.T) {
	shifts := []ShiftChoice{{ID: "quiet-night", Title: "Quiet night", Summary: "2 patients"}}
	dark, _ := themes.New("dark", false)
	light, _ := themes.New("light", false)
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{{"preferred", nil, "light"}, {"unmade", errors.New("no theme \"neon\""), "dark"}} {
		f := newFakeWard()
		m := New(f, Options{Theme: dark, StartShifts: shifts, Trainee: "alice",
			StartedTheme: func() (themes.Theme, error) { return light, tc.err }})
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		press(t, m, "enter")
		if m.overlay != overlayNone || m.theme.Name != tc.want || m.chat.theme.Name != tc.want {
			t.Errorf("%s: overlay %d, theme %q (chat %q), want %q", tc.name, m.overlay, m.theme.Name, m.chat.theme.Name, tc.want)
		}
		if tc.err != nil && !strings.Contains(screen(m), "kept the theme") {
			t.Errorf("%s: the kept theme is not said:\n%s", tc.name, screen(m))
		}
	}
}

// A patient whose case has ended shows where they went in place of their score and its age.
func TestRosterShowsWhereAPatientWent(t *testing.T) {
	f := newFakeWard()
	f.roster[1].Disposition = "cath-lab"
	for _, width := range []int{120, 70} { // the sidebar, and the strip of a narrow terminal
		m := newTestModel(t, f, width, 40)
		out := screen(m)
		if !strings.Contains(out, "patient_2") || !strings.Contains(out, "→ cath-lab") {
			t.Errorf("at %d columns the roster does not show where patient_2 went:\n%s", width, out)
		}
	}
}

// The inspector shows the patient's rates, a rate past its alert level marked, and what the
// turn's pruning rules took out.
func TestInspectorShowsRatesAndPruning(t *testing.T) {
	f := newFakeWard()
	tr := sampleTrace()
	tr.Rates = []string{"Patient · 14 turns · merge success 100.0% · parse errors 28.6% ! (> 10.0%)"}
	tr.Pruned = []string{"vitals_repeat on patient_1 · 2 out · ~28 tokens saved: T+01:00 HR 128; T+02:00 HR 129"}
	f.traces = []live.TurnTrace{tr}
	m := newTestModel(t, f, 160, 40)
	press(t, m, "ctrl+o")
	out := screen(m)
	for _, want := range []string{"rates", "parse errors 28.6% ! (> 10.0%)", "pruned", "vitals_repeat on patient_1"} {
		if !strings.Contains(out, want) {
			t.Errorf("inspector lacks %q:\n%s", want, out)
		}
	}
}

// The first screen says the sim clock is running and how to stop it, for patients change while
// a newcomer reads; paused, it says how to start it again.
func TestTheFirstScreenSaysTheClockIsRunningAndHowToPause(t *testing.T) {
	f := newFakeWard()
	f.active = ""
	m := newTestModel(t, f, 120, 40)
	out := screen(m)
	for _, want := range []string{"Type 'review patient_1' or press alt+1 to begin.", "The sim clock is running", "/pause stops it"} {
		if !strings.Contains(out, want) {
			t.Errorf("the first screen lacks %q:\n%s", want, out)
		}
	}
	paused := f.Snapshot()
	paused.Paused = true
	if hint := firstScreenHint(paused); !strings.Contains(hint, "paused: /pause starts it again") {
		t.Errorf("a paused clock's hint is %q", hint)
	}
	paused.Ended = true
	if hint := firstScreenHint(paused); strings.Contains(hint, "/pause") {
		t.Errorf("an ended shift's hint offers /pause: %q", hint)
	}
}

// The parts of the frame kept while nothing they show has changed (the body while keys only
// type into the input, the status bar, the rule above the input) are the parts drawn afresh,
// whatever comes between the keys: a snapshot with a new line, an alert, the last turn's
// figures, a notice, focus moving to the chat and back, a search, a resize, paging.
func TestAKeptFrameIsTheFrameDrawnAfresh(t *testing.T) {
	f := newFakeWard()
	m := newTestModel(t, f, 120, 40)
	grown := f.Snapshot()
	grown.Chat = append(grown.Chat, live.ChatMessage{ID: "patient_1-4", Role: "assistant", Agent: "nurse", Content: "Obs are due."})
	other := grown // as many alerts, another one first
	other.Alerts = []live.Alert{{PatientID: "patient_3", Level: live.AlertAlarm, Text: "SpO2 84 (below 90)"}}
	calm := grown
	calm.Alerts, calm.Last = nil, live.TurnStats{Latency: 90 * time.Millisecond, PromptTokens: 5, OutputTokens: 7}
	steps := []tea.Msg{keyMsg("h"), keyMsg("i"), snapshotMsg{state: grown}, keyMsg("!"), keyMsg("tab"), keyMsg("x"),
		keyMsg("tab"), keyMsg("tab"), keyMsg("y"), keyMsg("ctrl+f"), keyMsg("O"), keyMsg("esc"), keyMsg("z"),
		snapshotMsg{state: other}, keyMsg("c"), snapshotMsg{state: calm}, keyMsg("a"), noticeMsg{text: "a word for the status bar", level: noticeWarn}, keyMsg("b"),
		tea.WindowSizeMsg{Width: 90, Height: 30}, keyMsg("w"), keyMsg("pgup"), keyMsg("v"), keyMsg("end"), keyMsg("u")}
	for i, msg := range steps {
		m.Update(msg)
		kept := m.View()
		m.bodyFresh, m.status.drawn.view, m.input.rule.view = false, "", ""
		clear(m.status.hints)
		if afresh := m.View(); kept != afresh {
			t.Fatalf("after step %d (%#v) the kept frame differs from the frame drawn afresh:\n%s\n---\n%s", i, msg, kept, afresh)
		}
		if _, ok := msg.(snapshotMsg); ok && !strings.Contains(stripStyles(kept), "Obs are due.") {
			t.Fatal("the snapshot's new line is not on the screen:\n" + stripStyles(kept))
		}
	}
}
