package knowledge

import (
	"context"
	"strings"
	"testing"
)

// TestEvalRecallAt3 is the CI gate of `ward eval knowledge`: lexical search alone, offline,
// must put the answering section in the top three for at least RecallBar of the questions.
func TestEvalRecallAt3(t *testing.T) {
	qs, err := EvalQuestions()
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) < 40 {
		t.Fatalf("%d evaluation questions, want at least 40", len(qs))
	}
	rep, err := RunEval(context.Background(), New(Options{}), qs, RecallBar)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	if !rep.Pass() {
		t.Errorf("recall@3 %.3f below the bar %.2f", rep.Recall, RecallBar)
	}
}
