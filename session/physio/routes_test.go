package physio

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ward-sim/ward/session/action"
	sc "github.com/ward-sim/ward/session/scenario"
)

// Before the Pharmacist, the nurse checks the route against the patient now: each row is said
// to a fresh patient, and the order is given or refused in the nurse's words.
func TestRoutesAreCheckedAgainstThePatient(t *testing.T) {
	nilByMouth := nilByMouthFracture(t)
	cases := []struct {
		name      string
		engine    func() *Engine
		before    string
		order     string
		given     bool
		refusal   string // a part of what the nurse says; "" when given
		refusedBy bool   // the nurse refused it (not the Pharmacist)
	}{
		{"by mouth, alert", func() *Engine { return NewEngine("p", scenario(t, "sepsis-urosepsis"), 1, 0) }, "", "paracetamol 1 g PO", true, "", false},
		{"by mouth, muddled", func() *Engine { return NewEngine("p", scenario(t, "hypoglycaemia"), 1, 0) }, "", "aspirin 300 mg PO", false,
			"He can't swallow safely (GCS 13), so not by mouth", true},
		{"by mouth, nil by mouth", func() *Engine { return NewEngine("p", nilByMouth, 1, 0) }, "", "paracetamol 1 g PO", false,
			"She is nil by mouth (for theatre) — paracetamol rectal or IV once a cannula is in instead?", true},
		{"IV without access", func() *Engine { return NewEngine("p", scenario(t, "sepsis-urosepsis"), 1, 0) }, "", "ceftriaxone 2 g IV", false,
			"There's no IV access yet", true},
		{"IV while the cannula goes in", func() *Engine { return NewEngine("p", scenario(t, "sepsis-urosepsis"), 1, 0) }, "site a cannula",
			"ceftriaxone 2 g IV", true, "", false},
		{"nebulised with no gas", func() *Engine { return NewEngine("p", scenario(t, "asthma-exacerbation"), 1, 0) }, "", "salbutamol 5 mg nebulised",
			false, "A nebuliser needs a gas to drive it", true},
		{"nebulised with air", func() *Engine { return NewEngine("p", scenario(t, "copd-exacerbation"), 1, 0) }, "",
			"salbutamol 5 mg nebulised with air", true, "", false},
		{"nebulised in a CO2 retainer, no gas said", func() *Engine { return NewEngine("p", scenario(t, "copd-exacerbation"), 1, 0) },
			"oxygen via 28% venturi", "salbutamol 5 mg nebulised", false, "He retains CO2, so the nebuliser is driven by air", true},
		{"nebulised on oxygen", func() *Engine { return NewEngine("p", scenario(t, "asthma-exacerbation"), 1, 0) }, "oxygen 15 L via non-rebreather",
			"salbutamol 5 mg nebulised", true, "", false},
		{"an unknown drug", func() *Engine { return NewEngine("p", scenario(t, "asthma-exacerbation"), 1, 0) }, "", "give salbutamoll 5 mg nebulised", false,
			"salbutamoll is not in the formulary; nothing given. Did you mean salbutamol", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := c.engine()
			for _, a := range action.Parse(c.before) {
				e.Apply(a)
			}
			var orders []Event
			for _, a := range action.Parse(c.order) {
				orders = append(orders, eventsOf(e.Apply(a), EventOrder)...)
			}
			o := onlyEvent(t, orders).Order
			if o.Given != c.given || o.Refused != c.refusedBy || !strings.Contains(o.Say, c.refusal) || c.refusal == "" && o.Say != "" {
				t.Errorf("%s: given %v, refused by the nurse %v, said %q; want given %v, refused %v, %q",
					c.order, o.Given, o.Refused, o.Say, c.given, c.refusedBy, c.refusal)
			}
		})
	}
}

// An IV drug given while the cannula goes in starts its course once the access is in.
func TestAnIVDrugWaitsForTheAccess(t *testing.T) {
	e := NewEngine("p", scenario(t, "hypoglycaemia"), 1, 0)
	for _, a := range action.Parse("IV access and glucose 10% 150 mL IV") {
		e.Apply(a)
	}
	// access in at 60 s, glucose IV onset 1 minute: the state turns at 2 minutes, not before.
	if e.AdvanceTo(119, nil); e.State() != "neuroglycopenic" {
		t.Errorf("at 1:59 the glucose has acted: %s", e.State())
	}
	if e.AdvanceTo(121, nil); e.State() != "recovering" {
		t.Errorf("at 2:01 the glucose has not acted: %s", e.State())
	}
}

// nilByMouthFracture is the fracture case with its patient nil by mouth for theatre.
func nilByMouthFracture(t *testing.T) *sc.Scenario {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "scenario", "builtin", "fracture-morphine-allergy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Replace(string(data), "news2:", "nil_by_mouth: for theatre\nnews2:", 1)
	s, errs := sc.Parse([]byte(doc))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return s
}
