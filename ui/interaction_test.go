package ui

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/live"
)

// cellOf finds where text is drawn on screen: its first cell's column and row.
func cellOf(t *testing.T, m *Model, text string) (x, y int) {
	t.Helper()
	for row, line := range strings.Split(screen(m), "\n") {
		if i := strings.Index(line, text); i >= 0 {
			return ansi.StringWidth(line[:i]), row
		}
	}
	t.Fatalf("%q is not on screen:\n%s", text, screen(m))
	return 0, 0
}

func mouse(t *testing.T, m *Model, msg tea.MouseMsg) {
	t.Helper()
	_, cmd := m.Update(msg)
	run(m, cmd)
}

func click(t *testing.T, m *Model, text string) {
	t.Helper()
	x, y := cellOf(t, m, text)
	mouse(t, m, tea.MouseMsg{X: x, Y: y, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
}

func wheel(t *testing.T, m *Model, text string, button tea.MouseButton, times int) {
	t.Helper()
	x, y := cellOf(t, m, text)
	for i := 0; i < times; i++ {
		mouse(t, m, tea.MouseMsg{X: x, Y: y, Button: button, Action: tea.MouseActionPress})
	}
}

// osc52Payload decodes what an OSC 52 write put on the clipboard.
func osc52Payload(t *testing.T, written string) string {
	t.Helper()
	_, b64, ok := strings.Cut(written, "\x1b]52;c;")
	if !ok {
		t.Fatalf("no OSC 52 sequence in %q", written)
	}
	b64, _, _ = strings.Cut(b64, "\a")
	b64, _, _ = strings.Cut(b64, "\x1b\\")
	text, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	return string(text)
}

// rosterOf is a ward of n patients, patient_1 active.
func rosterOf(n int) *fakeShift {
	f := newFakeWard()
	for i := 4; i <= n; i++ {
		id := fmt.Sprintf("patient_%d", i)
		f.patients[id] = live.Patient{ID: id, Name: "Extra Patient"}
		f.roster = append(f.roster, live.RosterEntry{ID: id, Name: "Extra Patient", LastChecked: -1})
	}
	return f
}

// The sequence: focus the roster, reorder it, pick a patient, then type. Nothing typed is
// lost, whatever had focus.
func TestTypingWithTheRosterOrChatFocusedGoesToTheInput(t *testing.T) {
	f := newFakeWard()
	m := newTestModel(t, f, 120, 40)
	press(t, m, "tab", "tab", "alt+o", "down", "down", "enter")
	if got := m.state.Patient.ID; got != "patient_3" || m.focus != focusInput {
		t.Fatalf("active %s, focus %d: want patient_3 and the input", got, m.focus)
	}
	typeText(m, "/wait 5m")
	press(t, m, "enter")
	if _, submitted := f.recorded(); !slices.Equal(submitted, []string{"/wait 5m"}) {
		t.Fatalf("submitted %q", submitted)
	}
	for _, focus := range [][]string{{"tab"}, {"tab", "tab"}} {
		press(t, m, focus...)
		typeText(m, "order oxygen")
		if m.focus != focusInput || m.input.Value() != "order oxygen" {
			t.Fatalf("after %q, typing left focus %d and input %q", focus, m.focus, m.input.Value())
		}
		m.input.SetValue("")
	}
	press(t, m, "tab")
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("pasted notes"), Paste: true})
	if m.input.Value() != "pasted notes" {
		t.Fatalf("a paste into the focused chat was lost: %q", m.input.Value())
	}
}

// chatCell is a cell inside the chat's messages, for wheel events.
func chatCell(m *Model) tea.MouseMsg {
	x, y := 2, m.header.Height()+m.lay.vitalsHeight+3
	if m.lay.collapsed {
		y++
	} else {
		x += sidebarWidth
	}
	return tea.MouseMsg{X: x, Y: y, Action: tea.MouseActionPress}
}

