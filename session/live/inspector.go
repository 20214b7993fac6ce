package live

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ward-sim/ward/agents/analyzer"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/session"
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
			for _, p := range run.Prunings {
				if p.Turn == n {
					tr.Pruned = append(tr.Pruned, prunedLine(p.PatientID, p.Rule, p.Pruned, p.TokensSaved))
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

// turnTrace maps the session's record of a turn onto the inspector's view, folding each prompt's
// messages into its sections.
func turnTrace(rec session.TurnRecord) TurnTrace {
	tr := TurnTrace{Turn: rec.Number, Input: rec.Input, Engine: rec.Engine}
	if d := rec.Decision; d != nil {
		tr.Analyzer = AnalyzerTrace{Input: d.Input, Action: d.AnalyzerAction, PatientID: d.PatientID, Source: d.Source,
			Reasoning: d.Reasoning + " → " + d.Decision, Elapsed: time.Duration(d.Timing.AnalyzerMS * float64(time.Millisecond))}
	}
	for _, c := range rec.Calls {
		tr.Calls = append(tr.Calls, llmCall(c))
	}
	if st := rec.Counters; st != nil {
		tr.Counters = fmt.Sprintf("%d merges · %d parse errors · %d format fallbacks · %d evictions · %d refused · %d cap / %d loop stops · %d citations removed · merge p95 %s",
			st.Merges, st.ParseErrors, st.FormatFallbacks, st.Evictions, st.Refused, st.CapStops, st.LoopStops, st.CitationsRemoved, st.MergeLatency.P95())
	}
	for _, m := range rec.Rates {
		tr.Rates = append(tr.Rates, m.Line())
	}
	for _, p := range rec.Pruned {
		tr.Pruned = append(tr.Pruned, prunedLine(p.PatientID, p.Rule, p.Pruned, p.TokensSaved))
	}
	return tr
}

// prunedLine is one pruning as the inspector shows it: the rule, what it took out and what that
// saved, e.g. "vitals_repeat on patient_1 · 2 out · ~28 tokens saved: T+01:00 HR 128 …; …".
func prunedLine(patient, rule string, pruned []string, saved int) string {
	return fmt.Sprintf("%s on %s · %d out · ~%d tokens saved: %s", rule, patient, len(pruned), saved, strings.Join(pruned, "; "))
}

func llmCall(c session.CallRecord) LLMCall {
	var mem []PromptMessage
	for _, it := range c.Recall.Items {
		mem = append(mem, PromptMessage{Role: string(it.Category), Content: c.Recall.Line(it), Rule: string(it.Rule)})
	}
	call := callView(c.Trace, mem, len(c.Recall.Shown), c.Held)
	for _, p := range c.Retrieved { // how each passage ranked is known only live, not from a trace
		call.Notes = append(call.Notes, fmt.Sprintf("knowledge [%d] %s › %s — %s, score %.4f", p.N, p.Title, p.Section, p.Why, p.Score))
	}
	return call
}

// callView is a call as the inspector shows it: its prompt folded by section, with memory as
// mem; shown is how many recalled items the window made redundant, held how ward changed the
// reply ("" when it stood).
func callView(t llm.TraceRecord, mem []PromptMessage, shown int, held string) LLMCall {
	m := t.Metrics
	call := LLMCall{Agent: t.Agent, Model: t.Model, NumPredict: t.Options.NumPredict, Reply: t.Reply.Content, Notes: callNotes(t, shown, held),
		Metrics: CallMetrics{PromptEvalCount: m.PromptEvalCount, PromptEvalDuration: m.PromptEvalDuration,
			EvalCount: m.EvalCount, EvalDuration: m.EvalDuration, LoadDuration: m.LoadDuration, TotalDuration: m.TotalDuration,
			CacheHit: cacheHit(m.PromptEvalCount, m.PromptEvalDuration)}}
	msgs := t.Messages
	if len(msgs) < 2 {
		return call
	}
	section := func(name string, ms []PromptMessage) {
		call.Sections = append(call.Sections, PromptSection{Name: name, Tokens: t.Sections[name], Messages: ms})
	}
	section("static", []PromptMessage{{Role: msgs[0].Role, Content: msgs[0].Content}})
	window := msgs[1:min(1+t.WindowLen, len(msgs))]
	var wm []PromptMessage
	for _, m := range window {
		wm = append(wm, PromptMessage{Role: m.Role, Content: m.Content})
	}
	section("window", wm)
	if dyn := msgs[1+len(window) : len(msgs)-1]; len(dyn) > 0 {
		section("dynamic", []PromptMessage{{Role: dyn[0].Role, Content: dyn[0].Content}})
	}
	section("memory", mem)
	last := msgs[len(msgs)-1]
	section("user", []PromptMessage{{Role: last.Role, Content: last.Content}})
	return call
}

func callNotes(t llm.TraceRecord, shown int, held string) []string {
	var notes []string
	if t.Retry != "" {
		notes = append(notes, "retry: "+t.Retry)
	}
	if len(t.Shrunk) > 0 {
		notes = append(notes, "cut to fit num_ctx: "+strings.Join(t.Shrunk, ", "))
	}
	if shown > 0 {
		notes = append(notes, fmt.Sprintf("memory: %d recalled items not repeated, the window shows them", shown))
	}
	if m := t.Merge; m != nil {
		notes = append(notes, fmt.Sprintf("entities: added %v · updated %v · evicted %v", m.Added, m.Updated, m.Evicted))
	}
	if t.Error != "" {
		notes = append(notes, "error: "+t.Error)
	}
	if held != "" {
		notes = append(notes, "held to the record: "+held)
	}
	return notes
}

// cacheHit judges a KV-cache hit: a prompt evaluated at under 0.2 ms per token was mostly served
// from the cache (a cold prompt costs milliseconds per token on a CPU).
func cacheHit(tokens int, d time.Duration) bool {
	return tokens > 0 && d/time.Duration(tokens) < 200*time.Microsecond
}
