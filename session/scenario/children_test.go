package scenario

import (
	"strings"
	"testing"
)

// A child is dosed by the band their age falls in and by their weight: the same order is right
// for one child, an overdose for a smaller or younger one, and the adult's dose stops.
func TestChildDosesByWeightAndAge(t *testing.T) {
	six := DoseContext{WeightKg: 20, AgeYears: 6}
	three := DoseContext{WeightKg: 14, AgeYears: 3}
	teen := DoseContext{WeightKg: 60, AgeYears: 15}
	adult := DoseContext{WeightKg: 70, AgeYears: 30}
	cases := []struct {
		name string
		o    Order
		ctx  DoseContext
		kind VerdictKind
		rule string
		say  string
	}{
		{"prednisolone 2 mg/kg at 20 kg", order("prednisolone", "PO", "40 mg", 0), six, DoseOK, "", "within the usual dose"},
		{"prednisolone 1 mg/kg at 20 kg", order("prednisolone", "PO", "20 mg", 0), six, DoseOK, "", "within the usual dose"},
		{"prednisolone half the usual", order("prednisolone", "PO", "10 mg", 0), six, DoseLow, RuleBelowUsual,
			"below the usual 20–40 mg (1–2 mg/kg)"},
		{"the adult's prednisolone for a child", order("prednisolone", "PO", "60 mg", 0), six, DoseStop, RuleOverMax,
			"above the maximum single dose of 40 mg"},
		{"the adult's prednisolone for an adult", order("prednisolone", "PO", "50 mg", 0), adult, DoseOK, "", ""},
		{"prednisolone capped at 40 mg for a heavy teenager", order("prednisolone", "PO", "60 mg", 0), teen, DoseStop, RuleOverMax,
			"the maximum single dose of 40 mg"},
		{"magnesium 40 mg/kg at 20 kg", order("magnesium sulfate", "IV", "800 mg", 0), six, DoseOK, "", ""},
		{"the adult's magnesium for a child", order("magnesium sulfate", "IV", "2 g", 0), six, DoseStop, RuleOverMax,
			"magnesium sulfate 2 g IV is 2.5× the usual 800 mg (40 mg/kg); the maximum single dose is 800 mg"},
		{"magnesium capped at 2 g at 60 kg", order("magnesium sulfate", "IV", "2 g", 0), teen, DoseOK, "", ""},
		{"hydrocortisone 4 mg/kg at 20 kg", order("hydrocortisone", "IV", "80 mg", 0), six, DoseOK, "", ""},
		{"the adult's hydrocortisone for a child", order("hydrocortisone", "IV", "200 mg", 0), six, DoseStop, RuleOverMax, "2.5×"},
		{"salbutamol 5 mg nebulised at 6", order("salbutamol", "NEB", "5 mg", 0), six, DoseOK, "", ""},
		{"salbutamol 5 mg nebulised at 3", order("salbutamol", "NEB", "5 mg", 0), three, DoseStop, RuleOverMax,
			"salbutamol 5 mg NEB is 2× the usual 2.5 mg"},
		{"adrenaline 300 micrograms IM at 6", order("adrenaline", "IM", "300 micrograms", 0), six, DoseOK, "", ""},
		{"the adult's adrenaline at 6", order("adrenaline", "IM", "500 micrograms", 0), six, DoseStop, RuleOverMax,
			"above the maximum single dose of 0.3 mg"},
		{"adrenaline 300 micrograms IM at 3", order("adrenaline", "IM", "300 micrograms", 0), three, DoseStop, RuleOverMax,
			"2× the usual 0.15 mg"},
		{"a tenfold prednisolone", order("prednisolone", "PO", "400 mg", 0), six, DoseStop, RuleOverMax, "10×"},
		{"a drug with no children's dose", order("morphine", "IV", "2 mg", 0), six, DoseWarn, RuleNoChildDose,
			"the formulary has no children's dose of morphine IV"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := CheckDose(c.o, c.ctx, nil)
			if v.Kind != c.kind || (c.rule != "" && v.Rule != c.rule) || !strings.Contains(v.Say, c.say) {
				t.Errorf("got %s %s %q, want %s %s with %q", v.Kind, v.Rule, v.Say, c.kind, c.rule, c.say)
			}
		})
	}
}

// The children's total counts doses given before: a second magnesium 40 mg/kg is stopped.
func TestChildCumulativeMaximum(t *testing.T) {
	six := DoseContext{WeightKg: 20, AgeYears: 6}
	first := order("magnesium sulfate", "IV", "800 mg", 0)
	v := CheckDose(order("magnesium sulfate", "IV", "800 mg", 600), six, []Order{first})
	if v.Kind != DoseStop || v.Rule != RuleCumulative || !strings.Contains(v.Say, "the maximum is 800 mg") {
		t.Errorf("a second dose: %s %s %q", v.Kind, v.Rule, v.Say)
	}
}

func TestChildBandsAreChecked(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"prednisolone: {routes: {PO: [{ages: 6-2, usual: 1 mg/kg, max: 2 mg/kg}]}, source: BNFC}", "FROM below TO"},
		{"prednisolone: {routes: {PO: [{ages: 2-6, usual: 3 mg/kg, max: 2 mg/kg}]}, source: BNFC}", "the usual dose is above the maximum"},
		{"prednisolone: {routes: {PO: [{ages: 2-6, usual: 1 mg/kg, max: 10 mg/kg}]}, source: BNFC}", "ten times the usual"},
		{"prednisolone: {routes: {PO: [{ages: 2-6, usual: 1 mg/kg, max: 2 mg/kg}, {ages: 5-9, usual: 1 mg/kg, max: 2 mg/kg}]}, source: BNFC}", "overlap the band before"},
		{"prednisolone: {routes: {IV: [{ages: 2-6, usual: 1 mg/kg, max: 2 mg/kg}]}, source: BNFC}", "prednisolone is not given IV"},
		{"unobtainium: {routes: {PO: [{ages: 2-6, usual: 1 mg/kg, max: 2 mg/kg}]}, source: BNFC}", "no adult entry"},
	} {
		f, err := parseFormulary(formularyData)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.addChildren([]byte("drugs:\n  " + tc.doc + "\n")); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: want %q, got %v", tc.doc, tc.want, err)
		}
	}
}
