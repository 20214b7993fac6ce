package ui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// resets are the SGR sequences that return to the terminal's own colours: lipgloss and glamour
// write the first, the overlay and ansi's cutting the second.
var resets = []string{"\x1b[0m", "\x1b[m"}

// paint lays a theme's screen colours under the whole frame: each line starts in them and every
// reset returns to them instead of to the terminal's colours, so a light theme is light on any
// terminal. The zero style (every theme but light, and NO_COLOR) leaves the frame as it is.
func paint(frame string, screen lipgloss.Style) string {
	open, _, _ := strings.Cut(screen.Render("x"), "x")
	if open == "" {
		return frame
	}
	pairs := make([]string, 0, 2*len(resets))
	for _, r := range resets {
		pairs = append(pairs, r, r+open)
	}
	reopen := strings.NewReplacer(pairs...)
	lines := strings.Split(frame, "\n")
	for i, l := range lines {
		lines[i] = open + reopen.Replace(l) + resets[0]
	}
	return strings.Join(lines, "\n")
}
