package ui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"pgregory.net/rapid"
)

// Every frame drawn from what the screen keeps between frames (the body, the chat's rule, the
// header, the status bar and its hints, the input's line and what is typed) is the frame drawn
// with all of it dropped, over random runs of what a trainee does: typing, deleting, sending,
// moving focus, scrolling, resizing, snapshots and notices.
func TestEveryFrameDrawnFromKeptPartsIsTheFrameDrawnAfresh(tt *testing.T) {
	rapid.Check(tt, func(t *rapid.T) {
		f := newFakeWard()
		f.histories["patient_1"] = bigHistory("patient_1", 40)
		m := newTestModel(tt, f, 120, 40)
		for range rapid.IntRange(1, 60).Draw(t, "steps") {
			var cmd tea.Cmd
			switch rapid.IntRange(0, 9).Draw(t, "what") {
			case 0, 1, 2, 3:
				r := rune(rapid.IntRange(' ', '~').Draw(t, "char"))
				_, cmd = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
			case 4:
				k := rapid.SampledFrom([]string{"backspace", "left", "right", "home", "end", "ctrl+j", "tab", "shift+tab",
					"pgup", "pgdown", "esc", "up", "down"}).Draw(t, "key")
				_, cmd = m.Update(keyMsg(k))
			case 5:
				_, cmd = m.Update(keyMsg("enter"))
			case 6:
				_, cmd = m.Update(snapshotMsg{state: f.Snapshot()})
			case 7:
				_, cmd = m.Update(tea.WindowSizeMsg{Width: rapid.IntRange(60, 160).Draw(t, "width"), Height: rapid.IntRange(16, 50).Draw(t, "height")})
			case 8:
				_, cmd = m.Update(NoticeMsg(rapid.SampledFrom([]string{"", "a word", "a notice too long to sit beside the key hints on the status bar of a narrow terminal, which wraps it"}).Draw(t, "notice")))
			case 9:
				run(m, cmd)
			}
			if rapid.Bool().Draw(t, "run") {
				run(m, cmd)
			}
			kept := m.View()
			dropKept(m)
			if afresh := m.View(); kept != afresh {
				t.Fatalf("the frame drawn from kept parts\n%s\nthe frame drawn afresh\n%s", kept, afresh)
			}
		}
	})
}

// dropKept forgets everything the screen keeps drawn between frames, so the next frame is drawn
// from nothing kept.
func dropKept(m *Model) {
	m.bodyFresh = false
	m.rule.view = ""
	m.header.view = ""
	m.header.Render(m.state)
	m.status.drawn.view = ""
	clear(m.status.hints)
	m.input.rule = drawnRule{}
	m.input.line = drawnLine{}
	m.input.typed = typedLine{}
}
