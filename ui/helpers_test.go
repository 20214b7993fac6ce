package ui

import (
	"io"
	"os"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"github.com/ward-sim/ward/themes"
)

func TestMain(m *testing.M) {
	// One colour profile everywhere, so golden files match on any machine.
	lipgloss.SetColorProfile(termenv.TrueColor)
	lipgloss.SetHasDarkBackground(true)
	os.Exit(m.Run())
}

func newTestModel(t testing.TB, f *fakeShift, width, height int) *Model {
	t.Helper()
	return newThemedModel(t, f, "dark", width, height)
}

func newThemedModel(t testing.TB, f *fakeShift, theme string, width, height int) *Model {
	t.Helper()
	th, err := themes.New(theme, false)
	if err != nil {
		t.Fatal(err)
	}
	m := New(f, Options{Theme: th, Clipboard: io.Discard, SaveDir: t.TempDir()})
	m.Update(tea.WindowSizeMsg{Width: width, Height: height})
	m.Update(snapshotMsg{state: f.Snapshot()})
	return m
}

// press sends keys one by one, running the commands each starts until
// they are done. It reports whether the program would quit.
func press(t testing.TB, m *Model, keys ...string) (quit bool) {
	t.Helper()
	for _, k := range keys {
		_, cmd := m.Update(keyMsg(k))
		if run(m, cmd) {
			return true
		}
	}
	return false
}

// run executes cmd and feeds what it returns back into the model, like
// the Bubble Tea runtime does, until nothing is left.
func run(m *Model, cmd tea.Cmd) (quit bool) {
	for cmd != nil {
		switch msg := cmd().(type) {
		case nil:
			return false
		case tea.QuitMsg:
			return true
		case tea.BatchMsg:
			for _, c := range msg {
				if run(m, c) {
					return true
				}
			}
			return false
		default:
			_, cmd = m.Update(msg)
		}
	}
	return false
}

func typeText(m *Model, s string) {
	for _, r := range s {
		m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

var specialKeys = map[string]tea.KeyType{
	"enter": tea.KeyEnter, "esc": tea.KeyEsc, "tab": tea.KeyTab, "shift+tab": tea.KeyShiftTab,
	"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight,
	"pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown, "home": tea.KeyHome, "end": tea.KeyEnd,
	"backspace": tea.KeyBackspace, "space": tea.KeySpace,
	"ctrl+c": tea.KeyCtrlC, "ctrl+j": tea.KeyCtrlJ, "ctrl+k": tea.KeyCtrlK, "ctrl+n": tea.KeyCtrlN,
	"ctrl+o": tea.KeyCtrlO, "ctrl+p": tea.KeyCtrlP, "ctrl+r": tea.KeyCtrlR, "ctrl+f": tea.KeyCtrlF, "ctrl+y": tea.KeyCtrlY,
}

func keyMsg(k string) tea.KeyMsg {
	if t, ok := specialKeys[k]; ok {
		return tea.KeyMsg{Type: t}
	}
	if len(k) == 5 && k[:4] == "alt+" {
		return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{rune(k[4])}, Alt: true}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// later moves the model's clock on by a second and stops it there, as if the trainee paused to
// read: a question on screen becomes answerable.
func later(m *Model) {
	at := m.now().Add(time.Second)
	m.now = func() time.Time { return at }
}
