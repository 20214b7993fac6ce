package eval

import (
	"context"
	"strings"

	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
)

// Script is a shift the patient and debrief evals play: one patient admitted on a scenario, then
// the lines the trainee types.
type Script struct {
	Name     string   `yaml:"name"`
	Scenario string   `yaml:"scenario"`
	Lines    []string `yaml:"lines"`
}

// Played is what a script did, as the engine and the trace recorded it.
type Played struct {
	Turns []PlayedTurn
	// CriticalErrors are on the engine's record when the script ends.
	CriticalErrors []CriticalError
}

// PlayedTurn is one line of a script: the calls it made, and the patient's consciousness while
// they were made, from the engine (its true values, which no prompt of the Patient carries).
type PlayedTurn struct {
	Line  string
	Calls []llm.TraceRecord
	GCS   int
	AVPU  string // A, C, V, P or U
	// Pulse is whether the heart had output after the line; Done the actions the engine took
	// for it, by kind, and the drugs given ("shock", "epinephrine").
	Pulse bool
	Done  []string
}

// CriticalError is one critical error on the engine's record.
type CriticalError struct {
	ID          string
	Description string
}

// Player plays a script on a fresh shift, with the backend under evaluation.
type Player func(ctx context.Context, s Script) (Played, error)

// replies are what the agent said in a turn's calls, as the trainee read it: each call's reply,
// taken out of the output format.
func replies(calls []llm.TraceRecord, agent string) []string {
	var out []string
	for _, c := range calls {
		if c.Agent == agent && c.Error == "" && len(c.Reply.ToolCalls) == 0 {
			out = append(out, strings.TrimSpace(memory.ParseAgentOutput(c.Reply.Content).Reply))
		}
	}
	return out
}
