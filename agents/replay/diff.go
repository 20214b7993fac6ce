package replay

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/ward-sim/ward/agents/llm"
)

// DiffReport compares the calls of two traces, aligned by run, turn and agent: the k-th call of
// an agent in a turn of one trace against the k-th call of that agent in the same turn of the
// other.
type DiffReport struct {
	A, B    string // the traces' names
	Aligned int    // calls found in both
	Changed []CallDiff
	OnlyA   int // calls only in A
	OnlyB   int
	Masked  bool // each run's session ID and wall-clock times were masked before comparing
}

// CallDiff is one aligned call whose sections differ, or a call only one trace made (Seq 0 on
// the side that lacks it).
type CallDiff struct {
	Run, Turn  int
	Input      string
	Agent      string
	SeqA, SeqB int
	Sections   []SectionDiff
}

// Diff compares the calls of traces a and b, named nameA and nameB. Unless exact, what differs
// between any two runs (the session ID, the wall-clock time a prompt was built) is masked first,
// so the report shows what a change to ward or its inputs did.
func Diff(a, b []llm.TraceRun, nameA, nameB string, exact bool) DiffReport {
	r := DiffReport{A: nameA, B: nameB, Masked: !exact}
	for i := range max(len(a), len(b)) {
		var ra, rb llm.TraceRun
		if i < len(a) {
			ra = a[i]
		}
		if i < len(b) {
			rb = b[i]
		}
		if !exact {
			ra, rb = masked(ra), masked(rb)
		}
		r.diffRun(i+1, ra, rb)
	}
	return r
}

