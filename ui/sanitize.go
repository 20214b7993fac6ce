package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// sanitize makes text that came from an LLM or a scenario file safe to
// print: it removes escape sequences (CSI, OSC — clipboard writes and title
// changes included — DCS, APC and the rest), C0 controls other than newline
// and tab, DEL and C1 controls, and replaces invalid UTF-8. Only ward's own
// styling may reach the terminal.
//
// Streaming text must be sanitised as a whole, not delta by delta: an
// escape sequence may be split across two deltas.
func sanitize(s string) string {
	if isPlain(s) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = ansi.Strip(s) // a real VT parser: drops every sequence, unterminated ones too
	return strings.Map(dropControl, s)
}

// isPlain reports whether s is printable ASCII plus newlines and tabs,
// which is almost every message, so they skip the parser.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 0x20 && c != '\n' && c != '\t') || c >= 0x7f {
			return false
		}
	}
	return true
}

// dropControl removes what ansi.Strip keeps on purpose: the C0 controls it
// executes (BEL, BS, CR…), DEL, and C1 controls written as UTF-8, which
// some terminals still obey.
func dropControl(r rune) rune {
	if r == '\n' || r == '\t' {
		return r
	}
	if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
		return -1
	}
	return r
}
