package ui

import (
	"regexp"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/live"
)

// evil carries every kind of sequence at once: a clipboard write, a title
// change, cursor moves, a raw ESC and C1 controls.
const evil = "x\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;pwned\x07\x1b[2J\x1b[H\x1b[5A\x1b\u009b2J\u009d0;pwned\u009c\x07\ry"

var ownSGR = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// TestEveryRenderedPathIsSanitised puts hostile text in every field that
// comes from an LLM or a scenario file and checks that nothing but ward's
// own colour codes reaches the screen, in every view.
func TestEveryRenderedPathIsSanitised(t *testing.T) {
	f := newFakeWard()
	p := f.patients["patient_1"]
	p.Name, p.Sex, p.Bed, p.Presentation, p.Found = evil, evil, evil, evil, []string{evil}
	p.Allergies = []string{evil}
	f.patients["patient_1"] = p
	f.roster[1].ID, f.roster[1].Name = "patient_2"+evil, evil
	f.vitals["patient_1"][0].Name, f.vitals["patient_1"][0].Unit = evil, evil
	f.histories["patient_1"] = []live.ChatMessage{
		{ID: "u", Role: "user", Content: evil},
		{ID: "a", Role: "assistant", Agent: evil, Content: "**" + evil + "**\n\n```\n" + evil + "\n```"},
		{ID: "s", Role: "system", Content: evil},
		{ID: "t", Role: "tool", Content: evil},
	}
	f.backend, f.model = evil, evil
	tr := sampleTrace()
	tr.Input, tr.Analyzer.Input, tr.Analyzer.Reasoning, tr.Analyzer.Source = evil, evil, evil, evil
	tr.Calls[0].Agent, tr.Calls[0].Model, tr.Calls[0].Reply = evil, evil, evil
	for i := range tr.Calls[0].Sections {
		sec := &tr.Calls[0].Sections[i]
		sec.Name = evil
		for j := range sec.Messages {
			sec.Messages[j].Content, sec.Messages[j].Role, sec.Messages[j].Rule = evil, evil, evil
		}
	}
	f.traces = []live.TurnTrace{tr}

	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		m := newTestModel(t, f, size[0], size[1])
		m.palette.commands = []session.Command{{Name: "/x" + evil, Args: evil, Help: evil}}
		m.start.shifts = []ShiftChoice{{ID: "s", Title: evil, Summary: evil}}

		assertOnlyOwnSequences(t, "main screen", m.View())
		// A stream that splits a sequence across deltas.
		m.turn = &turn{cancel: func() {}}
		half := len(evil) / 2
		m.Update(streamMsg{events: []live.Update{
			{Kind: live.UpdateDelta, MessageID: "live", Agent: evil, Text: evil[:half]},
			{Kind: live.UpdateDelta, MessageID: "live", Text: evil[half:] + "\n\nmore " + evil[:5]},
			{Kind: live.UpdateNotice, Text: evil},
		}})
		assertOnlyOwnSequences(t, "streaming", m.View())
		m.Update(streamMsg{events: []live.Update{{Kind: live.UpdateError, Text: evil}}, done: true})
		assertOnlyOwnSequences(t, "error", m.View())

		views := map[string][]string{"inspector": {"ctrl+o", "enter", "down", "enter", "down", "enter", "down", "enter"},
			"palette": {"ctrl+k"}, "help": {"?"}}
		for name, keys := range views {
			press(t, m, keys...)
			assertOnlyOwnSequences(t, name, m.View())
			press(t, m, "esc")
		}
		m.overlay = overlayStart
		assertOnlyOwnSequences(t, "start dialog", m.View())
		m.overlay = overlayNone
		m.Update(tea.WindowSizeMsg{Width: 40, Height: 10})
		assertOnlyOwnSequences(t, "too small", m.View())
	}
}

func assertOnlyOwnSequences(t *testing.T, where, view string) {
	t.Helper()
	rest := ownSGR.ReplaceAllString(view, "")
	if strings.Contains(rest, "pwned") || strings.Contains(rest, "52;c;") {
		t.Errorf("%s: an OSC payload leaked into the text", where)
	}
	for _, r := range rest {
		if r == '\n' {
			continue
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			t.Fatalf("%s: control %U reached the screen", where, r)
		}
	}
}
