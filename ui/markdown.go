package ui

import (
	"strings"

	"github.com/charmbracelet/glamour"
	"github.com/charmbracelet/glamour/ansi"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// markdown renders message text with glamour. Building a glamour renderer
// costs more than rendering a short message, so there is exactly one per
// width, reused for every message and every frame.
type markdown struct {
	style     ansi.StyleConfig
	profile   termenv.Profile
	renderers map[int]*glamour.TermRenderer
	renders   int // glamour invocations, for tests and benchmarks
	rendered  int // bytes of markdown glamour was given, likewise
}

func newMarkdown(style ansi.StyleConfig, noColor bool) *markdown {
	profile := lipgloss.ColorProfile()
	if noColor {
		profile = termenv.Ascii
	}
	return &markdown{style: style, profile: profile, renderers: map[int]*glamour.TermRenderer{}}
}

// lines renders already-sanitised markdown wrapped to width and returns
// its lines without glamour's trailing padding.
func (m *markdown) lines(text string, width int) []string {
	width = max(width, 10)
	r, ok := m.renderers[width]
	if !ok {
		var err error
		r, err = glamour.NewTermRenderer(glamour.WithStyles(m.style), glamour.WithWordWrap(width),
			glamour.WithColorProfile(m.profile))
		if err != nil {
			return plainLines(text, width)
		}
		m.renderers[width] = r
	}
	m.renders++
	m.rendered += len(text)
	out, err := r.Render(text)
	if err != nil {
		return plainLines(text, width)
	}
	return trimBlankEdges(strings.Split(out, "\n"), width)
}

// trimBlankEdges drops glamour's blank first and last lines and the styled
// spaces it pads every line with: they would cost a screenful of escape
// codes per frame and draw nothing.
func trimBlankEdges(lines []string, width int) []string {
	for i, l := range lines {
		lines[i] = trimStyledSpace(l)
	}
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		if lipgloss.Width(l) > width {
			lines[i] = truncate(l, width)
		}
	}
	return lines
}

// trimStyledSpace removes trailing spaces and the SGR sequences wrapped
// around them, then closes any style still open. Sanitised input means the
// only escapes present are glamour's own SGRs.
func trimStyledSpace(l string) string {
	end := len(l)
	styled := false
	for end > 0 {
		switch {
		case l[end-1] == ' ':
			end--
		case l[end-1] == 'm':
			start := strings.LastIndex(l[:end], "\x1b[")
			if start < 0 || !isSGRParams(l[start+2:end-1]) {
				return l[:end] + resetIf(styled)
			}
			end = start
			styled = true
		default:
			return l[:end] + resetIf(styled)
		}
	}
	return ""
}

func isSGRParams(s string) bool {
	return strings.Trim(s, "0123456789;:") == ""
}

func resetIf(styled bool) string {
	if styled {
		return "\x1b[0m"
	}
	return ""
}

// plainLines is the fallback when glamour fails: wrapped text, unstyled.
func plainLines(text string, width int) []string {
	return strings.Split(wrap(text, width), "\n")
}
