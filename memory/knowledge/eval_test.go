package knowledge

import (
	"context"
	"strconv"
	"strings"
	"testing"
)

// recallBar is what `ward eval knowledge` holds lexical search to by default (--min 0.90): the
// answering section in the top three for at least this share of the questions.
const recallBar = 0.90

// TestEvalRecallAt3 is the offline gate: lexical search alone must reach the bar.
func TestEvalRecallAt3(t *testing.T) {
	qs, err := EvalQuestions()
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) < 40 {
		t.Fatalf("%d evaluation questions, want at least 40", len(qs))
	}
	results, err := RunEval(context.Background(), New(Options{}), qs)
	if err != nil {
		t.Fatal(err)
	}
	hits := 0
	for _, r := range results {
		if r.Rank > 0 {
			hits++
		} else {
			t.Logf("miss: %q wants %s, got %v", r.Question, r.Want(), r.Got)
		}
	}
	if recall := float64(hits) / float64(len(results)); recall < recallBar {
		t.Errorf("recall@%d %.3f (%d/%d) below the bar %.2f", EvalK, recall, hits, len(results), recallBar)
	}
}

// quotedBar is the share of the questions whose offline answer quotes the section that answers
// them. Offline, the Preceptor quotes one of the top three passages, the one whose sentence
// matches best, so a card can answer another card's question wrongly while recall@3 holds: a
// child's 10 mL/kg bolus for an adult in septic shock, a pregnant woman's blood pressure after
// ROSC (both seen, and fixed, as the library grew).
const quotedBar = 0.90

// TestEvalOfflineAnswersQuoteTheirSection holds the offline answers to the questions' sections.
func TestEvalOfflineAnswersQuoteTheirSection(t *testing.T) {
	qs, err := EvalQuestions()
	if err != nil {
		t.Fatal(err)
	}
	kb := New(Options{})
	hits := 0
	for _, q := range qs {
		r, err := kb.Retrieve(context.Background(), q.Question, EvalK)
		if err != nil {
			t.Fatal(err)
		}
		answer, ok := Extract(q.Question, r.Passages)
		var quoted Passage
		for _, p := range r.Passages {
			if ok && strings.HasSuffix(answer, "["+strconv.Itoa(p.N)+"]") {
				quoted = p
			}
		}
		if quoted.CardID == q.Card && quoted.Section == q.Section {
			hits++
		} else {
			t.Logf("%q wants %s; the answer quotes %s › %s", q.Question, q.Want(), quoted.CardID, quoted.Section)
		}
	}
	if share := float64(hits) / float64(len(qs)); share < quotedBar {
		t.Errorf("offline answers quote their section for %.3f (%d/%d) of the questions, below the bar %.2f", share, hits, len(qs), quotedBar)
	}
}
