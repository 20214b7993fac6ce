package replay

import (
	"fmt"
	"strings"

	"github.com/ward-sim/ward/agents/llm"
)

// Divergence is the first call of a replay that was not sent as recorded.
type Divergence struct {
	Run      int // 1-based, in the trace
	Call     int // 1-based, in the run
	Turn     int
	Input    string // what the trainee did at that turn
	Agent    string
	Reason   string
	Sections []SectionDiff // recorded against replayed, the sections that differ
}

// Diverge says where a replayed run first left its recording, or nil when every call it made
// was the recorded one and it made them all. replayed are the calls the replay made, as its
// trace recorded them; stopped is the index of the request the backend refused, -1 for none.
func Diverge(run int, recorded llm.TraceRun, replayed []llm.TraceRecord, stopped int) *Divergence {
	want := recorded.Calls
	i := stopped
	if i < 0 {
		if len(replayed) >= len(want) {
			return nil
		}
		i = len(replayed)
	}
	var a, b *llm.TraceRecord
	if i < len(want) {
		a = &want[i]
	}
	if i < len(replayed) {
		b = &replayed[i]
	}
	d := &Divergence{Run: run, Call: i + 1}
	switch {
	case a == nil:
		d.Turn, d.Agent, d.Reason = b.Turn, b.Agent, "ward made a call the recording does not have"
	case b == nil:
		d.Turn, d.Agent = a.Turn, a.Agent
		d.Reason = fmt.Sprintf("the replay ended after %d calls, and the recording goes on to %d", len(replayed), len(want))
	case a.Agent != b.Agent:
		d.Turn, d.Agent = a.Turn, a.Agent
		d.Reason = fmt.Sprintf("the recording called %s here, and the replay %s", a.Agent, b.Agent)
	default:
		d.Turn, d.Agent, d.Reason = a.Turn, a.Agent, "the request differs from the recorded one"
	}
	d.Input = InputOf(recorded, d.Turn)
	if b != nil {
		d.Sections = CompareCalls(a, b, "recorded", "replayed")
	}
	return d
}

// InputOf is what the trainee did at turn n of run (clock ticks are no turn), "" when the trace
// holds no such turn.
func InputOf(run llm.TraceRun, n int) string {
	for _, in := range run.Inputs {
		if in.Op == llm.InputTick {
			continue
		}
		if n--; n == 0 {
			if in.Op == llm.InputTurn {
				return in.Text
			}
			return strings.TrimSpace("(" + in.Op + " " + in.Text + ")")
		}
	}
	return ""
}

// String names where the replay left the recording and why, then diffs each section that
// differs.
func (d *Divergence) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "diverged at call %d of run %d: turn %d %q, agent %s", d.Call, d.Run, d.Turn, d.Input, d.Agent)
	if len(d.Sections) > 0 {
		fmt.Fprintf(&b, ", section %s", d.Sections[0].Name)
	}
	fmt.Fprintf(&b, "\n%s\n", d.Reason)
	for _, s := range d.Sections {
		fmt.Fprintf(&b, "\nsection %s: %s\n%s", s.Name, sizes(s), s.Diff)
	}
	return b.String()
}

// sizes is a section's change in bytes and estimated tokens, "412 → 498 bytes (+86), 103 → 124
// tokens (+21)"; tokens are left out where nothing estimated them.
func sizes(s SectionDiff) string {
	out := fmt.Sprintf("%d → %d bytes (%+d)", s.BytesA, s.BytesB, s.BytesB-s.BytesA)
	if s.TokensA != 0 || s.TokensB != 0 {
		out += fmt.Sprintf(", %d → %d tokens (%+d)", s.TokensA, s.TokensB, s.TokensB-s.TokensA)
	}
	return out
}