func TestWheelScrollsThePaneUnderThePointer(t *testing.T) {
	f := rosterOf(20)
	f.histories["patient_1"] = bigHistory("patient_1", 250)
	f.page = 100
	m := newTestModel(t, f, 100, 24)
	at := chatCell(m)
	at.Button = tea.MouseButtonWheelUp
	mouse(t, m, at)
	if m.chat.Following() {
		t.Fatal("the wheel over the chat did not scroll it")
	}
	at.Button = tea.MouseButtonWheelDown
	mouse(t, m, at)
	if !m.chat.Following() {
		t.Fatal("the wheel down to the bottom did not follow again")
	}
	// Scrolling up past the oldest message held loads the page before it, as pgup does.
	at.Button = tea.MouseButtonWheelUp
	for i := 0; i < 1000 && len(m.state.Chat) == 100; i++ {
		mouse(t, m, at)
	}
	if len(m.state.Chat) != 200 {
		t.Fatalf("wheeling to the top loaded %d messages, want the next page (200)", len(m.state.Chat))
	}

	// The roster lists 20 patients in fewer rows; the wheel over it shows the ones below.
	if strings.Contains(screen(m), "patient_20") {
		t.Fatalf("test needs a roster taller than the sidebar:\n%s", screen(m))
	}
	wheel(t, m, "patient_2 ", tea.MouseButtonWheelDown, 20)
	if !strings.Contains(screen(m), "patient_20") {
		t.Fatalf("the wheel over the roster did not scroll it:\n%s", screen(m))
	}
	if decisions, _ := f.recorded(); len(decisions) != 0 {
		t.Fatalf("the wheel switched patients: %q", decisions)
	}
}

func TestClickingARosterRowSwitches(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		f := newFakeWard()
		m := newTestModel(t, f, size[0], size[1])
		click(t, m, "patient_3")
		if got := m.state.Patient.ID; got != "patient_3" {
			t.Fatalf("%v: clicking patient_3 made %s active", size, got)
		}
		if decisions, _ := f.recorded(); !slices.Equal(decisions, []string{"SWITCH_EXISTING patient_3"}) {
			t.Fatalf("%v: decisions %q", size, decisions)
		}
		typeText(m, "hello")
		if m.input.Value() != "hello" {
			t.Fatalf("%v: typing after a click was lost", size)
		}
	}
}

func TestClickFocusesThePaneAndSelectsAMessage(t *testing.T) {
	f := newFakeWard()
	m := newTestModel(t, f, 120, 40)
	var clip bytes.Buffer
	m.opts.Clipboard = &clip
	click(t, m, "It came on after lunch")
	if m.focus != focusChat || m.chat.selected != 1 {
		t.Fatalf("click on a message: focus %d, selected %d; want the chat and message 1", m.focus, m.chat.selected)
	}
	press(t, m, "enter")
	if got := osc52Payload(t, clip.String()); !strings.Contains(got, "It came on after lunch") || !strings.Contains(got, "- itchy") {
		t.Fatalf("enter copied %q, want the selected message's text", got)
	}
	if !strings.Contains(screen(m), "message copied") {
		t.Errorf("no toast for the copy:\n%s", screen(m))
	}
	click(t, m, "Say what you do")
	if m.focus != focusInput {
		t.Fatal("a click on the input did not focus it")
	}
	click(t, m, "PATIENTS")
	if m.focus != focusRoster {
		t.Fatal("a click on the roster's title did not focus the roster")
	}
}

func TestWheelInDialogsScrollsThem(t *testing.T) {
	m := newTestModel(t, newFakeWard(), 120, 40)
	press(t, m, "ctrl+k")
	wheel(t, m, "Commands", tea.MouseButtonWheelDown, 2)
	if m.palette.cursor != 2 {
		t.Fatalf("wheel in the palette: cursor %d, want 2", m.palette.cursor)
	}
	click(t, m, "/patients") // clicks in a dialog choose nothing
	if m.overlay != overlayPalette {
		t.Fatal("a click in the palette closed it")
	}
	press(t, m, "esc")
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	press(t, m, "?")
	wheel(t, m, "Patients", tea.MouseButtonWheelDown, 3)
	if m.helpOffset == 0 {
		t.Fatal("the wheel did not scroll the help")
	}
}

