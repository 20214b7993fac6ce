package session

import (
	"context"
	"fmt"
	"strings"

	"github.com/ward-sim/ward/memory"
)

// TurnRecord is one finished turn as the inspector shows it: the analyzer's decision and every
// LLM call with its prompt, sections, recall rules and metrics.
type TurnRecord struct {
	Number   int
	Input    string
	Decision *DecisionEvent // nil for commands that made no decision
	Calls    []CallRecord
	Counters *memory.EntityStats // the active patient's entity and team counters after the turn
	// Engine is the engine's truth about the active patient after the turn: the scenario, its
	// title, the state and the true GCS, masked in a trainee's view (views.go).
	Engine string
}

// maxTurnRecords bounds what the inspector keeps in memory; --trace keeps everything on disk.
const maxTurnRecords = 200

func (s *Session) keepTurnRecord(t *turn) {
	rec := TurnRecord{Input: t.input, Decision: t.decisionEvent, Calls: t.calls, Number: 1}
	if e := s.sim.ward.Engine(s.active); e != nil {
		rec.Engine = fmt.Sprintf("%s (%s) · state %s · true GCS %d", e.Scenario().ID, e.Scenario().Title, e.State(), e.TrueVitals().GCS)
	}
	if ents := s.sim.ents[s.active]; ents != nil {
		stats := ents.Stats
		rec.Counters = &stats
	}
	if n := len(s.turns); n > 0 {
		rec.Number = s.turns[n-1].Number + 1
	}
	s.turns = append(s.turns, rec)
	if extra := len(s.turns) - maxTurnRecords; extra > 0 {
		s.turns = append(s.turns[:0:0], s.turns[extra:]...)
	}
}

// Turns returns a copy of the inspector's records, oldest first.
// In a trainee's view the engine's secrets are masked (views.go).
func (s *Session) Turns() []TurnRecord {
	out := make([]TurnRecord, len(s.turns))
	for i, rec := range s.turns {
		out[i] = s.forTrainee(rec)
	}
	return out
}

// cmdInspect summarises the previous turn in text, for `ward run` and the chat. The TUI's
// inspector (ctrl+o) shows the same records in full.
func (s *Session) cmdInspect(_ context.Context, t *turn, _ string) {
	if len(s.turns) == 0 {
		s.say(t, "Nothing to inspect yet: no turn has finished.")
		return
	}
	s.say(t, describeTurn(s.forTrainee(s.turns[len(s.turns)-1])))
}

func describeTurn(rec TurnRecord) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Turn %d: %q\n", rec.Number, rec.Input)
	if d := rec.Decision; d != nil {
		fmt.Fprintf(&b, "analyzer: %s → %s (%s, %.3f ms) %s\n", d.AnalyzerAction, d.Decision, d.Source, d.Timing.AnalyzerMS, d.Reasoning)
	}
	for _, c := range rec.Calls {
		tr := c.Trace
		fmt.Fprintf(&b, "call %s on %s: num_predict %d, window %d messages, sections %v, recall %v",
			tr.Agent, tr.Backend, tr.Options.NumPredict, tr.WindowLen, tr.Sections, tr.RecallRules)
		if m := tr.Metrics; m.PromptEvalCount > 0 {
			fmt.Fprintf(&b, ", prompt_eval %d tokens in %s", m.PromptEvalCount, m.PromptEvalDuration)
		}
		if tr.Retry != "" {
			fmt.Fprintf(&b, ", retry: %s", tr.Retry)
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}
