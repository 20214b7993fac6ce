package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ward-sim/ward/session/live"
)

// Every layout must fill the terminal exactly: no line too long (the
// terminal would wrap it and scroll the screen) and no missing lines.
func TestViewFillsTerminalExactly(t *testing.T) {
	sizes := [][2]int{{120, 40}, {200, 60}, {100, 30}, {99, 30}, {80, 24}, {60, 16}, {59, 16}, {60, 15}, {20, 5}}
	overlays := map[string][]string{
		"main": nil, "help": {"?"}, "palette": {"ctrl+k"}, "inspector": {"ctrl+o"},
		"search": {"ctrl+f", "i"}, "confirm": {"/clear", "enter"}, "chat focus": {"tab", "up"},
	}
	for _, sz := range sizes {
		for name, keys := range overlays {
			f := newFakeWard()
			f.traces = []live.TurnTrace{sampleTrace()}
			m := newTestModel(t, f, sz[0], sz[1])
			press(t, m, keys...)
			assertFills(t, m.View(), sz[0], sz[1], name)
		}
	}
}

func assertFills(t *testing.T, view string, width, height int, what string) {
	t.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) != height {
		t.Errorf("%dx%d %s: %d lines, want %d", width, height, what, len(lines), height)
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w != width {
			t.Errorf("%dx%d %s: line %d is %d wide, want %d: %q", width, height, what, i, w, width, ansi.Strip(l))
		}
	}
}
