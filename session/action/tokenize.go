package action

import (
	"strconv"
	"strings"

	"github.com/ward-sim/ward/memory/words"
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

// sentences splits text into sentences of clauses of lexemes, from the words the trainee
// typed as package words splits them, whatever their letter case.
func sentences(text string) [][]clause {
	var out [][]clause
	var cur []clause
	pos := 0
	for _, seg := range splitBreaks(pieces(text)) {
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

// pieces is the text's words, each cut into its pieces ("15L" → 15, l; "non-rebreather" → non,
// rebreather), with a marker for each break.
func pieces(text string) []string {
	var out []string
	for _, t := range words.Split(text) {
		switch t.Kind {
		case words.ClauseBreak:
			out = append(out, breakClause)
		case words.SentenceBreak:
			out = append(out, breakSentence)
		default:
			out = append(out, t.Pieces()...)
		}
	}
	return out
}