func TestSearchFindsHighlightsAndFollowsMatches(t *testing.T) {
	f := newFakeWard()
	f.histories["patient_1"] = bigHistory("patient_1", 60)
	m := newTestModel(t, f, 120, 40)
	press(t, m, "ctrl+f")
	typeText(m, "(1")
	out := screen(m)
	// "(1" is in the messages numbered 1 and 10–19: the search starts on the newest of them.
	if !strings.Contains(out, "search: (1") || !strings.Contains(out, "11/11") {
		t.Fatalf("search bar:\n%s", out)
	}
	if !strings.Contains(out, "(19)") || m.chat.Following() {
		t.Fatalf("the view did not move to the newest match (19):\n%s", out)
	}
	current := m.theme.MatchCurrent.Render("(1")
	if !strings.Contains(m.View(), current) {
		t.Fatal("the current match is not highlighted")
	}
	press(t, m, "up", "up")
	if !strings.Contains(screen(m), "9/11") {
		t.Fatalf("two ups: %s", screen(m))
	}
	typeText(m, "0")
	if !strings.Contains(screen(m), "1/1") || !strings.Contains(screen(m), "(10)") {
		t.Fatalf("narrowing to (10):\n%s", screen(m))
	}
	press(t, m, "down")
	if !strings.Contains(screen(m), "went round") {
		t.Errorf("no word that the search wrapped:\n%s", screen(m))
	}
	press(t, m, "backspace", "backspace", "backspace")
	typeText(m, "no such words")
	if !strings.Contains(screen(m), "no match") {
		t.Fatalf("a query with no match:\n%s", screen(m))
	}
	press(t, m, "esc")
	if m.searching || strings.Contains(screen(m), "search:") || strings.Contains(m.View(), current) {
		t.Fatal("esc did not end the search and its highlights")
	}
	typeText(m, "typed")
	if m.input.Value() != "typed" {
		t.Fatalf("after the search, typing goes to the input: %q", m.input.Value())
	}
}

// A search reaches back past the page held: ↑ at the oldest match loads the page before it.
func TestSearchLoadsOlderPages(t *testing.T) {
	f := newFakeWard()
	f.histories["patient_1"] = bigHistory("patient_1", 250)
	f.page = 100
	m := newTestModel(t, f, 120, 40)
	press(t, m, "ctrl+f")
	typeText(m, "(4)")
	if !strings.Contains(screen(m), "no match") {
		t.Fatalf("(4) is not in the newest page, yet:\n%s", screen(m))
	}
	press(t, m, "backspace", "backspace", "backspace")
	typeText(m, "5)")         // (5), (15), … (245): 25 matches, 10 of them in the newest page
	for i := 0; i < 10; i++ { // nine to the oldest match held, one more loads the page before
		press(t, m, "up")
	}
	if len(m.state.Chat) != 200 {
		t.Fatalf("↑ at the oldest match held %d messages, want the next page loaded", len(m.state.Chat))
	}
}

func TestCtrlYCopiesTheChatAsMarkdown(t *testing.T) {
	m := newTestModel(t, newFakeWard(), 120, 40)
	var clip bytes.Buffer
	m.opts.Clipboard = &clip
	press(t, m, "ctrl+y")
	md := osc52Payload(t, clip.String())
	for _, want := range []string{"## patient_1 — Ada Byron", "**You** · T+00:00", "review patient_1", "It came on after lunch"} {
		if !strings.Contains(md, want) {
			t.Errorf("copied markdown lacks %q:\n%s", want, md)
		}
	}
	if !strings.Contains(screen(m), "chat as markdown, 3 messages, copied") {
		t.Errorf("no toast:\n%s", screen(m))
	}
}

func TestExportWritesTheChat(t *testing.T) {
	f := newFakeWard()
	m := newTestModel(t, f, 120, 40)
	file := filepath.Join(t.TempDir(), "chat.md")
	typeText(m, "/export "+file)
	press(t, m, "enter")
	md, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(md), "It came on after lunch") {
		t.Fatalf("export: %v\n%s", err, md)
	}
	typeText(m, "/export")
	press(t, m, "enter")
	named, _ := filepath.Glob(filepath.Join(m.opts.SaveDir, "ward-patient_1-*.md"))
	if len(named) != 1 || !strings.Contains(screen(m), "chat exported to") {
		t.Fatalf("export with no file: %q\n%s", named, screen(m))
	}
	if _, submitted := f.recorded(); len(submitted) != 0 {
		t.Fatalf("/export reached the engine: %q", submitted)
	}
}

// A confined screen (a trainee at ward serve) exports into its folder by name alone: a path,
// which would write anywhere on the server, is refused with a notice.
func TestAConfinedExportWritesOnlyIntoItsFolder(t *testing.T) {
	f := newFakeWard()
	m := newTestModel(t, f, 120, 40)
	m.opts.Confined = true
	outside := filepath.Join(t.TempDir(), "chat.md")
	typeText(m, "/export "+outside)
	press(t, m, "enter")
	if _, err := os.Stat(outside); err == nil || !strings.Contains(screen(m), "takes a file name only") {
		t.Fatalf("a confined export wrote to %s (%v):\n%s", outside, err, screen(m))
	}
	typeText(m, "/export chat.md")
	press(t, m, "enter")
	if md, err := os.ReadFile(filepath.Join(m.opts.SaveDir, "chat.md")); err != nil || !strings.Contains(string(md), "It came on after lunch") {
		t.Fatalf("a confined export by name: %v\n%s", err, md)
	}
}

