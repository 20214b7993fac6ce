package knowledge

import (
	"context"
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
