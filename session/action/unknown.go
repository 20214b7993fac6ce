package action

import (
	"slices"
)

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
	return nil
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
