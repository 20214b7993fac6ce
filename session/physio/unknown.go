package physio

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ward-sim/ward/session/action"
	sc "github.com/ward-sim/ward/session/scenario"
)

// RuleUnknownDrug is the order's rule when the drug is not in the formulary.
const RuleUnknownDrug = "unknown_drug"

// unknownDrug answers an order for a drug ward does not know: nothing is given, and the
// Pharmacist names the formulary's closest names, so a misspelling is one step from right.
func (e *Engine) unknownDrug(a action.Action) OrderRecord {
	say := fmt.Sprintf("%s is not in the formulary; nothing given.", a.Drug)
	if near := closestDrugs(a.Drug, 3); len(near) > 0 {
		say += " Did you mean " + strings.Join(near, ", ") + "?"
	}
	return OrderRecord{T: float64(e.s.T), Drug: a.Drug, Route: a.Route, Dose: a.WrittenDose(), Verdict: sc.DoseAsk,
		Rule: RuleUnknownDrug, Say: say}
}

// closestDrugs are up to n formulary names nearest name by edit distance, nearest first, among
// those close enough to be a slip of the keyboard or a half-remembered name.
func closestDrugs(name string, n int) []string {
	name = strings.ToLower(name)
	type near struct {
		label string
		d     int
	}
	var all []near
	for _, d := range sc.Drugs() {
		limit := max(2, len([]rune(name))/2)
		best := limit + 1
		for _, alias := range append([]string{d.Name}, d.Aliases...) {
			best = min(best, sc.EditDistance(name, strings.ToLower(alias), limit))
		}
		if best <= limit {
			all = append(all, near{sc.DrugLabel(d.Name), best})
		}
	}
	slices.SortStableFunc(all, func(a, b near) int { return a.d - b.d })
	var out []string
	for _, x := range all {
		if len(out) < n && !slices.Contains(out, x.label) {
			out = append(out, x.label)
		}
	}
	return out
}
