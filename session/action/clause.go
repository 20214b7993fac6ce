package action

import (
	"slices"
	"strings"
)

// What a clause contains: its opening word, categories and topics, amounts
// with their units, and routes.

// opener is the category of the first word after fillers.
func (c clause) opener() category {
	for _, lx := range c {
		if lx.cat != catFiller {
			return lx.cat
		}
	}
	return catWord
}

func (c clause) has(cat category) bool { return c.index(cat, 0) >= 0 }

func (c clause) index(cat category, from int) int {
	for i := from; i < len(c); i++ {
		if c[i].cat == cat {
			return i
		}
	}
	return -1
}

func (c clause) hasTopic(topic string) bool {
	for _, lx := range c {
		if lx.cat == catTopic && lx.val == topic {
			return true
		}
	}
	return false
}

func (c clause) hasWord(words ...string) bool {
	for _, lx := range c {
		if slices.Contains(words, lx.word) {
			return true
		}
	}
	return false
}

func (c clause) negated(i int) bool { return c[i].negated }

// amount finds the first number in c[from:to] followed by one of units and
// returns it converted to the units' base (mg, mL, L/min, percent).
func (c clause) amount(from, to int, units map[string]conversion) (float64, bool) {
	for i := from; i+1 < to; i++ {
		if conv, ok := units[c[i+1].val]; ok && c[i].cat == catNum && c[i+1].cat == catUnit {
			return c[i].num * conv.mul / conv.div, true
		}
	}
	return 0, false
}

// conversion multiplies then divides, so 400 mcg is exactly 0.4 mg.
type conversion struct{ mul, div float64 }

// Units by what they measure.
var (
	massUnits    = map[string]conversion{"mg": {1, 1}, "mcg": {1, 1000}, "g": {1000, 1}}
	volumeUnits  = map[string]conversion{"ml": {1, 1}, "l": {1000, 1}}
	flowUnits    = map[string]conversion{"l": {1, 1}, "lpm": {1, 1}}
	percentUnits = map[string]conversion{"pct": {1, 1}}
)

// doseText is the words of c[from:to] that can hold a drug's dose: up to the oxygen or fluid
// ordered in the same clause, whose litres are not the drug's.
func (c clause) doseText(from, to int) string {
	var words []string
	for _, lx := range c[from:to] {
		if lx.cat == catOxygen || lx.cat == catO2Device || lx.cat == catFluid {
			break
		}
		words = append(words, lx.word)
	}
	return strings.Join(words, " ")
}

func (c clause) hasAmount() bool {
	_, mass := c.amount(0, len(c), massUnits)
	_, vol := c.amount(0, len(c), volumeUnits)
	return mass || vol
}

// route finds a route word in c[from:to]. "IN" is only read at the end of a
// clause, straight after a dose or drug, because "in" is common English;
// "im" opening a clause before a verb is the pronoun ("Im giving…").
func (c clause) route(from, to int) string {
	for i := from; i < to; i++ {
		switch {
		case c[i].cat == catRoute && c[i].val == "IM" && c.isPronoun(i):
			continue
		case c[i].cat == catRoute:
			return c[i].val
		case c[i].word == "in" && i == len(c)-1 && i > 0 && (c[i-1].cat == catUnit || c[i-1].cat == catDrug):
			return "IN"
		}
	}
	return ""
}

func (c clause) isPronoun(i int) bool {
	if i+1 >= len(c) || i != c.firstContent() {
		return false
	}
	switch c[i+1].cat {
	case catDrug, catNum, catUnit, catRoute, catOxygen, catFluid:
		return false
	}
	return true
}

func (c clause) firstContent() int {
	for i, lx := range c {
		if lx.cat != catFiller {
			return i
		}
	}
	return len(c)
}
