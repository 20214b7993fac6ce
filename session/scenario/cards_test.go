package scenario

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ward-sim/ward/memory/knowledge"
)

// The knowledge cards state doses in their text for a trainee to read; the formulary checks the
// trainee's orders. The two must agree: every dose a card states is a dose the formulary lets
// through as usual, for an adult at a reference weight, for a child at the age the card names
// (the youngest of a range) and the weight it names or the APLS estimate. A card that disagrees
// is a test failure, never a surprise at the bedside.
func TestKnowledgeCardDosesAgreeWithTheFormulary(t *testing.T) {
	cards, err := knowledge.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, c := range cards {
		for _, d := range c.Doses {
			ctx := childContext(d.Who)
			if _, ok := LookupDoses(d.Drug); !ok {
				t.Errorf("card %s: %s is not in the formulary", c.ID, d.Drug)
				continue
			}
			for _, amount := range []float64{d.Amount, d.Max} {
				if amount == 0 {
					continue
				}
				phrase := fmt.Sprintf("%g %s", amount, d.Unit)
				if d.Strength != "" {
					phrase += " of " + d.Strength
				}
				dose, ok := ParseDose(phrase)
				if !ok {
					t.Errorf("card %s: %g %s does not read as a dose", c.ID, amount, d.Unit)
					continue
				}
				ctx.Arrest = strings.Contains(d.Note, "cardiac arrest") // a dose given for an arrest is checked as one
				v := CheckDose(Order{Drug: d.Drug, Route: d.Route, Dose: dose}, ctx, nil)
				if v.Kind != DoseOK {
					t.Errorf("card %s states %s %s %g %s; the formulary says %s: %s", c.ID, d.Drug, d.Route, amount, d.Unit, v.Kind, v.Say)
				}
				checked++
			}
		}
	}
	if checked < 15 {
		t.Fatalf("only %d card doses checked; the cards state more", checked)
	}
}

// childContext is the patient a card's "who" names: an adult when it names no child; else the
// youngest age it gives ("child 6 months to 6 years" is 6 months) and the weight it gives
// ("child 6 years, 20 kg") or the APLS estimate for that age.
func childContext(who string) DoseContext {
	w := strings.ToLower(who)
	if !strings.HasPrefix(w, "child") {
		return DoseContext{}
	}
	var ctx DoseContext
	fields := strings.FieldsFunc(w, func(r rune) bool { return r == ' ' || r == ',' || r == '–' || r == '-' })
	for i := 0; i < len(fields); i++ {
		n, err := parseNumber(fields[i])
		if err != nil {
			continue
		}
		j := i + 1 // a range's unit follows its last number: the first is the youngest
		for j < len(fields) && isNumberWord(fields[j]) {
			j++
		}
		if j == len(fields) {
			break
		}
		switch unit := fields[j]; {
		case strings.HasPrefix(unit, "month") && ctx.AgeYears == 0:
			ctx.AgeYears = n / 12
		case strings.HasPrefix(unit, "year") && ctx.AgeYears == 0:
			ctx.AgeYears = n
		case unit == "kg":
			ctx.WeightKg = n
		}
		i = j
	}
	if ctx.WeightKg == 0 {
		ctx.WeightKg = aplsWeight(ctx.AgeYears)
	}
	return ctx
}

func isNumberWord(w string) bool {
	_, err := parseNumber(w)
	return err == nil
}
