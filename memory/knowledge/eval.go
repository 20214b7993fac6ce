package knowledge

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"io"

	"gopkg.in/yaml.v3"
)

// RecallBar is the recall@3 that `ward eval knowledge` must reach with lexical search alone.
const RecallBar = 0.90

// evalK is the depth of recall@k.
const evalK = 3

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
	Rank int      // where the answering section came, 1-based; 0 when not in the top evalK
	Got  []string // the top evalK as "card › section"
}

// EvalReport is the outcome of the whole set.
type EvalReport struct {
	Results  []EvalResult
	Recall   float64 // recall@3: the share of questions answered in the top 3
	Bar      float64
	Semantic bool // semantic ranking took part in every query
}

// Pass reports whether recall@3 reached the bar.
func (r EvalReport) Pass() bool { return r.Recall >= r.Bar }

// RunEval asks every question and checks that the section answering it is among the top 3
// passages.
func RunEval(ctx context.Context, kb *KB, qs []EvalQuestion, bar float64) (EvalReport, error) {
	rep := EvalReport{Bar: bar, Semantic: len(qs) > 0}
	hits := 0
	for _, q := range qs {
		r, err := kb.Retrieve(ctx, q.Question, evalK)
		if err != nil {
			return rep, err
		}
		rep.Semantic = rep.Semantic && r.Semantic
		res := EvalResult{EvalQuestion: q}
		for _, p := range r.Passages {
			res.Got = append(res.Got, p.CardID+" › "+p.Section)
			if res.Rank == 0 && p.CardID == q.Card && p.Section == q.Section {
				res.Rank = p.N
			}
		}
		if res.Rank > 0 {
			hits++
		}
		rep.Results = append(rep.Results, res)
	}
	if len(qs) > 0 {
		rep.Recall = float64(hits) / float64(len(qs))
	}
	return rep, nil
}

// WriteText prints a line per question, then recall@3 against the bar.
func (r EvalReport) WriteText(w io.Writer) error {
	var b bytes.Buffer
	hits := 0
	for _, res := range r.Results {
		if res.Rank > 0 {
			hits++
			fmt.Fprintf(&b, "ok    #%d  %s  → %s › %s\n", res.Rank, res.Question, res.Card, res.Section)
			continue
		}
		fmt.Fprintf(&b, "MISS      %s  → %s › %s; got %v\n", res.Question, res.Card, res.Section, res.Got)
	}
	mode := "lexical"
	if r.Semantic {
		mode = "lexical + semantic"
	}
	verdict := "pass"
	if !r.Pass() {
		verdict = "FAIL"
	}
	fmt.Fprintf(&b, "recall@%d %.3f (%d/%d, %s), bar %.2f: %s\n", evalK, r.Recall, hits, len(r.Results), mode, r.Bar, verdict)
	_, err := w.Write(b.Bytes())
	return err
}
