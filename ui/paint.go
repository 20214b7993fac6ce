package ui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// resets are the SGR sequences that return to the terminal's own colours: lipgloss and glamour
// write the first, the overlay and ansi's cutting the second.
var resets = []string{"\x1b[0m", "\x1b[m"}

// painter lays a theme's screen colours under the whole frame: each line starts in them and every
// reset returns to them instead of to the terminal's colours, so a light theme is light on any
// terminal. The zero style (every theme but light, and NO_COLOR) leaves the frame as it is.
// It is made once for a theme, not at every frame.
type painter struct {
	open   string // the screen colours' opening sequence; "" paints nothing
	reopen *strings.Replacer
}

func newPainter(screen lipgloss.Style) painter {
	open, _, _ := strings.Cut(screen.Render("x"), "x")
	if open == "" {
		return painter{}
	}
	pairs := make([]string, 0, 2*len(resets))
	for _, r := range resets {
		pairs = append(pairs, r, r+open)
	}
	return painter{open: open, reopen: strings.NewReplacer(pairs...)}
}

func (p painter) paint(frame string) string {
	if p.open == "" {
		return frame
	}
	lines := strings.Split(frame, "\n")
	for i, l := range lines {
		lines[i] = p.open + p.reopen.Replace(l) + resets[0]
	}
	return strings.Join(lines, "\n")
}
