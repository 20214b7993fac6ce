package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// wrap word-wraps s to width cells, breaking words longer than a line.
func wrap(s string, width int) string {
	return ansi.Wrap(s, max(width, 1), "")
}

// truncate cuts s to width cells, marking the cut with an ellipsis.
func truncate(s string, width int) string {
	if width <= 0 {
		return ""
	}
	return ansi.Truncate(s, width, "…")
}

// fit pads or cuts s to exactly width cells.
func fit(s string, width int) string {
	w := ansi.StringWidth(s)
	if w > width {
		return truncate(s, width)
	}
	return s + strings.Repeat(" ", width-w)
}

// fitLines makes a block exactly width×height: lines are cut or padded and
// missing lines are blank.
func fitLines(lines []string, width, height int) string {
	var b strings.Builder
	for i := 0; i < height; i++ {
		if i > 0 {
			b.WriteByte('\n')
		}
		if i < len(lines) {
			b.WriteString(fit(lines[i], width))
		} else {
			b.WriteString(strings.Repeat(" ", width))
		}
	}
	return b.String()
}

// stripStyles removes ward's own styling, e.g. to restyle a whole row.
func stripStyles(s string) string { return ansi.Strip(s) }