func TestClearAsksFirstAndSaysHowToRestore(t *testing.T) {
	for _, typed := range []string{"/clear", "clear patient context"} {
		f := newFakeWard()
		m := newTestModel(t, f, 120, 40)
		typeText(m, typed)
		press(t, m, "enter")
		flat := strings.Join(strings.Fields(screen(m)), " ")
		for _, want := range []string{"Clear the whole shift?", "3 patients and 9 messages will be archived as archive 1",
			"ward archive restore 1"} {
			if !strings.Contains(flat, want) {
				t.Errorf("%q: the question lacks %q:\n%s", typed, want, screen(m))
			}
		}
		later(m)
		press(t, m, "enter") // enter never answers a question
		if _, submitted := f.recorded(); len(submitted) != 0 || m.overlay != overlayConfirm {
			t.Fatalf("%q: enter answered the question: sent %q", typed, submitted)
		}
		later(m)
		press(t, m, "n")
		if _, submitted := f.recorded(); len(submitted) != 0 || m.overlay != overlayNone {
			t.Fatalf("%q: n still sent %q", typed, submitted)
		}
		if press(t, m, "up"); m.input.Value() != typed {
			t.Fatalf("%q: the declined line is not in the input's history: %q", typed, m.input.Value())
		}
		press(t, m, "enter")
		later(m)
		press(t, m, "y")
		if _, submitted := f.recorded(); !slices.Equal(submitted, []string{typed}) || !m.input.Empty() {
			t.Fatalf("%q: yes sent %q", typed, submitted)
		}
	}
	// An empty shift has nothing to lose: no question.
	f := newFakeWard()
	f.active, f.roster, f.histories = "", nil, map[string][]live.ChatMessage{}
	m := newTestModel(t, f, 120, 40)
	typeText(m, "/clear")
	press(t, m, "enter")
	if _, submitted := f.recorded(); !slices.Equal(submitted, []string{"/clear"}) || m.overlay != overlayNone {
		t.Fatalf("clearing an empty shift asked: overlay %d, submitted %q", m.overlay, submitted)
	}
}

// The session asks before admitting a patient named in free text; yes sends the line it gives.
func TestConfirmFromTheSessionSendsItsLineOnYes(t *testing.T) {
	for _, answer := range []string{"y", "esc"} {
		f := newFakeWard()
		f.ask = live.Update{Kind: live.UpdateConfirm, Line: "/admit patient_6",
			Text: "patient_6 is not on the roster of 3. Admit patient_6 as a new patient?"}
		m := newTestModel(t, f, 120, 40)
		typeText(m, "patient 6")
		press(t, m, "enter")
		if !strings.Contains(screen(m), "Admit patient_6 as a new patient?") {
			t.Fatalf("no question:\n%s", screen(m))
		}
		f.ask = live.Update{}
		later(m)
		press(t, m, answer)
		_, submitted := f.recorded()
		want := []string{"patient 6"}
		if answer == "y" {
			want = append(want, "/admit patient_6")
		}
		if !slices.Equal(submitted, want) {
			t.Fatalf("answer %s: submitted %q, want %q", answer, submitted, want)
		}
	}
}

func TestOnlyRetryableErrorsSuggestCtrlR(t *testing.T) {
	for code, retry := range map[string]bool{"USAGE": false, "UNKNOWN_COMMAND": false, "LLM_EMPTY": true, "STORAGE": true} {
		f := newFakeWard()
		f.replyErr, f.replyCode = "usage: /speed N, with N from 1 to 10", code
		m := newTestModel(t, f, 120, 40)
		typeText(m, "/speed 50")
		press(t, m, "enter")
		if got := strings.Contains(screen(m), "ctrl+r"); got != retry {
			t.Errorf("%s: mentions ctrl+r %v, want %v:\n%s", code, got, retry, screen(m))
		}
	}
}

