package scenario

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ward-sim/ward/memory/knowledge"
)

// The knowledge cards state doses in their text for a trainee to read; the formulary checks the
// trainee's orders. The two must agree: every adult dose a card states is a dose the formulary
// lets through as usual, at a reference adult weight. A card that disagrees is a test failure,
// never a surprise at the bedside.
func TestKnowledgeCardDosesAgreeWithTheFormulary(t *testing.T) {
	cards, err := knowledge.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, c := range cards {
		for _, d := range c.Doses {
			if strings.Contains(strings.ToLower(d.Who), "child") {
				continue // the formulary holds adult doses
			}
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
				// a dose the card gives for a cardiac arrest is checked as one
				ctx := DoseContext{Arrest: strings.Contains(d.Note, "cardiac arrest")}
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
