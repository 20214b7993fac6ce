package words

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// render shows tokens compactly: words as typed, "," for a clause break, "." for a sentence break.
func render(tokens []Token) string {
	var parts []string
	for _, t := range tokens {
		switch t.Kind {
		case ClauseBreak:
			parts = append(parts, ",")
		case SentenceBreak:
			parts = append(parts, ".")
		default:
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, " ")
}

func TestSplit(t *testing.T) {
	tests := []struct{ text, want string }{
		{"review patient_6", "review patient_6"},
		{"pt#6, then pt #7.", "pt#6 , then pt 7 ."},
		{"how is patient_4's pain?", "how is patient_4's pain ."},
		{"patient_-1", "patient_-1"},
		{"give 0.5mg adrenaline IM; recheck", "give 0.5mg adrenaline IM . recheck"},
		{"1,000 mL of 1:1000 at .5 mg/kg", "1,000 mL of 1:1000 at .5 mg kg"},
		{"15L NRB - then 94%", "15L NRB , then 94 %"},
		{"non-rebreather (15 L)", "non-rebreather , 15 L ,"},
		{"what’s next", "what’s next"},
		{"oxygen- then", "oxygen then"},
		{"“quoted” words", "quoted words"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := render(Split(tt.text)); got != tt.want {
			t.Errorf("Split(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestPieces(t *testing.T) {
	tests := []struct {
		word string
		want []string
	}{
		{"non-rebreather", []string{"non", "rebreather"}},
		{"0.5mg", []string{"0.5", "mg"}},
		{"15L", []string{"15", "l"}},
		{"1,000", []string{"1000"}},
		{"1:1000", []string{"1:1000"}},
		{"don't", []string{"don", "t"}},
		{"What’s", []string{"what", "s"}},
		{"patient_6", []string{"patient", "6"}},
		{"SpO2", []string{"spo2"}},
	}
	for _, tt := range tests {
		toks := Split(tt.word)
		if len(toks) != 1 {
			t.Fatalf("%q is %d tokens", tt.word, len(toks))
		}
		if got := toks[0].Pieces(); !slices.Equal(got, tt.want) {
			t.Errorf("Pieces(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
}

func TestPhrases(t *testing.T) {
	padded := Padded(Lower(Split("Should I give the next dose?")))
	if !StartsWithPhrase(padded, []string{"should i"}) || !HasPhrase(padded, []string{"next dose"}) || HasPhrase(padded, []string{"ext do"}) {
		t.Errorf("phrases in %q", padded)
	}
}

// Every word is a non-empty part of the text, and nothing is read twice.
// TestSplitCopiesNoWord: a split makes one slice of tokens and copies no word out of the text
// (a word in capitals or with a typographic apostrophe has its own Lower, which is a copy).
func TestSplitCopiesNoWord(t *testing.T) {
	text := "applying oxygen via non-rebreather at 15 litres, checking vitals; switch to pt #15"
	if n := testing.AllocsPerRun(100, func() { Split(text) }); n > 1 {
		t.Errorf("Split allocates %.0f times, want 1", n)
	}
	if got := render(Split("a\xffb \xff1,000")); got != "a b 1,000" {
		t.Errorf("an invalid byte is %q, want a break between words", got)
	}
}

func FuzzSplit(f *testing.F) {
	for _, s := range []string{"pt#6, then 0.5mg; 1:1000 — non-rebreather’s", "patient_-1", "..5", "-_#'", "ﬁ ß İ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		total := 0
		for _, tok := range Split(text) {
			if tok.Kind != Word {
				continue
			}
			if tok.Text == "" || !strings.Contains(text, tok.Text) || !utf8.ValidString(tok.Lower) && utf8.ValidString(text) {
				t.Fatalf("word %q of %q", tok.Text, text)
			}
			total += len(tok.Text)
			for _, p := range tok.Pieces() {
				if p == "" {
					t.Fatalf("empty piece of %q", tok.Text)
				}
			}
		}
		if total > len(text) {
			t.Fatalf("words of %q add up to %d bytes", text, total)
		}
	})
}
