package board

import (
	"context"
	"fmt"
	"github.com/ward-sim/ward/session/aar"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/ward-sim/ward/session/live"
	"github.com/ward-sim/ward/session/sessiontest"
	"github.com/ward-sim/ward/themes"
)

// fakeClass is a class of real shifts (sessiontest: real bbolt, the offline backend) whose frames
// the test sets, as ui/lab keeps each trainee's last View().
type fakeClass struct {
	mu       sync.Mutex
	trainees []Trainee
	frames   map[string]string
}

func (c *fakeClass) Trainees() []Trainee {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Trainee(nil), c.trainees...)
}

func (c *fakeClass) Frame(name string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, ok := c.frames[name]
	return f, ok
}

// joined is a connected trainee's shift.
type joined struct {
	rig  *sessiontest.Rig
	live *live.Live
}

// join connects a trainee whose shift has played lines.
func (c *fakeClass) join(t *testing.T, name string, lines ...string) joined {
	t.Helper()
	r := sessiontest.Seeded(t)
	for _, l := range lines {
		r.Turn(l)
	}
	l := live.NewLive(r.S, nil)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.trainees = append(c.trainees, Trainee{Name: name, Since: time.Date(2026, 11, 26, 14, 0, 0, 0, time.UTC), Live: l})
	if c.frames == nil {
		c.frames = map[string]string{}
	}
	c.frames[name] = name + "'s screen\nthe chat and the vitals"
	return joined{r, l}
}

func plainTheme(t *testing.T) themes.Theme {
	t.Helper()
	th, err := themes.New("dark", true)
	if err != nil {
		t.Fatal(err)
	}
	return th
}

func newBoard(t *testing.T, c Class) *model {
	m := New(c, nil, plainTheme(t)).(*model)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	return m
}

func view(m tea.Model) string { return ansi.Strip(m.View()) }

