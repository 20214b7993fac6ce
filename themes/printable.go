package themes

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Printable makes text that came from an LLM or a file safe to print to a terminal, where only
// ward's own styling may reach: the screen and the command line both clean with it, and the
// session cleans every model reply with it before the reply is checked, shown or stored. It
// removes escape sequences (CSI, OSC — clipboard writes and title changes included — DCS, APC
// and the rest), C0 controls other than newline and tab, DEL and C1 controls, and the format
// characters that reorder or hide text (bidi controls among them), and replaces invalid UTF-8.
//
// Streaming text must be sanitised as a whole, not delta by delta: an
// escape sequence may be split across two deltas.
func Printable(s string) string {
	if isPlain(s) {
		return s
	}
	return clean(s)
}

// clean is Printable's work on text that is not plain.
func clean(s string) string {
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

// isPlain reports whether s is valid UTF-8 with no control but newline and tab, no DEL, no C1
// control and no format character: text Printable leaves as it is, which is almost every
// message, so they skip the parser.
func isPlain(s string) bool { return plain(s) }

// IsPrintable reports whether Printable would leave p as it is, without copying it.
func IsPrintable(p []byte) bool { return plain(p) }

func plain[T string | []byte](s T) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		// a few bytes as a string, which stays on the stack, as encoding/json decodes a rune
		r, n := utf8.DecodeRuneInString(string(s[i:min(len(s), i+utf8.UTFMax)]))
		if (r == utf8.RuneError && n == 1) || r <= 0x9f || unicode.Is(unicode.Cf, r) {
			return false
		}
		i += n
	}
	return true
}

// dropControl removes what ansi.Strip keeps on purpose: the C0 controls it
// executes (BEL, BS, CR…), DEL, and C1 controls written as UTF-8, which
// some terminals still obey; and every format character (Unicode's Cf): the
// bidirectional embeddings, overrides and isolates (U+202A–U+202E,
// U+2066–U+2069), the direction marks (U+200E, U+200F, U+061C), and the
// invisible joiners and spaces, which can make text read in another order
// than it is stored, or hide a word or a number from a check.
func dropControl(r rune) rune {
	if r == '\n' || r == '\t' {
		return r
	}
	if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || unicode.Is(unicode.Cf, r) {
		return -1
	}
	return r
}
