package memory

import (
	"fmt"
	"slices"
	"strings"
)

// Prompt is what Fit may shrink. Static, Dynamic and User are token estimates of the parts that
// never shrink; the window and the memory selection are given whole.
type Prompt struct {
	Static, Dynamic, User int
	Window                []Message
	Memory                Selection
}

// Fitted is the prompt after Fit. Shrunk says what was cut, in order, for the trace; it is empty
// when everything fit. Over is set when even the smallest prompt Fit can build is above the budget.
type Fitted struct {
	Window   []Message
	Memory   Selection
	Sections Sections
	Shrunk   []string
	Over     bool
}

// shrinkStage is one step of Fit: either cut the window down to keep messages, or drop the memory
// items chosen by the given rules.
type shrinkStage struct {
	windowKeep int
	rules      []Rule
}

// shrinkOrder cuts what is cheapest to lose first: recalled-because-early items repeat the
// window, the oldest window messages are already in memory, the current state and vitals are
// also in the dynamic context. What the trainee asked about this turn goes last. Protected safety
// disclosures are never cut.
var shrinkOrder = []shrinkStage{
	{rules: []Rule{RuleEarly}},
	{windowKeep: 4},
	{rules: []Rule{RuleCore, RuleSafety}},
	{rules: []Rule{RuleVitalsTrend, RuleQuestion}},
	{windowKeep: 0},
}

// Fit keeps the prompt under numCtx minus reserve (the room left for the reply), because Ollama
// silently drops the oldest tokens of a prompt that overflows, and the oldest are the system text.
func (e *Estimator) Fit(p Prompt, numCtx, reserve int) Fitted {
	budget := numCtx - reserve
	f := Fitted{Window: p.Window, Memory: p.Memory}
	f.Sections = e.sections(p, f)
	for _, stage := range shrinkOrder {
		if f.Sections.Total() <= budget {
			break
		}
		if stage.rules == nil {
			e.shrinkWindow(p, &f, budget, stage.windowKeep)
		} else {
			e.shrinkMemory(p, &f, budget, stage.rules)
		}
	}
	if over := f.Sections.Total() - budget; over > 0 {
		f.Over = true
		f.Shrunk = append(f.Shrunk, fmt.Sprintf("still %d tokens over %d with only protected content left", over, budget))
	}
	return f
}

func (e *Estimator) sections(p Prompt, f Fitted) Sections {
	return Sections{
		Static: p.Static, Dynamic: p.Dynamic, User: p.User,
		Window: e.Messages(f.Window),
		Memory: e.Tokens(f.Memory.Render()),
	}
}

// shrinkWindow drops the oldest messages, a tool call together with its results.
func (e *Estimator) shrinkWindow(p Prompt, f *Fitted, budget, keep int) {
	before := len(f.Window)
	for f.Sections.Total() > budget && len(f.Window) > keep {
		f.Window = f.Window[skipToolResults(f.Window, 1):]
		f.Sections = e.sections(p, *f)
	}
	if len(f.Window) < before {
		f.Shrunk = append(f.Shrunk, fmt.Sprintf("window %d→%d messages", before, len(f.Window)))
	}
}

// shrinkMemory drops unprotected items chosen by rules, oldest first.
func (e *Estimator) shrinkMemory(p Prompt, f *Fitted, budget int, rules []Rule) {
	dropped := map[Rule]int{}
	for f.Sections.Total() > budget {
		i := oldestDroppable(f.Memory.Items, rules)
		if i < 0 {
			break
		}
		dropped[f.Memory.Items[i].Rule]++
		f.Memory.Items = append(f.Memory.Items[:i:i], f.Memory.Items[i+1:]...)
		f.Sections = e.sections(p, *f)
	}
	var parts []string
	for _, r := range rules {
		if dropped[r] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", dropped[r], r))
		}
	}
	if len(parts) > 0 {
		f.Shrunk = append(f.Shrunk, "memory dropped "+strings.Join(parts, ", ")+" items")
	}
}

func oldestDroppable(items []Selected, rules []Rule) int {
	best := -1
	for i, x := range items {
		if x.Protected() || !slices.Contains(rules, x.Rule) {
			continue
		}
		if best < 0 || x.Item.T < items[best].Item.T {
			best = i
		}
	}
	return best
}