// A long notice, such as why the offline backend is in use, wraps above the status line
// instead of being cut.
func TestLongNoticeIsNeverCut(t *testing.T) {
	reason := "using the offline backend: Ollama is not reachable at http://127.0.0.1:11434 — start it with `ollama serve`, or run with --backend offline"
	for _, size := range [][2]int{{120, 40}, {80, 24}, {60, 16}} {
		f := newFakeWard()
		th := newTestModel(t, f, 10, 10).theme
		m := New(f, Options{Theme: th, Notice: reason})
		m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		m.Update(snapshotMsg{state: f.Snapshot()})
		flat := strings.Join(strings.Fields(screen(m)), " ")
		if !strings.Contains(flat, reason) {
			t.Errorf("%v: the reason is cut:\n%s", size, screen(m))
		}
		assertFills(t, m.View(), size[0], size[1], "long notice")
	}
}

func TestPaletteWrapsLongSummaries(t *testing.T) {
	m := newTestModel(t, newFakeWard(), 80, 24)
	press(t, m, "ctrl+k")
	typeText(m, "export")
	export := session.Commands()[slices.IndexFunc(session.Commands(), func(c session.Command) bool { return c.Name == session.CmdExport })]
	flat := strings.Join(strings.Fields(strings.ReplaceAll(screen(m), "│", " ")), " ")
	if !strings.Contains(flat, strings.Join(strings.Fields(export.Help), " ")) {
		t.Fatalf("the /export summary is cut:\n%s", screen(m))
	}
}

func TestStartDialogIsOpaqueAndShowsWholeTitles(t *testing.T) {
	title := "Multi-casualty incident: minibus rollover on the ring road"
	m := New(newFakeWard(), Options{StartShifts: []ShiftChoice{{ID: "mc", Title: title, Summary: "8 patients"}}})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(snapshotMsg{state: newFakeWard().Snapshot()})
	out := screen(m)
	if !strings.Contains(out, title) {
		t.Fatalf("title cut:\n%s", out)
	}
	if strings.Contains(out, "patient_1") || strings.Contains(out, "Say what you do") {
		t.Fatalf("the screen behind the start dialog shows through:\n%s", out)
	}
	assertFills(t, m.View(), 120, 40, "start dialog")
}

// At 80×24 the roster is one line; whichever patient is active is on it.
func TestActivePatientIsAlwaysOnTheRosterStrip(t *testing.T) {
	f := rosterOf(9)
	m := newTestModel(t, f, 80, 24)
	for _, n := range []string{"8", "9", "1", "5"} {
		press(t, m, "alt+"+n)
		strip := strings.Split(screen(m), "\n")[3]
		if !strings.Contains(strip, "▸"+n+" patient_"+n) {
			t.Fatalf("alt+%s: the strip lacks the active patient: %q", n, strip)
		}
	}
	click(t, m, "patient_4")
	if m.state.Patient.ID != "patient_4" {
		t.Fatalf("clicking patient_4 on the strip made %s active", m.state.Patient.ID)
	}
}

func TestActivePatientIsAlwaysInTheSidebar(t *testing.T) {
	f := rosterOf(20)
	m := newTestModel(t, f, 100, 24)
	for _, n := range []string{"9", "1", "5"} {
		press(t, m, "alt+"+n)
		if !strings.Contains(screen(m), "▸"+n+" patient_"+n+" ") {
			t.Fatalf("alt+%s: the sidebar lacks the active patient:\n%s", n, screen(m))
		}
	}
	press(t, m, "ctrl+p", "ctrl+p", "ctrl+p")
	if !strings.Contains(screen(m), "▸") {
		t.Fatalf("ctrl+p to a patient past the sidebar: not shown:\n%s", screen(m))
	}
}

// The light theme paints every line of the screen, so it reads the same on any terminal.
func TestLightThemePaintsTheWholeScreen(t *testing.T) {
	m := newThemedModel(t, newFakeWard(), "light", 80, 24)
	open, _, _ := strings.Cut(m.theme.Screen.Render("x"), "x")
	for i, line := range strings.Split(m.View(), "\n") {
		if !strings.HasPrefix(line, open) {
			t.Fatalf("line %d is not painted: %q", i, line)
		}
		if strings.Contains(strings.ReplaceAll(line, "\x1b[0m"+open, ""), "\x1b[0m") && !strings.HasSuffix(line, "\x1b[0m") {
			t.Fatalf("line %d returns to the terminal's colours: %q", i, line)
		}
	}
	assertFills(t, m.View(), 80, 24, "light")
}
