package replay

import "github.com/ward-sim/ward/agents/llm"

// Whole is runs without the last turn of the last run: what a trace cut short (llm.CutError)
// can replay. The cut fell in or after that turn, so its calls may be missing; every turn
// before it was written whole. It returns the runs and the number of the last turn kept.
func Whole(runs []llm.TraceRun) ([]llm.TraceRun, int) {
	if len(runs) == 0 {
		return runs, 0
	}
	last := runs[len(runs)-1]
	turn, cut := 0, len(last.Inputs)
	for i, in := range last.Inputs {
		if in.Op != llm.InputTick {
			turn, cut = turn+1, i
		}
	}
	if turn == 0 {
		return runs, 0
	}
	trimmed := last
	trimmed.Inputs = last.Inputs[:cut]
	trimmed.Calls = keepBefore(last.Calls, turn, func(c llm.TraceRecord) int { return c.Turn })
	trimmed.Retrievals = keepBefore(last.Retrievals, turn, func(r llm.TraceRetrieval) int { return r.Turn })
	return append(runs[:len(runs)-1:len(runs)-1], trimmed), turn - 1
}

func keepBefore[T any](records []T, turn int, turnOf func(T) int) []T {
	var kept []T
	for _, r := range records {
		if turnOf(r) < turn {
			kept = append(kept, r)
		}
	}
	return kept
}
