package ui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// overlay draws box centred over the rows [top, top+height) of bg,
// keeping the screen around it visible. Dialogs open below the header, so
// the active patient and their allergies stay on screen.
func overlay(bg, box string, width, top, height int) string {
	rows := strings.Split(bg, "\n")
	boxRows := strings.Split(box, "\n")
	boxWidth := lipgloss.Width(box)
	x := max((width-boxWidth)/2, 0)
	y := top + max((height-len(boxRows))/2, 0)
	for i, boxRow := range boxRows {
		if y+i >= min(len(rows), top+height) {
			break
		}
		row := rows[y+i]
		left := ansi.Truncate(row, x, "")
		right := ansi.TruncateLeft(row, x+boxWidth, "")
		rows[y+i] = left + ansi.ResetStyle + fit(boxRow, boxWidth) + ansi.ResetStyle + right
	}
	return strings.Join(rows, "\n")
}
