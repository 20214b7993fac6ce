package themes

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Printable makes text that came from an LLM or a file safe to print to a terminal, where only
// ward's own styling may reach: the screen and the command line both clean with it. It removes escape sequences (CSI, OSC — clipboard writes and title
// changes included — DCS, APC and the rest), C0 controls other than newline
// and tab, DEL and C1 controls, and replaces invalid UTF-8. Only ward's own
// styling may reach the terminal.
//
// Streaming text must be sanitised as a whole, not delta by delta: an
// escape sequence may be split across two deltas.
func Printable(s string) string {
	if isPlain(s) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = sevenBitC1(s)
	s = ansi.Strip(s) // a real VT parser: drops every sequence, unterminated ones too
	return strings.Map(dropControl, s)
}

// sevenBitC1 rewrites C1 controls written as UTF-8 (U+0080–U+009F) in
// their 7-bit form, ESC followed by a byte, so that the parser drops a C1
// sequence's body along with its introducer, as a terminal would read it.
func sevenBitC1(s string) string {
	if !hasC1(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r >= 0x80 && r <= 0x9f {
			b.WriteByte(0x1b)
			b.WriteByte(byte(r - 0x40))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func hasC1(s string) bool {
	for _, r := range s {
		if r >= 0x80 && r <= 0x9f {
			return true
		}
	}
	return false
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
