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
	if a.Drug == "" {
		return OrderRecord{T: float64(e.s.T), Route: a.Route, Dose: a.WrittenDose(), Verdict: sc.DoseAsk, Rule: RuleUnknownDrug,
			Say: fmt.Sprintf("%s of which drug? The order names none; nothing given.", a.WrittenDose())}
	}
	say := fmt.Sprintf("%s is not in the formulary; nothing given.", a.Drug)
	if near := closestDrugs(a.Drug, 3, e.harms); len(near) > 0 {
		say += " Did you mean " + strings.Join(near, ", ") + "?"
	}
	return OrderRecord{T: float64(e.s.T), Drug: a.Drug, Route: a.Route, Dose: a.WrittenDose(), Verdict: sc.DoseAsk,
		Rule: RuleUnknownDrug, Say: say}
}

// harms reports whether drug has a hard stop or a caution for this patient, known or not: a
// drug the Pharmacist never offers in a guess at a name.
func (e *Engine) harms(drug string) bool { return len(e.CheckMedication(drug)) > 0 }

// closestDrugs are up to n formulary names nearest name by edit distance, nearest first, among
// those close enough to be a slip of the keyboard or a half-remembered name, and not excluded.
func closestDrugs(name string, n int, excluded func(drug string) bool) []string {
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
		if best <= limit && !excluded(d.Name) {
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
