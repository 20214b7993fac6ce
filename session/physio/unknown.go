package physio

import (
	"fmt"
	"slices"
	"strings"

	sc "github.com/ward-sim/ward/session/scenario"
)

// RuleUnknownDrug is the order's rule when the drug is not in the formulary.
const RuleUnknownDrug = "unknown_drug"

// unknownDrug answers an order for a drug ward does not know: nothing is given, and the
// Pharmacist names the formulary's closest names, so a misspelling is one step from right.
func (e *Engine) unknownDrug(a Action) OrderRecord {
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

// notDrugNames are words that stand where a drug's name would and are not one: "give her 5 mg".
var notDrugNames = []string{"some", "more", "another", "dose", "doses", "stat", "this", "that", "them", "each",
	"again", "total", "over", "every", "about", "patient", "please", "now", "with", "only", "just", "then", "bolus"}

// unknownDrug reads a word that stands as a drug's name where ward knows no drug: given, with a
// dose beside it ("give zorbazine 7 mg IV"). It is an order all the same, answered by the
// Pharmacist, never dropped.
func (c clause) unknownDrug(ctx context) []placed {
	if !ctx.give || c.has(catDrug) || c.has(catFluid) || c.has(catOxygen) {
		return nil
	}
	at := -1
	for i := 0; i+1 < len(c); i++ {
		if c[i].cat == catNum && c[i+1].cat == catUnit && massUnits[c[i+1].val] != (conversion{}) {
			at = i
			break
		}
	}
	if at < 0 {
		return nil
	}
	for _, i := range []int{at - 1, at + 2, at + 3} {
		if i == at+3 && (i-1 >= len(c) || c[i-1].word != "of") {
			continue
		}
		if i >= 0 && i < len(c) && c[i].cat == catWord && c[i].word != "of" && looksLikeDrugName(c[i].word) && !c.negated(i) {
			a := c.medication("", 0, len(c))
			a.Drug = c[i].word
			return []placed{{c[i].pos, a}}
		}
	}
	// "give 2 mg": a dose given with no drug is an order all the same, and the Pharmacist asks
	// which. A dose alone in a clause of its own belongs to a drug named in another.
	if !c.has(catGive) {
		return nil
	}
	return []placed{{c[at].pos, c.medication("", 0, len(c))}}
}

func looksLikeDrugName(w string) bool {
	if len(w) < 4 || slices.Contains(notDrugNames, w) {
		return false
	}
	for _, r := range w {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}
