package live

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ward-sim/ward/agents/analyzer"
	"github.com/ward-sim/ward/agents/llm"
)

// Recorded is a trace's turns as the inspector shows them, for `ward inspect`: every input but
// the clock's ticks, with the calls made for it.
type Recorded struct {
	turns []TurnTrace
}

// RecordedTurns reads the turns of a trace's runs, in order.
func RecordedTurns(runs []llm.TraceRun) *Recorded {
	r := &Recorded{}
	for i, run := range runs {
		label := ""
		if len(runs) > 1 {
			label = fmt.Sprintf("run %d · ", i+1)
		}
		n := 0
		for _, in := range run.Inputs {
			if in.Op == llm.InputTick {
				continue
			}
			n++
			tr := TurnTrace{Turn: n, Input: label + inputText(in), Analyzer: AnalyzerTrace{Source: analyzer.SourceRules,
				Reasoning: "no model call: the rules decided (a trace records model calls only)"}}
			for _, c := range run.Calls {
				if c.Turn == n {
					tr.add(c)
				}
			}
			r.turns = append(r.turns, tr)
		}
	}
	return r
}

func inputText(in llm.TraceInput) string {
	if in.Op == llm.InputTurn {
		return in.Text
	}
	return strings.TrimSpace("(" + in.Op + " " + in.Text + ")")
}

// add puts a recorded call in the turn: the analyzer's as its decision, any other as a call.
func (tr *TurnTrace) add(c llm.TraceRecord) {
	if c.Agent != "analyzer" {
		var mem []PromptMessage
		if text := c.SectionTexts["memory"]; text != "" {
			mem = []PromptMessage{{Role: "memory", Content: text, Rule: strings.Join(c.RecallRules, ", ")}}
		}
		tr.Calls = append(tr.Calls, callView(c, mem, 0, ""))
		return
	}
	var d struct {
		Action    string  `json:"action"`
		PatientID *string `json:"patient_id"`
		Reasoning string  `json:"reasoning"`
	}
	a := AnalyzerTrace{Source: analyzer.SourceLLM, Elapsed: time.Duration(c.ElapsedMS * float64(time.Millisecond))}
	if n := len(c.Messages); n > 0 {
		a.Input = c.Messages[n-1].Content
	}
	if err := json.Unmarshal([]byte(c.Reply.Content), &d); err != nil || c.Error != "" {
		a.Source, a.Reasoning = analyzer.SourceFallback, "the model's answer was not a decision: "+c.Error+c.Reply.Content
	} else {
		a.Action, a.Reasoning = d.Action, d.Reasoning
		if d.PatientID != nil {
			a.PatientID = *d.PatientID
		}
	}
	tr.Analyzer = a
}

// Trace returns a recorded turn, counted back from the last; ok is false past either end.
func (r *Recorded) Trace(back int) (TurnTrace, bool) {
	i := len(r.turns) - 1 - back
	if back < 0 || i < 0 {
		return TurnTrace{}, false
	}
	return r.turns[i], true
}

// Len is how many turns the trace holds.
func (r *Recorded) Len() int { return len(r.turns) }
