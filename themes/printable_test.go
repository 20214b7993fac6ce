package themes

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// hostile holds the sequences a model or a scenario file could smuggle in,
// with what must remain visible.
var hostile = map[string]struct{ in, want string }{
	"osc52 clipboard (BEL)": {"a\x1b]52;c;cm0gLXJmIH4=\x07b", "ab"},
	"osc52 clipboard (ST)":  {"a\x1b]52;c;cm0gLXJmIH4=\x1b\\b", "ab"},
	"title change":          {"a\x1b]0;pwned\x07b", "ab"},
	"title change (OSC 2)":  {"a\x1b]2;pwned\x1b\\b", "ab"},
	"csi cursor moves":      {"a\x1b[2J\x1b[H\x1b[10;20Hb", "ab"},
	"csi sgr":               {"a\x1b[31;1mb\x1b[0m", "ab"},
	"raw esc":               {"a\x1b", "a"},
	"esc dispatch (RIS)":    {"a\x1bcb", "ab"},
	"c1 csi as utf-8":       {"a\u009b2Jb", "ab"},
	"c1 osc as utf-8":       {"a\u009d0;pwned\u009cb", "ab"},
	"raw 8-bit csi":         {"a\x9bb", "a\uFFFDb"},
	"dcs":                   {"a\x1bPq#0;2;0;0;0\x1b\\b", "ab"},
	"apc":                   {"a\x1b_Gf=100;AAAA\x1b\\b", "ab"},
	"bel, backspace, cr":    {"a\x07\x08\rb", "ab"},
	"del":                   {"a\x7fb", "ab"},
	"unterminated osc":      {"ab\x1b]52;c;AAAA", "ab"},
	// Text that reads in another order than it is stored: a right-to-left override makes
	// "SpO2 16 %" of "SpO2 61 %", and marks, isolates and invisible characters hide words.
	"bidi override":      {"SpO2 \u202e61\u202c %", "SpO2 61 %"},
	"bidi embeddings":    {"a\u202a\u202b\u202db", "ab"},
	"bidi isolates":      {"a\u2066\u2067\u2068b\u2069", "ab"},
	"direction marks":    {"a\u200e\u200f\u061cb", "ab"},
	"zero-width and bom": {"ana\u200bphy\u200dlaxis\ufeff", "anaphylaxis"},
	"soft hyphen, tags":  {"s\u00adepsis\U000E0041", "sepsis"},
}

func TestPrintableRemovesControlSequences(t *testing.T) {
	for name, tt := range hostile {
		t.Run(name, func(t *testing.T) {
			out := Printable(tt.in)
			assertSafe(t, out)
			if out != tt.want {
				t.Errorf("Printable(%q) = %q, want %q", tt.in, out, tt.want)
			}
		})
	}
}

func TestPrintableKeepsText(t *testing.T) {
	tests := []string{
		"plain text",
		"line one\nline two\ttabbed",
		"SpO₂ 92 % — “quoted” 患者 🩺",
		"**markdown** `code`\n\n- item",
	}
	for _, in := range tests {
		if out := Printable(in); out != in {
			t.Errorf("Printable(%q) = %q, want it unchanged", in, out)
		}
		if !isPlain(in) {
			t.Errorf("%q is not taken as plain: it would pass the parser", in)
		}
	}
}

func FuzzPrintable(f *testing.F) {
	for _, tt := range hostile {
		f.Add(tt.in)
	}
	f.Add("plain\ttext\n")
	f.Add("SpO₂ 92 % — “quoted” 患者 🩺 \u200b\u202e\u0085\x7f")
	f.Fuzz(func(t *testing.T, in string) {
		out := Printable(in)
		assertSafe(t, out)
		if again := Printable(out); again != out {
			t.Errorf("sanitize is not idempotent: %q -> %q -> %q", in, out, again)
		}
		if isPlain(in) && clean(in) != in {
			t.Errorf("%q is taken as plain, but the parser makes it %q", in, clean(in))
		}
		if IsPrintable([]byte(in)) != isPlain(in) {
			t.Errorf("IsPrintable and isPlain disagree on %q", in)
		}
		if isPlain(in) != plainRuneByRune(in) {
			t.Errorf("isPlain(%q) = %v, rune by rune %v", in, isPlain(in), plainRuneByRune(in))
		}
	})
}

// assertSafe fails if s holds anything a terminal would act on.
func assertSafe(t *testing.T, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Fatalf("invalid UTF-8 survived: %q", s)
	}
	for _, r := range s {
		if r == '\n' || r == '\t' {
			continue
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || unicode.Is(unicode.Cf, r) {
			t.Fatalf("control %U survived in %q", r, s)
		}
	}
}

// plainRuneByRune is plain's rule read one rune at a time: the oracle of its eight-byte steps.
func plainRuneByRune(s string) bool {
	for i, r := range s {
		if r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD") {
			return false
		}
		if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) || unicode.Is(unicode.Cf, r) {
			return false
		}
	}
	return true
}

// Every byte value in every place of an eight-byte step, beside printable ASCII.
func TestPlainStepsEightBytesAsOneByOne(t *testing.T) {
	for c := range 256 {
		for at := range 9 {
			in := strings.Repeat("a", at) + string([]byte{byte(c)}) + strings.Repeat("b", 16-at)
			if got, want := isPlain(in), plainRuneByRune(in); got != want {
				t.Errorf("byte %#x at %d: plain %v, rune by rune %v", c, at, got, want)
			}
		}
	}
}

func BenchmarkIsPrintable(b *testing.B) {
	line := []byte(strings.Repeat(`      "content": "BP 92/58, HR 118, SpO2 94 % on air — says she feels faint",`+"\n", 64))
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if !IsPrintable(line) {
			b.Fatal("not printable")
		}
	}
}