// wallClock is a time as prompts write it: "2026-11-25T04:01:22.866Z".
var wallClock = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})`)

// masked is run with its session ID and every wall-clock time in its calls' prompts replaced by
// placeholders.
func masked(run llm.TraceRun) llm.TraceRun {
	mask := func(text string) string {
		if id := run.Header.SessionID; id != "" {
			text = strings.ReplaceAll(text, id, "<session>")
		}
		return wallClock.ReplaceAllString(text, "<time>")
	}
	calls := make([]llm.TraceRecord, len(run.Calls))
	for i, c := range run.Calls {
		c.Messages = slices.Clone(c.Messages)
		for j := range c.Messages {
			c.Messages[j].Content = mask(c.Messages[j].Content)
		}
		texts := make(map[string]string, len(c.SectionTexts))
		for name, text := range c.SectionTexts {
			texts[name] = mask(text)
		}
		if c.SectionTexts != nil {
			c.SectionTexts = texts
		}
		calls[i] = c
	}
	run.Calls = calls
	return run
}

// callKey places a call in its run: its turn, its agent, and how many calls of that agent the
// turn made before it.
type callKey struct {
	turn  int
	agent string
	nth   int
}

func keyed(calls []llm.TraceRecord) ([]callKey, map[callKey]*llm.TraceRecord) {
	keys := make([]callKey, len(calls))
	byKey := map[callKey]*llm.TraceRecord{}
	seen := map[callKey]int{}
	for i := range calls {
		k := callKey{turn: calls[i].Turn, agent: calls[i].Agent}
		k.nth = seen[k]
		seen[callKey{turn: k.turn, agent: k.agent}]++
		keys[i], byKey[k] = k, &calls[i]
	}
	return keys, byKey
}

func (r *DiffReport) diffRun(run int, a, b llm.TraceRun) {
	keysA, inA := keyed(a.Calls)
	keysB, inB := keyed(b.Calls)
	for _, k := range mergeKeys(keysA, keysB) {
		x, y := inA[k], inB[k]
		c := CallDiff{Run: run, Turn: k.turn, Agent: k.agent, Input: turnInput(a, b, k.turn)}
		switch {
		case x == nil:
			r.OnlyB++
		case y == nil:
			r.OnlyA++
		default:
			r.Aligned++
		}
		if x != nil {
			c.SeqA = x.Seq
		}
		if y != nil {
			c.SeqB = y.Seq
		}
		if c.Sections = CompareCalls(x, y, r.A, r.B); len(c.Sections) > 0 {
			r.Changed = append(r.Changed, c)
		}
	}
}

// mergeKeys orders the calls of both traces by turn, each turn's calls in a's order, then the
// calls only b made.
func mergeKeys(a, b []callKey) []callKey {
	var out []callKey
	seen := map[callKey]bool{}
	for len(a) > 0 || len(b) > 0 {
		turn := nextTurn(a, b)
		for ; len(a) > 0 && a[0].turn == turn; a = a[1:] {
			out, seen[a[0]] = append(out, a[0]), true
		}
		for ; len(b) > 0 && b[0].turn == turn; b = b[1:] {
			if !seen[b[0]] {
				out = append(out, b[0])
			}
		}
	}
	return out
}

func nextTurn(a, b []callKey) int {
	switch {
	case len(a) == 0:
		return b[0].turn
	case len(b) == 0:
		return a[0].turn
	}
	return min(a[0].turn, b[0].turn)
}

// turnInput is what the trainee did at the turn, or both inputs when the traces disagree.
func turnInput(a, b llm.TraceRun, turn int) string {
	x, y := InputOf(a, turn), InputOf(b, turn)
	if x == y || y == "" {
		return x
	}
	if x == "" {
		return y
	}
	return x + " | " + y
}

// Summary is the report's first line, and what was masked.
func (r DiffReport) Summary() string {
	line := fmt.Sprintf("%s and %s send the same requests: %d calls aligned by turn and agent", r.A, r.B, r.Aligned)
	if len(r.Changed) > 0 {
		line = fmt.Sprintf("%s → %s: %d calls aligned by turn and agent, %d of them changed; %d only in %s, %d only in %s",
			r.A, r.B, r.Aligned, len(r.Changed)-r.OnlyA-r.OnlyB, r.OnlyA, r.A, r.OnlyB, r.B)
	}
	if r.Masked {
		line += "\n(session IDs and wall-clock times masked; --exact compares them too)"
	}
	return line
}

// String is the report for a terminal: the summary, a table of every section that differs, then
// each call's diffs.
func (r DiffReport) String() string {
	var b strings.Builder
	b.WriteString(r.Summary() + "\n")
	if len(r.Changed) == 0 {
		return b.String()
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "run\tturn\tcall\tagent\tsection\tbytes\ttokens")
	for _, c := range r.Changed {
		for _, s := range c.Sections {
			fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%s\t%s\n", c.Run, c.Turn, c.calls(), c.Agent, s.Name, delta(s.BytesA, s.BytesB), tokens(s))
		}
	}
	tw.Flush()
	for _, c := range r.Changed {
		fmt.Fprintf(&b, "\n== %s\n", c.title())
		for _, s := range c.Sections {
			b.WriteString(s.Diff)
		}
	}
	return b.String()
}

// Markdown is the report for a review: the summary, the table, and each call's diffs in fenced
// diff blocks.
func (r DiffReport) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# ward diff\n\n%s\n", r.Summary())
	if len(r.Changed) == 0 {
		return b.String()
	}
	b.WriteString("\n| run | turn | call | agent | section | bytes | tokens |\n|---|---|---|---|---|---|---|\n")
	for _, c := range r.Changed {
		for _, s := range c.Sections {
			fmt.Fprintf(&b, "| %d | %d | %s | %s | %s | %s | %s |\n", c.Run, c.Turn, c.calls(), c.Agent, s.Name, delta(s.BytesA, s.BytesB), tokens(s))
		}
	}
	for _, c := range r.Changed {
		fmt.Fprintf(&b, "\n## %s\n", c.title())
		for _, s := range c.Sections {
			fmt.Fprintf(&b, "\n```diff\n%s```\n", s.Diff)
		}
	}
	return b.String()
}

// calls numbers the call on each side, "4 → 4"; "-" where a trace lacks it.
func (c CallDiff) calls() string {
	n := func(seq int) string {
		if seq == 0 {
			return "-"
		}
		return fmt.Sprint(seq)
	}
	return n(c.SeqA) + " → " + n(c.SeqB)
}

func (c CallDiff) title() string {
	return fmt.Sprintf("run %d, turn %d %q, %s, call %s", c.Run, c.Turn, c.Input, c.Agent, c.calls())
}

func delta(a, b int) string { return fmt.Sprintf("%d → %d (%+d)", a, b, b-a) }

func tokens(s SectionDiff) string {
	if s.TokensA == 0 && s.TokensB == 0 {
		return "-"
	}
	return delta(s.TokensA, s.TokensB)
}
