package eval

import (
	"context"
	"fmt"
	"strings"

	"github.com/ward-sim/ward/memory/knowledge"
)

// EvalKnowledge asks the knowledge base every question of its evaluation set: a case passes when
// the section that answers it is among the first knowledge.EvalK passages (recall@3). The
// categories are the cards. backend names the search: full-text, or fused with an embedding
// model's ranking.
func EvalKnowledge(ctx context.Context, kb *knowledge.KB) (Report, error) {
	r := Report{Suite: "knowledge", Backend: "full-text search"}
	if m := kb.EmbedModel(); m != "" {
		r.Backend, r.Model = "full-text + semantic search with", m
	}
	qs, err := knowledge.EvalQuestions()
	if err != nil {
		return r, err
	}
	results, err := knowledge.RunEval(ctx, kb, qs)
	if err != nil {
		return r, err
	}
	for _, res := range results {
		reason := ""
		if res.Rank == 0 {
			reason = fmt.Sprintf("%s is not in the top %d", res.Want(), knowledge.EvalK)
		}
		if r.Model != "" && !res.Semantic {
			reason = strings.TrimPrefix(reason+"; semantic search did not take part", "; ")
		}
		r.Record(res.Question, res.Card, reason, strings.Join(res.Got, " · "))
	}
	return r, nil
}
