package ui

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/ward-sim/ward/session/live"
)

// recordedTurns is a trace's turns, the oldest first.
type recordedTurns []live.TurnTrace

func (r recordedTurns) Trace(back int) (live.TurnTrace, bool) {
	i := len(r) - 1 - back
	if back < 0 || i < 0 {
		return live.TurnTrace{}, false
	}
	return r[i], true
}

func (r recordedTurns) Len() int { return len(r) }

// viewKeys presses keys on a trace view, running what each starts; it reports a quit.
func viewKeys(v *traceView, keys ...string) (quit bool) {
	for _, k := range keys {
		_, cmd := v.Update(keyMsg(k))
		for cmd != nil {
			msg := cmd()
			if _, ok := msg.(tea.QuitMsg); ok {
				return true
			}
			_, cmd = v.Update(msg)
		}
	}
	return false
}

// `ward inspect` opens on the trace's last turn and browses it with the TUI's inspector keys:
// [ and ] change turn, enter unfolds a section, s saves the prompt, esc quits.
func TestTraceViewBrowsesRecordedTurns(t *testing.T) {
	turns := recordedTurns{
		{Turn: 1, Input: "review patient_1", Calls: []live.LLMCall{{Agent: "Patient", Model: "tiny", Reply: "I can't breathe",
			Sections: []live.PromptSection{{Name: "static", Tokens: 120, Messages: []live.PromptMessage{{Role: "system", Content: "You are Maya."}}}}}}},
		{Turn: 2, Input: "/vitals", Calls: []live.LLMCall{{Agent: "Monitor", Reply: "HR 128"}}},
	}
	dir := t.TempDir()
	v := newTraceView(turns, Options{Clipboard: io.Discard, SaveDir: dir})
	if v.View() != "" {
		t.Fatal("drew before the terminal's size was known")
	}
	v.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	_, cmd := v.Update(v.Init()())
	if cmd != nil {
		t.Fatal("loading a turn started more work")
	}
	view := func() string { return ansi.Strip(v.View()) }
	if !strings.Contains(view(), "Turn 2") || !strings.Contains(view(), "Monitor") {
		t.Fatalf("opens on:\n%s", view())
	}
	if lines := strings.Split(view(), "\n"); len(lines) != 30 {
		t.Fatalf("the view is %d lines on a 30-line screen", len(lines))
	}
	viewKeys(v, "[")
	if !strings.Contains(view(), "Turn 1") || !strings.Contains(view(), "I can't breathe") {
		t.Fatalf("after [:\n%s", view())
	}
	viewKeys(v, "[")
	if !strings.Contains(view(), "Turn 1") || !strings.Contains(view(), "this is the trace's first turn") {
		t.Fatalf("[ on the first turn:\n%s", view())
	}
	viewKeys(v, "enter")
	if !strings.Contains(view(), "You are Maya.") {
		t.Fatalf("enter did not unfold the static section:\n%s", view())
	}
	viewKeys(v, "s")
	saved, err := os.ReadFile(filepath.Join(dir, "ward-prompt-turn1-call1.txt"))
	if err != nil || !strings.Contains(string(saved), "=== static (120 tokens) ===") {
		t.Fatalf("saved prompt: %q, %v", saved, err)
	}
	if !strings.Contains(view(), "prompt saved to") {
		t.Fatalf("no notice of the save:\n%s", view())
	}
	viewKeys(v, "]")
	if !strings.Contains(view(), "Turn 2") {
		t.Fatalf("after ]:\n%s", view())
	}
	if !viewKeys(v, "esc") {
		t.Fatal("esc did not quit")
	}
}
