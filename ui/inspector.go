package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ward-sim/ward/session/live"
	"github.com/ward-sim/ward/themes"
)

// inspectorAction is what the model must do after an inspector key,
// since loading turns and writing files are IO and belong in tea.Cmds.
type inspectorAction int

const (
	inspectNothing inspectorAction = iota
	inspectClose
	inspectOlder
	inspectNewer
	inspectCopy
	inspectSave
)

// inspector shows what one turn did: the analyzer's decision and every LLM
// call, its prompt folded by section.
type inspector struct {
	theme  *themes.Theme
	keys   keyMap
	width  int
	height int
	back   int // 0 is the latest turn
	trace  live.TurnTrace
	found  bool
	loaded bool
	open   map[foldKey]bool
	cursor int // index into folds
	offset int // first visible line
	lines  []string
	folds  []fold
}

type foldKey struct{ call, section int }

// fold is a section header line that enter opens or closes.
type fold struct {
	key  foldKey
	line int
}

// SetSize is called on every snapshot, once a second, whether the inspector is open or not, so
// it rebuilds only when the size changed.
func (in *inspector) SetSize(width, height int) {
	if width == in.width && height == in.height {
		return
	}
	in.width, in.height = width, height
	in.build()
}

// Loading starts showing turn back while it is fetched.
func (in *inspector) Loading(back int) {
	in.back, in.loaded = back, false
	in.build()
}

func (in *inspector) SetTrace(back int, trace live.TurnTrace, found bool) {
	in.back, in.trace, in.found, in.loaded = back, trace, found, true
	in.open, in.cursor, in.offset = map[foldKey]bool{}, 0, 0
	in.build()
}

// Selected is the LLM call under the cursor (the first call when the
// cursor is on none) and its 1-based number, for copy and save.
func (in *inspector) Selected() (live.LLMCall, int, bool) {
	if !in.found || len(in.trace.Calls) == 0 {
		return live.LLMCall{}, 0, false
	}
	i := 0
	if in.cursor < len(in.folds) {
		i = in.folds[in.cursor].key.call
	}
	return in.trace.Calls[i], i + 1, true
}

// export copies (inspectCopy) or saves (inspectSave) the selected call's prompt.
func (in *inspector) export(action inspectorAction, opts Options) tea.Cmd {
	call, n, ok := in.Selected()
	switch {
	case !ok:
		return nil
	case action == inspectCopy:
		return copyCmd(opts.Clipboard, "prompt", promptText(call))
	}
	return saveCmd(opts.SaveDir, in.trace.Turn, n, promptText(call))
}

func (in *inspector) Update(msg tea.KeyMsg) inspectorAction {
	k := in.keys
	switch {
	case key.Matches(msg, k.Close), key.Matches(msg, k.Inspector):
		return inspectClose
	case key.Matches(msg, k.OlderTurn):
		return inspectOlder
	case key.Matches(msg, k.NewerTurn):
		return inspectNewer
	case key.Matches(msg, k.Copy):
		return inspectCopy
	case key.Matches(msg, k.Save):
		return inspectSave
	case key.Matches(msg, k.Fold):
		if in.cursor < len(in.folds) {
			fk := in.folds[in.cursor].key
			in.open[fk] = !in.open[fk]
			in.build()
		}
	case key.Matches(msg, k.Up):
		in.moveCursor(-1)
	case key.Matches(msg, k.Down):
		in.moveCursor(1)
	case key.Matches(msg, k.PageUp):
		in.Scroll(1 - in.bodyHeight())
	case key.Matches(msg, k.PageDown):
		in.Scroll(in.bodyHeight() - 1)
	}
	return inspectNothing
}

// Scroll moves the view delta lines, keeping it within the trace.
func (in *inspector) Scroll(delta int) {
	in.offset = min(max(in.offset+delta, 0), max(len(in.lines)-in.bodyHeight(), 0))
}

func (in *inspector) moveCursor(delta int) {
	if len(in.folds) == 0 {
		return
	}
	in.cursor = min(max(in.cursor+delta, 0), len(in.folds)-1)
	line := in.folds[in.cursor].line
	if line < in.offset {
		in.offset = line
	}
	if line >= in.offset+in.bodyHeight() {
		in.offset = line - in.bodyHeight() + 1
	}
	in.build()
}

func (in *inspector) bodyHeight() int { return max(in.height-4, 1) } // border and footer

// build lays the trace out as lines and remembers where the folds are.
func (in *inspector) build() {
	in.lines, in.folds = nil, nil
	if in.width == 0 {
		return
	}
	t := in.theme
	turn := "latest turn"
	if in.back > 0 {
		turn = fmt.Sprintf("%d turns back", in.back)
	}
	switch {
	case !in.loaded:
		in.add(t.Muted.Render("loading " + turn + "…"))
		return
	case !in.found:
		in.add(t.Muted.Render("no trace for the " + turn + " — nothing has been sent yet, or it is older than the session"))
		return
	}
	tr := in.trace
	in.add(t.Title.Render(fmt.Sprintf("Turn %d", tr.Turn)) + "  " + t.Text.Render(in.cut(fmt.Sprintf("%q", themes.Printable(tr.Input)), 14)))
	in.add("")
	in.analyzer(tr.Analyzer)
	in.field("counters", tr.Counters)
	for _, line := range tr.Rates {
		in.field("rates", line)
	}
	for _, line := range tr.Pruned {
		in.field("pruned", line)
	}
	in.field("engine", tr.Engine)
	for i, call := range tr.Calls {
		in.add("")
		in.call(i, call)
	}
}

