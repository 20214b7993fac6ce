package action

import (
	"slices"
	"strings"
)

// A resuscitation team closes its loops in few words: the member given an order says it back
// and says it is done ("adrenaline in", "charged", "shock delivered"), seldom repeating the dose
// or the route. SaysBack recognises such a line against the order it answers.

// doneWords say that something has been done; a word of the order's own in the past tense
// ("charged", "shocked") says it too.
var doneWords = []string{"done", "given", "in", "on", "delivered", "complete", "completed", "sited", "running",
	"away", "attached", "inserted", "finished", "connected", "secured", "gone"}

// unechoed are the order's words that say nothing of what it is: saying them back is no say-back.
var unechoed = []string{"the", "and", "then", "please", "you", "can", "could", "will", "now", "him", "her", "them",
	"that", "this", "with", "for", "to", "of", "it", "is", "be", "we", "give", "giving", "get", "put", "start", "starting", "some"}

// SaysBack reports whether said answers order as a say-back of it done: it names something the
// order names (the same drug by any of its names, or a word of the order's), says it is done, and
// neither denies it nor is getting it ready ("adrenaline not in yet", "drawing up adrenaline").
// A line with an amount of its own is an action in its own words (Parse), not a say-back.
func SaysBack(said, order string) bool {
	saidLx, orderLx := flatten(said), flatten(order)
	done := false
	for _, lx := range saidLx {
		switch {
		case lx.cat == catNeg || lx.cat == catPrep || lx.cat == catNum:
			return false
		case slices.ContainsFunc(strings.Fields(lx.word), func(w string) bool { return slices.Contains(doneWords, w) }):
			done = true
		case slices.ContainsFunc(orderLx, func(o lexeme) bool { return saysDone(lx.word, o.word) }):
			done = true
		}
	}
	return done && slices.ContainsFunc(saidLx, func(s lexeme) bool {
		return slices.ContainsFunc(orderLx, func(o lexeme) bool { return echoes(s, o) })
	})
}

// echoes reports whether s, said back, names what o of the order names: the same drug, device or
// thing the lexicon knows, or a word of the same.
func echoes(s, o lexeme) bool {
	switch o.cat {
	case catNum, catConj, catFiller, catDirect, catGive, catUnit, catRoute, catNeg, catPrep:
		return false
	}
	if s.cat == o.cat && s.val != "" && s.val == o.val {
		return true
	}
	return sameWord(s.word, o.word)
}

// sameWord reports whether phrases a and b share a word that says what something is: the same
// word, or one the other with an ending ("charge", "charged"; "shock", "shocking") when the
// shorter has four letters or more.
func sameWord(a, b string) bool {
	for _, u := range strings.Fields(a) {
		for _, v := range strings.Fields(b) {
			x, y := u, v // the shorter, the longer
			if len(x) > len(y) {
				x, y = y, x
			}
			if slices.Contains(unechoed, x) || slices.Contains(doneWords, x) || len(x) < 2 {
				continue
			}
			if x == y || len(x) >= 4 && strings.HasPrefix(y, x) {
				return true
			}
		}
	}
	return false
}

// saysDone reports whether a word of phrase said is a word of phrase order in the past tense:
// "charged" of "charge", "shocked" of "shock", "rubbed" of "rub".
func saysDone(said, order string) bool {
	for _, w := range strings.Fields(said) {
		for _, o := range strings.Fields(order) {
			if len(o) >= 3 && !slices.Contains(unechoed, o) &&
				(w == o+"ed" || w == o+"d" && strings.HasSuffix(o, "e") || w == o+o[len(o)-1:]+"ed") {
				return true
			}
		}
	}
	return false
}

// flatten is the text's lexemes, clauses and sentences aside.
func flatten(text string) []lexeme {
	var out []lexeme
	for _, sentence := range sentences(text) {
		for _, c := range sentence {
			out = append(out, c...)
		}
	}
	return out
}
