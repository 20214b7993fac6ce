package physio

import (
	"strconv"
	"strings"
	"unicode"
)

// lexeme is a recognised word or phrase at a position in the message.
type lexeme struct {
	cat  category
	val  string
	word string
	num  float64
	pos  int
	// negated: a negation, preparation or stop came earlier in the clause
	// ("don't give morphine", "drawing up adrenaline", "fentanyl, not morphine").
	negated bool
}

// clause is a run of lexemes between commas, dashes, conjunctions and
// sentence ends; a sentence is a run of clauses.
type clause []lexeme

const (
	breakClause   = "\x00c"
	breakSentence = "\x00s"
)

// sentences splits text into sentences of clauses of lexemes. Only ASCII is
// case-folded, so the parse is the same whatever the letter case.
func sentences(text string) [][]clause {
	var out [][]clause
	var cur []clause
	pos := 0
	for _, seg := range splitBreaks(words(text)) {
		if seg == nil {
			out, cur = appendSentence(out, cur), nil
			continue
		}
		cur = append(cur, lexemes(seg, &pos)...)
	}
	return appendSentence(out, cur)
}

func appendSentence(out [][]clause, cur []clause) [][]clause {
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// splitBreaks yields runs of words between breaks; nil marks a sentence end.
func splitBreaks(ws []string) [][]string {
	var out [][]string
	start := 0
	for i, w := range ws {
		if w == breakClause || w == breakSentence {
			if i > start {
				out = append(out, ws[start:i])
			}
			if w == breakSentence {
				out = append(out, nil)
			}
			start = i + 1
		}
	}
	if start < len(ws) {
		out = append(out, ws[start:])
	}
	return out
}

// lexemes matches the longest lexicon phrases in a run of words and splits
// the result into clauses at conjunctions.
func lexemes(ws []string, pos *int) []clause {
	var out []clause
	var cur clause
	neg := false
	for i := 0; i < len(ws); {
		e, n, ok := lookup(ws[i:])
		lx := lexeme{cat: e.cat, val: e.val, word: strings.Join(ws[i:i+max(n, 1)], " "), pos: *pos}
		if !ok {
			n = 1
			if f, err := strconv.ParseFloat(ws[i], 64); err == nil {
				lx.cat, lx.num = catNum, f
			}
		}
		i += n
		*pos++
		if lx.cat == catConj {
			out, cur, neg = appendClause(out, cur), nil, false
			continue
		}
		lx.negated = neg
		neg = neg || lx.cat == catNeg || lx.cat == catPrep || lx.cat == catStop
		cur = append(cur, lx)
	}
	return appendClause(out, cur)
}

func appendClause(out []clause, cur clause) []clause {
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// words lowercases ASCII, splits text into words and break markers, and
// splits a number from a unit written against it ("15L" → "15", "l").
func words(text string) []string {
	rs := []rune(text)
	var out []string
	var word []rune
	flush := func() {
		if len(word) > 0 {
			out = append(out, splitNumber(string(word))...)
			word = word[:0]
		}
	}
	at := func(i int) rune {
		if i < 0 || i >= len(rs) {
			return ' '
		}
		return rs[i]
	}
	for i, r := range rs {
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		prev, next := at(i-1), at(i+1)
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			word = append(word, r)
		case r == '.' && unicode.IsDigit(next) && !unicode.IsLetter(prev):
			word = append(word, r) // decimal point, including ".5"
		case (r == ',' || r == ':') && unicode.IsDigit(prev) && unicode.IsDigit(next):
			word = append(word, r) // 1,000 or a 1:1000 ratio
		case r == '%':
			flush()
			out = append(out, "%")
		case strings.ContainsRune(".!?;\n", r):
			flush()
			out = append(out, breakSentence)
		case strings.ContainsRune(",:()[]&+—–", r) || (r == '-' && prev == ' ' && next == ' '):
			flush()
			out = append(out, breakClause)
		default:
			flush()
		}
	}
	flush()
	return out
}

// splitNumber separates a leading number from letters: "0.5mg" → "0.5",
// "mg". Thousands commas are dropped; ratios (1:1000) stay one word.
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
