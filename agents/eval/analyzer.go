package eval

import (
	"context"
	_ "embed"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/ward-sim/ward/agents/analyzer"
)

// EvalAnalyzer runs every labelled patient-context case through a and
// checks the action and patient ID. A decision that fell back to the rules
// (source "fallback") fails, because it means the model gave no usable
// answer. Report.Backend lists the decision sources seen: "rules" for the
// offline harness check, "llm" (and "fallback") for a model; the caller may
// set Report.Model.
func EvalAnalyzer(ctx context.Context, a analyzer.Analyzer) Report {
	r := Report{Suite: "analyzer"}
	var sources []string
	for _, c := range analyzerCases() {
		d := a.Analyze(ctx, c.input())
		if !slices.Contains(sources, d.Source) {
			sources = append(sources, d.Source)
		}
		r.Record(c.Name, c.Category, c.check(d), fmt.Sprintf("%s %q (%s): %s", d.Action, d.PatientID, d.Source, d.Reasoning))
	}
	r.Backend = strings.Join(sources, "+")
	return r
}

// analyzerCase is one labelled message: the registry's state, what the trainee typed, and the
// decision a careful reader would make.
type analyzerCase struct {
	Name     string          `yaml:"name"`
	Category string          `yaml:"category"`
	Text     string          `yaml:"text"`
	Active   string          `yaml:"active"`
	Roster   []string        `yaml:"roster"`
	Pattern  string          `yaml:"pattern"` // PATIENT_ID_PATTERN; "" is the default
	Action   analyzer.Action `yaml:"action"`
	ID       string          `yaml:"id"`
}

//go:embed cases/analyzer.yaml
var analyzerCasesYAML []byte

// analyzerCases are parsed on first use, so start-up does not pay for a table only `ward eval` reads.
var analyzerCases = sync.OnceValue(func() []analyzerCase { return mustCases[analyzerCase](analyzerCasesYAML) })

func (c analyzerCase) input() analyzer.AnalyzerInput {
	in := analyzer.AnalyzerInput{Text: c.Text, ActivePatient: c.Active, Roster: c.Roster}
	if c.Pattern != "" {
		in.Pattern = regexp.MustCompile(c.Pattern)
	}
	return in
}

func (c analyzerCase) check(d analyzer.Decision) string {
	var reasons []string
	if d.Source == analyzer.SourceFallback {
		reasons = append(reasons, "the model gave no usable answer")
	}
	if d.Action != c.Action || d.PatientID != c.ID {
		reasons = append(reasons, fmt.Sprintf("want %s %q, got %s %q", c.Action, c.ID, d.Action, d.PatientID))
	}
	return strings.Join(reasons, "; ")
}
