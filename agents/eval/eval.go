// Package eval measures how well a model (or the offline harness) does what ward asks of it: the
// entity delta every agent writes, the patient-context analyzer's decisions, the played patient
// and the Preceptor's debrief. The labelled cases and the scripts are data, in cases/. Each eval
// is a Report with a bar: below it, `ward eval` fails.
package eval

import (
	"fmt"
	"strings"

	"github.com/ward-sim/ward/agents/llm"
	"gopkg.in/yaml.v3"
)

// DefaultMin is the share of cases an eval must pass unless told otherwise.
const DefaultMin = 0.90

// Report is one eval run: every case's result, by category, and the bar it is held to.
type Report struct {
	Suite      string          `json:"suite"` // delta | analyzer | patient | debrief
	Backend    string          `json:"backend"`
	Model      string          `json:"model,omitempty"`
	Total      int             `json:"total"`
	Passed     int             `json:"passed"`
	Rate       float64         `json:"rate"`
	Min        float64         `json:"min"` // the bar; 0 makes the run a report that cannot fail
	Categories []CategoryScore `json:"categories"`
	Cases      []CaseResult    `json:"cases"`
}

// CategoryScore is the result of one category of cases.
type CategoryScore struct {
	Category string `json:"category"`
	Passed   int    `json:"passed"`
	Total    int    `json:"total"`
}

// CaseResult is one case: passed, or why not and what came back.
type CaseResult struct {
	Case     string `json:"case"`
	Category string `json:"category"`
	Passed   bool   `json:"passed"`
	Reason   string `json:"reason,omitempty"`
	Output   string `json:"output,omitempty"`
}

// Record adds one case's result; reason is "" when it passed. Any set of cases can be reported
// and gated this way, such as the knowledge base's retrieval questions.
func (r *Report) Record(name, category, reason, output string) {
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
	c := CaseResult{Case: name, Category: category, Passed: reason == ""}
	if c.Passed {
		r.Passed++
		r.Categories[i].Passed++
	} else {
		c.Reason, c.Output = reason, llm.Clip(output, 600)
	}
	r.Cases = append(r.Cases, c)
	r.Rate = float64(r.Passed) / float64(r.Total)
}

// Failures are the cases that did not pass.
func (r Report) Failures() []CaseResult {
	var out []CaseResult
	for _, c := range r.Cases {
		if !c.Passed {
			out = append(out, c)
		}
	}
	return out
}

// Gate is nil when the run reaches its bar, else an error that says by how much it missed.
func (r Report) Gate() error {
	if r.Min <= 0 || (r.Total > 0 && r.Rate >= r.Min) {
		return nil
	}
	return fmt.Errorf("%s eval: %d/%d passed (%.1f%%), below the bar of %.0f%% (--min %.2f)",
		r.Suite, r.Passed, r.Total, 100*r.Rate, 100*r.Min, r.Min)
}

// verdict is the headline's end: PASS or FAIL against the bar, or that the run cannot fail.
func (r Report) verdict() string {
	switch {
	case r.Min <= 0:
		return "report only (--min 0): this run cannot fail"
	case r.Gate() == nil:
		return fmt.Sprintf("PASS: at or above the bar of %.0f%%", 100*r.Min)
	}
	return fmt.Sprintf("FAIL: below the bar of %.0f%%", 100*r.Min)
}

func (r Report) who() string {
	if r.Model != "" {
		return r.Backend + " " + r.Model
	}
	return r.Backend
}

// String is the report for a terminal: the headline, each category, then every case.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s eval on %s: %d/%d passed (%.1f%%) — %s\n", r.Suite, r.who(), r.Passed, r.Total, 100*r.Rate, r.verdict())
	for _, c := range r.Categories {
		fmt.Fprintf(&b, "  %-16s %d/%d\n", c.Category, c.Passed, c.Total)
	}
	for _, c := range r.Cases {
		if c.Passed {
			fmt.Fprintf(&b, "PASS %s/%s\n", c.Category, c.Case)
			continue
		}
		fmt.Fprintf(&b, "FAIL %s/%s: %s\n", c.Category, c.Case, c.Reason)
		if c.Output != "" {
			fmt.Fprintf(&b, "     got: %s\n", strings.ReplaceAll(c.Output, "\n", "\n          "))
		}
	}
	return b.String()
}

// Markdown is the report for a review: the headline, a table of categories and one of cases.
func (r Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# ward eval %s\n\n%s: %d/%d passed (%.1f%%) — %s\n\n", r.Suite, r.who(), r.Passed, r.Total, 100*r.Rate, r.verdict())
	b.WriteString("| category | passed |\n|---|---|\n")
	for _, c := range r.Categories {
		fmt.Fprintf(&b, "| %s | %d/%d |\n", cell(c.Category), c.Passed, c.Total)
	}
	b.WriteString("\n| case | category | result | why | got |\n|---|---|---|---|---|\n")
	for _, c := range r.Cases {
		result := "pass"
		if !c.Passed {
			result = "**FAIL**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", cell(c.Case), cell(c.Category), result, cell(c.Reason), cell(c.Output))
	}
	return b.String()
}

// cell makes text safe inside a markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", "").Replace(s)
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
