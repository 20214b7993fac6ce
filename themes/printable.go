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
		if i+8 <= len(s) && plainASCII8(word8(s[i:])) {
			i += 8
			continue
		}
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

// plainASCII8 reports whether the eight bytes of w are all printable ASCII (0x20–0x7e), eight
// at a time: a dump prints tens of MiB through plain, almost all of it such bytes. A false
// answer only sends the bytes through plain's byte-by-byte look (newline and tab are plain there).
func plainASCII8(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	below := (w - 0x20*ones) & ^w // a byte under 0x20 sets its high bit (w's own high bits are checked apart)
	del := w ^ 0x7f*ones
	isDel := (del - ones) & ^del // a byte of 0x7f is zero in del
	return (w|below|isDel)&highs == 0
}

// word8 is the first eight bytes of b as one little-endian word.
func word8[T string | []byte](b T) uint64 {
	_ = b[7] // one bounds check: the compiler then loads the eight bytes as one word
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
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
