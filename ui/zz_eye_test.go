package ui

import (
	"fmt"
	"os"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/ward-sim/ward/session"
)

func TestZZEye(t *testing.T) {
	dump := func(name string, m *Model) { os.WriteFile("/tmp/eye/"+name+".txt", []byte(screen(m)), 0o644) }
	f := newFakeWard()
	m := newTestModel(t, f, 120, 40)
	m.notice = notice{text: "using the offline backend: Ollama is not reachable at http://127.0.0.1:11434 — start it with `ollama serve`, or run with --backend offline", level: noticeWarn}
	m.Update(snapshotMsg{state: f.Snapshot()})
	dump("notice", m)
	m = newTestModel(t, f, 120, 40)
	press(t, m, "ctrl+f")
	typeText(m, "i")
	dump("search", m)
	press(t, m, "esc", "tab", "up")
	dump("chatsel", m)
	m = newTestModel(t, f, 120, 40)
	typeText(m, "/clear")
	press(t, m, "enter")
	dump("clear", m)
	m = newTestModel(t, f, 80, 24)
	press(t, m, "ctrl+k")
	dump("palette80", m)
	press(t, m, "esc", "?")
	dump("help80", m)
	g := newFakeWard()
	for i := 4; i <= 9; i++ {
		id := fmt.Sprintf("patient_%d", i)
		g.patients[id] = session.Patient{ID: id, Name: "X"}
		g.roster = append(g.roster, session.RosterEntry{ID: id, Name: "X", LastChecked: -1})
	}
	m = newTestModel(t, g, 80, 24)
	press(t, m, "alt+8")
	dump("strip80", m)
	m = newTestModel(t, g, 100, 24)
	press(t, m, "alt+9")
	dump("side100", m)
	m = New(f, Options{StartShifts: []Shift{{ID: "a", Title: "Multi-casualty incident: minibus rollover on the ring road", Summary: "8 patients"}, {ID: "b", Title: "Quiet night", Summary: "2 patients"}}})
	m.Update(snapshotMsg{state: f.Snapshot()})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	dump("start", m)
}
