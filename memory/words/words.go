// Package words splits what the trainee typed into words, once, for every reader of it: the
// patient-context rules, ID normalisation, the confirmation gate, the team's routing, the action
// parser and the compound-action check. One tokenizer means one answer to "what did the trainee
// say": a word the parser sees is the word the rules see.
package words

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind says whether a token is a word or a break between parts of the text.
type Kind uint8

const (
	Word          Kind = iota
	ClauseBreak        // a comma, colon, bracket, dash or "and"-like sign ends a clause
	SentenceBreak      // a full stop, question or exclamation mark, semicolon or line break
)

// Token is one word of the text, or a break.
type Token struct {
	Kind Kind
	// Text is the word as typed. Joiners inside a word stay in it: "patient_6", "pt#6",
	// "what's", "non-rebreather", "0.5mg", "1,000", "1:1000".
	Text string
	// Lower is Text with its letters lowered and a typographic apostrophe written '.
	Lower string
}

// Split cuts text into words and breaks, in order. A word's Text is a slice of text, not a copy:
// every turn splits what the trainee typed, several times.
func Split(text string) []Token {
	if !utf8.ValidString(text) {
		text = string([]rune(text)) // each invalid byte is read as U+FFFD
	}
	out := make([]Token, 0, len(text)/4+1) // about one token in four bytes of what a trainee types
	start := -1
	flush := func(end int) {
		if start >= 0 {
			out = append(out, word(text[start:end]))
			start = -1
		}
	}
	prev := ' '
	for i, r := range text {
		next := ' '
		if j := i + utf8.RuneLen(r); j < len(text) {
			next, _ = utf8.DecodeRuneInString(text[j:])
		}
		switch {
		case isWordRune(r), start >= 0 && joins(r, prev, next), start < 0 && r == '.' && unicode.IsDigit(next):
			if start < 0 {
				start = i
			}
		case r == '%':
			flush(i)
			out = append(out, word("%"))
		default:
			flush(i)
			if k := breakKind(r, prev, next); k != Word {
				out = append(out, Token{Kind: k})
			}
		}
		prev = r
	}
	flush(len(text))
	if len(out) == 0 {
		return nil // as ever: no words is no slice
	}
	return out
}

func word(s string) Token {
	return Token{Kind: Word, Text: s, Lower: strings.ReplaceAll(strings.ToLower(s), "’", "'")}
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// joins reports whether r, met inside a word, belongs to it: an ID's separator or an apostrophe
// between word characters, or a decimal point, thousands comma or ratio colon between digits.
func joins(r, prev, next rune) bool {
	switch r {
	case '_', '#', '-', '\'', '’':
		return (isWordRune(prev) || strings.ContainsRune("_#-", prev)) && (isWordRune(next) || strings.ContainsRune("_#-", next))
	case '.', ',', ':':
		return unicode.IsDigit(prev) && unicode.IsDigit(next)
	}
	return false
}

func breakKind(r, prev, next rune) Kind {
	switch {
	case strings.ContainsRune(".!?;\n", r):
		return SentenceBreak
	case strings.ContainsRune(",:()[]&+—–", r), r == '-' && prev == ' ' && next == ' ':
		return ClauseBreak
	}
	return Word // not a break: a separator such as a space, a slash or a quote
}

// Lower is the Lower form of every word of tokens, breaks left out.
func Lower(tokens []Token) []string {
	out := make([]string, 0, len(tokens))
	for _, t := range tokens {
		if t.Kind == Word {
			out = append(out, t.Lower)
		}
	}
	return out
}

// Pieces cuts a word at its joiners and between a number and the letters after it, for readers
// that match smaller parts: "non-rebreather" → non, rebreather; "0.5mg" → 0.5, mg;
// "don't" → don, t. Thousands commas are dropped ("1,000" → 1000); a ratio stays whole
// ("1:1000").
func (t Token) Pieces() []string {
	var out []string
	for _, part := range strings.FieldsFunc(t.Lower, func(r rune) bool { return strings.ContainsRune("_#-'", r) }) {
		out = append(out, splitNumber(part)...)
	}
	return out
}

// splitNumber separates a leading number from the letters after it.
func splitNumber(w string) []string {
	end := 0
	for end < len(w) && (w[end] >= '0' && w[end] <= '9' || w[end] == '.' || w[end] == ',' || w[end] == ':') {
		end++
	}
	if end == 0 || strings.Contains(w[:end], ":") {
		return []string{w}
	}
	num := strings.ReplaceAll(w[:end], ",", "")
	if end == len(w) {
		return []string{num}
	}
	return []string{num, w[end:]}
}

// Padded joins words with single spaces and one at each end, so a phrase matches whole words as
// " "+phrase+" ".
func Padded(words []string) string { return " " + strings.Join(words, " ") + " " }

// HasPhrase reports whether padded holds any of the phrases as whole words.
func HasPhrase(padded string, phrases []string) bool {
	for _, p := range phrases {
		if strings.Contains(padded, " "+p+" ") {
			return true
		}
	}
	return false
}

// StartsWithPhrase reports whether padded begins with any of the phrases.
func StartsWithPhrase(padded string, phrases []string) bool {
	for _, p := range phrases {
		if strings.HasPrefix(padded, " "+p+" ") {
			return true
		}
	}
	return false
}

// Texts is the Text of every word of tokens, as typed, breaks left out.
func Texts(tokens []Token) []string {
	out := make([]string, 0, len(tokens))
	for _, t := range tokens {
		if t.Kind == Word {
			out = append(out, t.Text)
		}
	}
	return out
}