func (in *inspector) analyzer(a live.AnalyzerTrace) {
	t := in.theme
	decision := themes.Printable(a.Action)
	if a.PatientID != "" {
		decision += " → " + themes.Printable(a.PatientID)
	}
	in.add(t.Title.Render("ANALYZER") + "  " + t.Text.Render(decision) +
		t.Muted.Render(fmt.Sprintf(" · source %s · %s", themes.Printable(a.Source), round(a.Elapsed))))
	in.field("input", a.Input)
	in.field("reasoning", a.Reasoning)
}

func (in *inspector) call(i int, c live.LLMCall) {
	t := in.theme
	in.add(t.Title.Render(fmt.Sprintf("CALL %d", i+1)) + "  " +
		t.Text.Render(fmt.Sprintf("%s · %s · num_predict %d", themes.Printable(c.Agent), themes.Printable(c.Model), c.NumPredict)))
	in.add("  " + t.Muted.Render(in.cut(metricsLine(c.Metrics), 2)))
	for s, sec := range c.Sections {
		fk := foldKey{i, s}
		in.foldHeader(fk, sec)
		if in.open[fk] {
			for _, m := range sec.Messages {
				in.message(m)
			}
		}
	}
	in.field("reply", c.Reply)
	for _, n := range c.Notes {
		in.field("note", n)
	}
}

func (in *inspector) foldHeader(fk foldKey, sec live.PromptSection) {
	t := in.theme
	arrow := "▸"
	if in.open[fk] {
		arrow = "▾"
	}
	label := fmt.Sprintf("%s %-8s %6d tok · %d message%s", arrow, themes.Printable(sec.Name), sec.Tokens,
		len(sec.Messages), plural(len(sec.Messages)))
	in.folds = append(in.folds, fold{key: fk, line: len(in.lines)})
	if len(in.folds)-1 == in.cursor {
		in.add("  " + t.Selected.Render(in.cut(label, 2)))
		return
	}
	in.add("  " + t.Accent.Render(in.cut(label, 2)))
}

func (in *inspector) message(m live.PromptMessage) {
	t := in.theme
	head := themes.Printable(m.Role) + ":"
	if m.Rule != "" {
		head = "[" + themes.Printable(m.Rule) + "] " + head
	}
	in.add("      " + t.Muted.Render(head))
	for _, l := range strings.Split(wrap(themes.Printable(m.Content), in.width-12), "\n") {
		in.add("        " + t.Text.Render(l))
	}
}

func (in *inspector) field(name, value string) {
	if value == "" {
		return
	}
	t := in.theme
	lines := strings.Split(wrap(themes.Printable(value), in.width-18), "\n")
	for i, l := range lines {
		label := ""
		if i == 0 {
			label = name
		}
		in.add("  " + t.Muted.Render(fmt.Sprintf("%-11s", label)) + " " + t.Text.Render(l))
	}
}

func (in *inspector) add(line string) { in.lines = append(in.lines, line) }

// cut truncates to the inner width less an indent.
func (in *inspector) cut(s string, indent int) string { return truncate(s, in.width-4-indent) }

func (in *inspector) View() string {
	t := in.theme
	inner := in.width - 4
	body := in.lines[min(in.offset, len(in.lines)):]
	footer := t.Muted.Render(truncate("↑/↓ section · enter fold · c copy prompt · s save · [ ] turn · esc close", inner))
	box := fitLines(body, inner, in.bodyHeight()) + "\n" + footer
	return t.Dialog.Width(in.width - 2).Render(box)
}

func metricsLine(m live.CallMetrics) string {
	cache := "cache miss"
	if m.CacheHit {
		cache = "cache hit"
	}
	rate := ""
	if m.EvalDuration > 0 {
		rate = fmt.Sprintf(" (%.0f tok/s)", float64(m.EvalCount)/m.EvalDuration.Seconds())
	}
	return fmt.Sprintf("prompt %d tok, eval %s · %s · output %d tok in %s%s · load %s · total %s",
		m.PromptEvalCount, round(m.PromptEvalDuration), cache, m.EvalCount, round(m.EvalDuration), rate,
		round(m.LoadDuration), round(m.TotalDuration))
}

// promptText is a call's whole prompt as plain text, for copy and save.
func promptText(c live.LLMCall) string {
	var b strings.Builder
	for _, sec := range c.Sections {
		fmt.Fprintf(&b, "=== %s (%d tokens) ===\n", sec.Name, sec.Tokens)
		for _, m := range sec.Messages {
			if m.Rule != "" {
				fmt.Fprintf(&b, "--- %s [%s]\n", m.Role, m.Rule)
			} else {
				fmt.Fprintf(&b, "--- %s\n", m.Role)
			}
			b.WriteString(m.Content)
			b.WriteString("\n")
		}
	}
	return b.String()
}

func round(d time.Duration) string {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(100 * time.Microsecond).String()
	}
	return d.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
