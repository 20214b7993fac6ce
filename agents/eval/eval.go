// Package eval measures how well a model (or the offline harness) meets ward's formats: the
// entity delta every agent writes and the patient-context analyzer's decisions. The labelled
// cases are data, in cases/.
package eval

import (
	"fmt"
	"strings"

	"github.com/ward-sim/ward/agents/llm"
	"gopkg.in/yaml.v3"
)

// Report is one conformance run: how many labelled cases passed, by
// category, and why each failure failed. `ward eval` prints String(), or
// the JSON.
type Report struct {
	Suite      string          `json:"suite"` // delta | analyzer
	Backend    string          `json:"backend"`
	Model      string          `json:"model,omitempty"`
	Total      int             `json:"total"`
	Passed     int             `json:"passed"`
	Categories []CategoryScore `json:"categories"`
	Failures   []EvalFailure   `json:"failures"`
}

// CategoryScore is the result of one category of cases.
type CategoryScore struct {
	Category string `json:"category"`
	Passed   int    `json:"passed"`
	Total    int    `json:"total"`
}

// EvalFailure is one failed case: what was wrong and what came back.
type EvalFailure struct {
	Case     string `json:"case"`
	Category string `json:"category"`
	Reason   string `json:"reason"`
	Output   string `json:"output,omitempty"`
}

// Rate is the share of cases that passed, 0 to 1.
func (r Report) Rate() float64 {
	if r.Total == 0 {
		return 0
	}
	return float64(r.Passed) / float64(r.Total)
}

// record adds one case's result; reason is "" when it passed.
func (r *Report) record(name, category, reason, output string) {
	r.Total++
	i := len(r.Categories)
	for j, c := range r.Categories {
		if c.Category == category {
			i = j
		}
	}
	if i == len(r.Categories) {
		r.Categories = append(r.Categories, CategoryScore{Category: category})
	}
	r.Categories[i].Total++
	if reason == "" {
		r.Passed++
		r.Categories[i].Passed++
		return
	}
	r.Failures = append(r.Failures, EvalFailure{Case: name, Category: category, Reason: reason, Output: llm.Clip(output, 600)})
}

func (r Report) String() string {
	var b strings.Builder
	who := r.Backend
	if r.Model != "" {
		who += " " + r.Model
	}
	fmt.Fprintf(&b, "%s conformance on %s: %d/%d passed (%.1f%%)\n", r.Suite, who, r.Passed, r.Total, 100*r.Rate())
	for _, c := range r.Categories {
		fmt.Fprintf(&b, "  %-16s %d/%d\n", c.Category, c.Passed, c.Total)
	}
	for _, f := range r.Failures {
		fmt.Fprintf(&b, "FAIL %s/%s: %s\n", f.Category, f.Case, f.Reason)
		if f.Output != "" {
			fmt.Fprintf(&b, "     got: %s\n", strings.ReplaceAll(f.Output, "\n", "\n          "))
		}
	}
	return b.String()
}

// mustCases decodes a case table embedded in the binary; a broken table is a build-time mistake
// that every test of this package would meet first.
func mustCases[T any](data []byte) []T {
	var cases []T
	if err := yaml.Unmarshal(data, &cases); err != nil {
		panic("eval: case table: " + err.Error())
	}
	return cases
}