// key is a key as Bubble Tea delivers it: a name ("enter", "esc", "down") or the runes typed.
func key(k string) tea.KeyMsg {
	named := map[string]tea.KeyType{"enter": tea.KeyEnter, "esc": tea.KeyEsc, "down": tea.KeyDown, "up": tea.KeyUp, "left": tea.KeyLeft, "right": tea.KeyRight}
	if kt, ok := named[k]; ok {
		return tea.KeyMsg{Type: kt}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// press sends keys and returns the last one's command.
func press(m *model, keys ...string) tea.Cmd {
	var cmd tea.Cmd
	for _, k := range keys {
		_, cmd = m.Update(key(k))
	}
	return cmd
}

// finish runs the command of an injection or an end, as Bubble Tea would on its goroutine, and
// hands the board its message.
func finish(t *testing.T, m *model, cmd tea.Cmd) {
	t.Helper()
	if cmd == nil {
		t.Fatal("no command to run")
	}
	msg := cmd()
	if _, ok := msg.(doneMsg); !ok {
		t.Fatalf("the command gave %T, want the injection's outcome", msg)
	}
	m.Update(msg)
}

func TestBoardIsClearWithNoTrainee(t *testing.T) {
	m := newBoard(t, &fakeClass{})
	if v := view(m); !strings.Contains(v, "No trainee is connected") {
		t.Fatalf("empty board says:\n%s", v)
	}
}

// The board lists every connected trainee with their patients' NEWS2 and band, the alarm
// waiting and for how long in sim time, and the score so far, within 80×24.
func TestBoardListsTraineesWithNEWS2AndAlarmWaits(t *testing.T) {
	c := &fakeClass{}
	// Each clock is paused once its lines are played: the sim clock otherwise follows the wall
	// clock, and a slow join (under -race on a busy machine) would move the waits on.
	c.join(t, "ana", "/admit patient_1 anaphylaxis", "/vitals", "/wait 10m", "/pause")
	c.join(t, "ben", "/admit patient_1 hypoglycaemia", "/admit patient_2 sepsis-urosepsis", "/vitals", "/wait 2m", "/pause")
	m := newBoard(t, c)
	v := view(m)
	for _, want := range []string{"2 connected", "alarms: time waited, in sim time", "ana", "ben", "Daniel Reyes", "Tom Harris",
		"Eleanor Price", "NEWS2 15 high", "emergency 8:00", "score so far"} {
		if !strings.Contains(v, want) {
			t.Errorf("the board lacks %q:\n%s", want, v)
		}
	}
	assertFits(t, v, 80, 24)
}

// assertFits fails when a view is wider or taller than the terminal.
func assertFits(t *testing.T, v string, width, height int) {
	t.Helper()
	lines := strings.Split(v, "\n")
	if len(lines) > height {
		t.Errorf("%d lines on a %d-line terminal", len(lines), height)
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > width {
			t.Errorf("a line %d wide on a %d-column terminal: %q", w, width, l)
		}
	}
}

// With more trainees than the terminal holds, the chosen one stays in sight as the cursor moves.
func TestBoardKeepsTheChosenTraineeInSight(t *testing.T) {
	c := &fakeClass{}
	for _, name := range []string{"a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8"} {
		c.join(t, name, "/admit patient_1", "/admit patient_2")
	}
	m := newBoard(t, c)
	press(m, "j", "j", "j", "j", "j", "j", "down")
	v := view(m)
	if !strings.Contains(v, "▸ a8") {
		t.Errorf("the chosen trainee a8 is not in sight:\n%s", v)
	}
	assertFits(t, v, 80, 24)
	press(m, "k", "up")
	if m.chosen != "a6" {
		t.Errorf("chosen after two steps up = %q", m.chosen)
	}
}

// Watching shows the trainee's frame under a banner, cut to the terminal; no key reaches the
// trainee's shift; esc goes back to the board.
func TestWatchShowsTheFrameAndForwardsNoKey(t *testing.T) {
	c := &fakeClass{}
	c.join(t, "ana", "/admit patient_1 anaphylaxis")
	ben := c.join(t, "ben", "/admit patient_1 hypoglycaemia")
	c.frames["ben"] = strings.Repeat("x", 200) + "\nben's chat"
	m := newBoard(t, c)
	press(m, "j", "enter")
	v := view(m)
	if !strings.Contains(v, "Watching ben's screen, read-only") || !strings.Contains(v, "ben's chat") {
		t.Fatalf("watch shows:\n%s", v)
	}
	assertFits(t, v, 80, 24)
	before := len(ben.live.Snapshot().Chat)
	press(m, "h", "e", "l", "p", "enter", "i", "e", "q")
	if m.mode != modeWatch {
		t.Fatalf("a key typed while watching left the watch (mode %d)", m.mode)
	}
	if after := len(ben.live.Snapshot().Chat); after != before {
		t.Errorf("typing while watching changed ben's chat: %d messages, then %d", before, after)
	}
	c.frames["ben"] = "ben typed more"
	m.Update(watchTickMsg{gen: m.watch.gen})
	if !strings.Contains(view(m), "ben typed more") {
		t.Error("the watched frame did not refresh on its tick")
	}
	press(m, "esc")
	if m.mode != modeBoard || !strings.Contains(view(m), "2 connected") {
		t.Errorf("esc did not go back to the board:\n%s", view(m))
	}
}

// chatHas reports whether the trainee's screen shows a message containing text.
func chatHas(l *live.Live, text string) bool {
	for _, msg := range l.Snapshot().Chat {
		if strings.Contains(msg.Content, text) {
			return true
		}
	}
	return false
}

// typeText types words into the dialog's text, one key per rune as a terminal sends them.
func typeText(m *model, words string) {
	for _, r := range words {
		m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

// A deterioration injected from the board moves the patient to the state chosen: the engine's
// vitals go where the same case's do not without it, the trainee's chat has the nurse's call,
// and the review and its debrief show it as the instructor's.
func TestInjectDeteriorationFromTheBoard(t *testing.T) {
	c := &fakeClass{}
	ana := c.join(t, "ana", "/admit patient_1 anaphylaxis")
	control := c.join(t, "ben", "/admit patient_1 anaphylaxis")
	m := newBoard(t, c)
	press(m, "i", "enter", "enter") // a deterioration, of patient_1
	if v := view(m); !strings.Contains(v, "Move patient_1 to which state") || !strings.Contains(v, "reaction  (now)") {
		t.Fatalf("the dialog asks:\n%s", v)
	}
	// The states are sorted: pea-arrest, peri-arrest, reaction, recovered, responding, rosc, shock.
	finish(t, m, press(m, "down", "down", "down", "down", "down", "down", "enter"))
	if !strings.Contains(view(m), "ana: injected a deterioration of patient_1 to shock") {
		t.Errorf("the status line says:\n%s", view(m))
	}
	e, _ := ana.rig.S.Engine("patient_1")
	if e.State() != "shock" {
		t.Fatalf("patient_1 is in state %q", e.State())
	}
	if !chatHas(ana.live, "I'm worried about Daniel Reyes") {
		t.Error("the trainee's chat does not have the nurse's call")
	}
	for _, l := range []*live.Live{ana.live, control.live} {
		for range l.Submit(context.Background(), "/wait 2m") {
		}
	}
	other, _ := control.rig.S.Engine("patient_1")
	if got, want := e.TrueVitals().SBP, other.TrueVitals().SBP; got >= want-5 {
		t.Errorf("systolic after the deterioration = %d; the same case without it = %d", got, want)
	}
	rep := aar.Of(e)
	if md := rep.Markdown(); !strings.Contains(md, "the instructor injected a deterioration to shock") {
		t.Errorf("the review does not show the instructor's deterioration:\n%s", md)
	}
	if !strings.Contains(rep.Digest(), "Instructor: ") {
		t.Error("the debrief's digest does not name the instructor")
	}
}

// A refused injection says why on the status line.
func TestInjectRefusedSaysWhy(t *testing.T) {
	c := &fakeClass{}
	c.join(t, "ana", "/admit patient_1 anaphylaxis")
	m := newBoard(t, c)
	finish(t, m, press(m, "i", "enter", "enter", "down", "down", "enter")) // to reaction, where the patient is
	if v := view(m); !strings.Contains(v, "ana: not done — patient_1 is in state reaction already") {
		t.Errorf("the status line says:\n%s", v)
	}
}

// An admission from the board adds a roster patient with the case chosen; a result and a call
// reach the trainee's chat for the patient chosen.
func TestInjectAdmissionResultAndCallFromTheBoard(t *testing.T) {
	c := &fakeClass{}
	ana := c.join(t, "ana", "/admit patient_1 anaphylaxis")
	m := newBoard(t, c)
	press(m, "i", "down", "enter") // an admission: the library's scenarios, more than the terminal holds
	for range 30 {
		press(m, "down")
		assertFits(t, view(m), 80, 24)
	}
	if v := view(m); !strings.Contains(v, "▸ ") {
		t.Fatalf("the cursor went out of sight:\n%s", v)
	}
	finish(t, m, press(m, "esc", "i", "down", "enter", "enter")) // the first scenario offered
	roster := ana.live.Snapshot().Roster
	if len(roster) != 2 || roster[1].ID != "patient_2" {
		t.Fatalf("roster after the admission: %+v", roster)
	}
	if !chatHas(ana.live, "News of patient_2") {
		t.Error("the trainee's chat does not tell of the new patient")
	}
	press(m, "i", "down", "down", "enter", "enter") // a result, for patient_1
	typeText(m, "K+ 6.8 mmol/L")
	finish(t, m, press(m, "enter"))
	if !chatHas(ana.live, "Result for Daniel Reyes (patient_1): K+ 6.8 mmol/L") {
		t.Errorf("the trainee's chat does not have the result; status: %s", m.status)
	}
	press(m, "i", "down", "down", "down", "enter", "enter") // a call about patient_1
	typeText(m, "Is he going to be all right?")
	finish(t, m, press(m, "enter"))
	if !chatHas(ana.live, "Is he going to be all right?") {
		t.Errorf("the trainee's chat does not have the call; status: %s", m.status)
	}
	press(m, "i", "esc")
	if m.mode != modeBoard {
		t.Error("esc did not cancel the dialog")
	}
}

// Ending a shift from the board closes every case for debrief; the trainee's chat says so, and
// the board shows the shift ended and offers no more injections.
func TestEndFromTheBoard(t *testing.T) {
	c := &fakeClass{}
	ana := c.join(t, "ana", "/admit patient_1 anaphylaxis")
	m := newBoard(t, c)
	press(m, "e", "n")
	if ana.live.Standing().Ended {
		t.Fatal("a key other than y ended the shift")
	}
	press(m, "e")
	if !strings.Contains(view(m), "End ana's shift for debrief (every open case closes)?") {
		t.Errorf("e does not ask first:\n%s", view(m))
	}
	finish(t, m, press(m, "y"))
	if !ana.live.Standing().Ended {
		t.Fatal("the shift is not ended")
	}
	if !ana.live.Snapshot().Ended {
		t.Error("the trainee's screen is not told the shift ended")
	}
	e, _ := ana.rig.S.Engine("patient_1")
	if !e.Closed() || !chatHas(ana.live, "The instructor ended the shift for debrief") {
		t.Error("the case is open, or the trainee was not told")
	}
	v := view(m)
	if !strings.Contains(v, "ended for debrief") || !strings.Contains(v, "ended by the instructor") {
		t.Errorf("the board does not show the end:\n%s", v)
	}
	if press(m, "i"); m.mode != modeBoard || !strings.Contains(view(m), "ana's shift is not running") {
		t.Errorf("the board offers an injection into an ended shift:\n%s", view(m))
	}
}

// BenchmarkBoardTick is one tick of the board with a class of 30 trainees, 5 patients each half
// an hour in: every trainee's snapshot read and the frame drawn from them. Their standings are
// read again at most once a second, which BenchmarkStanding (session/live) measures apart.
func BenchmarkBoardTick(b *testing.B) {
	c := &fakeClass{}
	lines := []string{"/admit patient_1", "/admit patient_2", "/admit patient_3", "/admit patient_4", "/admit patient_5", "/wait 30m"}
	for i := range 30 {
		r := sessiontest.Seeded(b)
		for _, l := range lines {
			r.Turn(l)
		}
		c.trainees = append(c.trainees, Trainee{Name: fmt.Sprintf("trainee%02d", i), Since: time.Now(), Live: live.NewLive(r.S, nil)})
	}
	th, err := themes.New("dark", false)
	if err != nil {
		b.Fatal(err)
	}
	m := New(c, nil, th).(*model)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	b.ReportAllocs()
	for b.Loop() {
		m.Update(tickMsg{})
		_ = m.View()
	}
}

// A frame taller than the instructor's terminal keeps the trainee's header and the bottom of
// their screen (the newest chat, what they type), saying how much was left out between.
func TestWatchCutsATallFrame(t *testing.T) {
	c := &fakeClass{}
	c.join(t, "ana", "/admit patient_1")
	var frame []string
	for i := range 40 {
		frame = append(frame, fmt.Sprintf("line %02d", i))
	}
	c.frames["ana"] = strings.Join(frame, "\n")
	m := newBoard(t, c)
	press(m, "enter")
	v := view(m)
	assertFits(t, v, 80, 24)
	for _, want := range []string{"line 00", "line 02", "┄ 18 lines of ana's screen left out", "line 21", "line 39"} {
		if !strings.Contains(v, want) {
			t.Errorf("the watched frame lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "line 03") || strings.Contains(v, "line 20") {
		t.Errorf("the cut kept a line it said it left out:\n%s", v)
	}
}
