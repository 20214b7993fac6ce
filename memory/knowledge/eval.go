package knowledge

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"

	"gopkg.in/yaml.v3"
)

// EvalK is the depth of recall@k: the answering section must be among the first EvalK passages.
const EvalK = 3

//go:embed evalset.yaml
var evalSet []byte

// EvalQuestion is a trainee's question and the card section that answers it.
type EvalQuestion struct {
	Question string `yaml:"q"`
	Card     string `yaml:"card"`
	Section  string `yaml:"section"`
}

// EvalQuestions returns the built-in evaluation set.
func EvalQuestions() ([]EvalQuestion, error) {
	var qs []EvalQuestion
	dec := yaml.NewDecoder(bytes.NewReader(evalSet))
	dec.KnownFields(true)
	if err := dec.Decode(&qs); err != nil {
		return nil, fmt.Errorf("evaluation set: %w", err)
	}
	return qs, nil
}

// EvalResult is one question's outcome.
type EvalResult struct {
	EvalQuestion
	Rank     int      // where the answering section came, 1-based; 0 when not in the top EvalK
	Got      []string // the top EvalK as "card › section"
	Semantic bool     // semantic ranking took part
}

// Want is the answering section as Got names it.
func (q EvalQuestion) Want() string { return q.Card + " › " + q.Section }

// RunEval asks every question and finds where the section answering it came among the top
// EvalK passages.
func RunEval(ctx context.Context, kb *KB, qs []EvalQuestion) ([]EvalResult, error) {
	var out []EvalResult
	for _, q := range qs {
		r, err := kb.Retrieve(ctx, q.Question, EvalK)
		if err != nil {
			return out, err
		}
		res := EvalResult{EvalQuestion: q, Semantic: r.Semantic}
		for _, p := range r.Passages {
			res.Got = append(res.Got, p.CardID+" › "+p.Section)
			if res.Rank == 0 && p.CardID == q.Card && p.Section == q.Section {
				res.Rank = p.N
			}
		}
		out = append(out, res)
	}
	return out, nil
}
