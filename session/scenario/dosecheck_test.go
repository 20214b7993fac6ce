package scenario

import (
	"math"
	"strings"
	"testing"
)

// order builds an order from a dose phrase, as the action parser will.
func order(drug, route, phrase string, at Seconds) Order {
	d, _ := ParseDose(phrase)
	return Order{Drug: drug, Route: route, Dose: d, At: at}
}

func TestCheckDose(t *testing.T) {
	adult := DoseContext{WeightKg: 78}
	cases := []struct {
		name     string
		o        Order
		ctx      DoseContext
		kind     VerdictKind
		rule     string
		route    string  // as checked
		amount   float64 // in the base unit
		fraction float64
		say      string // a part of what the Pharmacist says
	}{
		// the overdoses and strengths trainees order in play
		{"adrenaline 50 mg IV outside arrest", order("adrenaline", "IV", "50 mg", 0), adult, DoseStop, RuleSituation, "IV", 50, 1,
			"STOP — adrenaline IV is for cardiac arrest only; otherwise give it IM, usually 0.5 mg. " +
				"STOP — adrenaline 50 mg IV is 50× the usual 1 mg; the maximum single dose is 1 mg."},
		{"adrenaline with no amount IV outside arrest", order("adrenaline", "IV", "", 0), adult, DoseStop, RuleSituation, "IV", 0, 1,
			"STOP — adrenaline IV is for cardiac arrest only; otherwise give it IM, usually 0.5 mg."},
		{"adrenaline 50 mg IV in arrest", order("adrenaline", "IV", "50 mg", 0), DoseContext{WeightKg: 78, Arrest: true},
			DoseStop, RuleOverMax, "IV", 50, 1, "STOP — adrenaline 50 mg IV is 50× the usual 1 mg; the maximum single dose is 1 mg."},
		{"adrenaline 50 mg IM", order("epinephrine", "IM", "50 mg", 0), adult, DoseStop, RuleOverMax, "IM", 50, 1,
			"STOP — adrenaline 50 mg IM is 100× the usual 0.5 mg; the maximum single dose is 0.5 mg."},
		{"100 ml of 10% glucose IV is 10 g", order("glucose", "IV", "give 100 ml of 10% glucose IV", 0), adult,
			DoseLow, RuleBelowUsual, "IV", 10000, 10000.0 / 15000,
			"Low dose — glucose 10 g IV is below the usual 15–20 g; expect about 67% of the usual effect."},
		// strengths, volumes and units
		{"adrenaline 0.5 mL of 1 in 1000 IM", order("adrenaline", "IM", "0.5 ml of 1:1000", 0), adult, DoseOK, "", "IM", 0.5, 1,
			"Adrenaline 0.5 mg IM is within the usual dose."},
		{"adrenaline 0.5 mL of 1 mg/mL", order("adrenaline", "IM", "0.5 mL of 1 mg/mL adrenaline", 0), adult, DoseOK, "", "IM", 0.5, 1, ""},
		{"500 micrograms is 0.5 mg", order("adrenaline", "IM", "500 micrograms", 0), adult, DoseOK, "", "IM", 0.5, 1, ""},
		{"adrenaline 1 in 10,000 IM", order("adrenaline", "IM", "5 ml of 1:10,000", 0), adult, DoseWarn, RuleRouteStrength, "IM", 0.5, 1,
			"Caution — adrenaline 0.1 mg/mL (1 in 10,000) is not the strength for IM; use 1 mg/mL (1 in 1000)."},
		{"adrenaline 1 mg IV of 1 in 10,000 in arrest", order("adrenaline", "IV", "10 ml of 1 in 10 000", 0),
			DoseContext{Arrest: true}, DoseOK, "", "IV", 1, 1, ""},
		{"50 mL of 50% dextrose", order("glucose", "IV", "50 ml 50% dextrose", 0), adult, DoseWarn, RuleAboveUsual, "IV", 25000, 1,
			"Caution — glucose 25 g IV is above the usual 15–20 g; the maximum single dose is 25 g."},
		{"150 mL of 10% glucose", order("glucose", "IV", "150 mL of 10%", 0), adult, DoseOK, "", "IV", 15000, 1, ""},
		{"2 mL/kg of 10% glucose at 14 kg is 2.8 g", order("glucose", "IV", "2 mL/kg of 10%", 0), DoseContext{WeightKg: 14, AgeYears: 3},
			DoseWarn, RuleNoChildDose, "IV", 2800, 2800.0 / 15000, "glucose 2.8 g IV"},
		{"1 g paracetamol", order("paracetamol", "PO", "1 g", 0), adult, DoseOK, "", "PO", 1000, 1, ""},
		{"10 units of insulin", order("insulin", "SC", "10 units", 0), adult, DoseOK, "", "SC", 10, 1, ""},
		{"2 puffs of salbutamol: inhaled, half the acute dose", order("salbutamol", "", "2 puffs", 0), adult,
			DoseLow, RuleBelowUsual, "INH", 0.2, 0.5, "expect about 50% of the usual effect"},
		{"5 mg nebulised salbutamol", order("salbutamol", "NEB", "5 mg nebulised", 0), adult, DoseOK, "", "NEB", 5, 1, ""},
		{"2 sprays of GTN: sublingual", order("nitroglycerin", "", "2 sprays", 0), adult, DoseOK, "", "SL", 0.8, 1, ""},
		{"aspirin with no route: by mouth", order("aspirin", "", "300 mg", 0), adult, DoseOK, "", "PO", 300, 1, ""},
		{"Entonox needs no dose", order("nitrous oxide", "", "", 0), adult, DoseOK, "", "INH", 0, 1, "taken as needed"},
		{"fentanyl per kg", order("fentanyl", "IN", "1.5 mcg/kg", 0), DoseContext{WeightKg: 70}, DoseOK, "", "IN", 0.105, 1, ""},
		{"fentanyl per kg, rounded to 100", order("fentanyl", "IN", "100 micrograms", 0), DoseContext{WeightKg: 70}, DoseOK, "", "IN", 0.1, 1, ""},
		{"fentanyl per kg, a fifth under", order("fentanyl", "IN", "80 micrograms", 0), DoseContext{WeightKg: 70}, DoseLow, RuleBelowUsual, "IN", 0.08, 80.0 / 105,
			"Low dose — fentanyl 80 micrograms IN is below the usual 105 micrograms"},
		{"fentanyl per kg, no weight recorded", order("fentanyl", "IN", "300 micrograms", 0), DoseContext{}, DoseStop, RuleOverMax, "IN", 0.3, 1,
			"STOP — fentanyl 300 micrograms IN is 2.9× the usual 105 micrograms (1.5 micrograms/kg, taking 70 kg as no weight is recorded)"},
		{"tenfold by weight in a light patient", order("fentanyl", "IN", "150 micrograms", 0), DoseContext{WeightKg: 10},
			DoseStop, RuleTenfold, "IN", 0.15, 1, "STOP — fentanyl 150 micrograms IN is 10× the usual 15 micrograms"},
		{"gentamicin 5 mg/kg", order("gentamicin", "IV", "5 mg/kg", 0), DoseContext{WeightKg: 58}, DoseOK, "", "IV", 290, 1, ""},
		{"gentamicin above 7 mg/kg", order("gentamicin", "IV", "700 mg", 0), DoseContext{WeightKg: 58}, DoseStop, RuleOverMax, "IV", 700, 1,
			"above the maximum single dose of 406 mg"},
		{"insulin 100 units", order("insulin", "SC", "100 units", 0), adult, DoseStop, RuleOverMax, "SC", 100, 1,
			"STOP — insulin 100 units SC is 10× the usual 2–10 units; the maximum single dose is 50 units."},
		{"morphine 10 mg IV is above usual", order("morphine", "IV", "10 mg", 0), adult, DoseWarn, RuleAboveUsual, "IV", 10, 1,
			"Caution — morphine 10 mg IV is above the usual 2.5–5 mg; the maximum single dose is 10 mg."},
		{"adrenaline 0.1 mg IM: a fifth of the effect", order("adrenaline", "IM", "0.1 mg", 0), adult, DoseLow, RuleBelowUsual, "IM", 0.1, 0.2,
			"expect about 20% of the usual effect"},
		// wrong routes
		{"glucose IM", order("glucose", "IM", "10 g", 0), adult, DoseStop, RuleRoute, "IM", 0, 1,
			"STOP — glucose is not given IM; give it PO, BUCCAL, IV or IO."},
		{"aspirin IV", order("aspirin", "IV", "300 mg", 0), adult, DoseStop, RuleRoute, "IV", 0, 1, "give it PO"},
		// questions, not guesses
		{"give some adrenaline", order("adrenaline", "", "give some adrenaline", 0), adult, DoseAsk, RuleNoRoute, "", 0, 1,
			"How much adrenaline, and by which route? e.g. 0.5 mg IM"},
		{"adrenaline 0.5 mg, no route", order("adrenaline", "", "0.5 mg", 0), adult, DoseAsk, RuleNoRoute, "", 0, 1,
			"By which route should adrenaline 500 micrograms go — IM, IV or IO? e.g. 0.5 mg IM"},
		{"adrenaline IM, no amount", order("adrenaline", "IM", "", 0), adult, DoseAsk, RuleNoAmount, "IM", 0, 1,
			"How much adrenaline IM? e.g. 0.5 mg"},
		{"a volume with no strength", order("adrenaline", "IM", "0.5 ml", 0), adult, DoseAsk, RuleNoStrength, "IM", 0, 1,
			"Which strength of adrenaline is 0.5 mL? It comes as 1 mg/mL (1 in 1000) and 0.1 mg/mL (1 in 10,000)."},
		{"oral morphine by volume", order("morphine", "PO", "10 ml oramorph", 0), adult, DoseAsk, RuleNoStrength, "PO", 0, 1,
			"Which strength of morphine is 10 mL?"},
		{"a strength the drug does not come in", order("adrenaline", "IM", "1 ml of 1:100", 0), adult, DoseAsk, RuleUnknownStrength, "IM", 0, 1,
			"Adrenaline does not come as 1 in 100; it comes as 1 mg/mL (1 in 1000) and 0.1 mg/mL (1 in 10,000). Which did you mean?"},
		{"insulin in mg", order("insulin", "SC", "10 mg", 0), adult, DoseAsk, RuleUnit, "SC", 0, 1,
			"Insulin is dosed in units, not mg — how much, in units?"},
		{"amount and volume disagree", order("adrenaline", "IM", "0.5 mg (5 mL of 1:1000)", 0), adult, DoseAsk, RuleMismatch, "IM", 0, 1,
			"0.5 mg of 1 in 1000 is 0.5 mL, not 5 mL — which did you mean: 0.5 mg or 5 mg?"},
		{"puffs of a drug with no inhaler", order("morphine", "IV", "2 puffs", 0), adult, DoseAsk, RuleNoStrength, "IV", 0, 1,
			"How much morphine is in each puff?"},
		{"not in the formulary", Order{Drug: "unobtainium", Route: "IV"}, adult, DoseOK, RuleNoEntry, "IV", 0, 1, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := CheckDose(c.o, c.ctx, nil)
			if v.Kind != c.kind || v.Rule != c.rule || v.Route != c.route {
				t.Errorf("verdict %s/%s by %q, want %s/%s by %q: %s", v.Kind, v.Rule, v.Route, c.kind, c.rule, c.route, v.Say)
			}
			if math.Abs(v.Amount-c.amount) > 1e-9*c.amount || math.Abs(v.Fraction-c.fraction) > 1e-9 {
				t.Errorf("amount %g fraction %g, want %g and %g", v.Amount, v.Fraction, c.amount, c.fraction)
			}
			if !strings.Contains(v.Say, c.say) {
				t.Errorf("says %q, want it to contain %q", v.Say, c.say)
			}
		})
	}
}

// Excess says how far over its maximum an order is, so an overdose given anyway can harm in
// proportion; an order within its maximum has none.
func TestCheckDoseExcess(t *testing.T) {
	adult := DoseContext{WeightKg: 78}
	for _, c := range []struct {
		o    Order
		want float64
	}{
		{order("adrenaline", "IM", "50 mg", 0), 100},
		{order("adrenaline", "IV", "50 mg", 0), 50},
		{order("adrenaline", "IM", "0.5 mg", 0), 0},
		{order("glucose", "IV", "50 ml of 50%", 0), 0},
		{order("morphine", "IV", "30 mg", 0), 3},
	} {
		if v := CheckDose(c.o, adult, nil); v.Excess != c.want {
			t.Errorf("%s %s %s: excess %g, want %g (%s)", c.o.Drug, c.o.Dose, c.o.Route, v.Excess, c.want, v.Say)
		}
	}
}

func TestCheckDoseRecordsTheStrength(t *testing.T) {
	v := CheckDose(order("glucose", "IV", "100 ml of 10% glucose", 0), DoseContext{}, nil)
	if v.Amount != 10000 || v.Unit != Milligrams || v.Strength != "10%" {
		t.Errorf("100 mL of 10%% glucose = %g %s of %q, want 10000 mg of 10%%", v.Amount, v.Unit, v.Strength)
	}
}

// course gives doses in turn, each checked against those before it.
func course(orders ...Order) []Verdict {
	var given []Order
	var out []Verdict
	for _, o := range orders {
		out = append(out, CheckDose(o, DoseContext{WeightKg: 70}, given))
		given = append(given, o)
	}
	return out
}

func TestRepeatAdrenalineEveryFiveMinutesIsFine(t *testing.T) {
	var orders []Order
	for i := range 6 {
		orders = append(orders, order("adrenaline", "IM", "0.5 mg", Seconds(300*i)))
	}
	for i, v := range course(orders...) {
		if v.Kind != DoseOK {
			t.Errorf("dose %d at %d min: %s %s", i+1, 5*i, v.Kind, v.Say)
		}
	}
}

func TestRepeatTooSoonWarns(t *testing.T) {
	vs := course(order("adrenaline", "IM", "0.5 mg", 0), order("adrenaline", "IM", "0.5 mg", 120))
	if v := vs[1]; v.Kind != DoseWarn || v.Rule != RuleInterval ||
		v.Say != "Caution — adrenaline IM was last given 2 min ago; the guidance is to repeat after 5 min." {
		t.Errorf("a second dose after 2 min: %s/%s %q", v.Kind, v.Rule, v.Say)
	}
	again := course(order("adrenaline", "IM", "0.5 mg", 0), order("adrenaline", "IM", "0.5 mg", 0))[1]
	if again.Say != "Caution — adrenaline IM was last given moments ago; the guidance is to repeat after 5 min." {
		t.Errorf("a second dose in the same minute: %q", again.Say)
	}
	// an IM dose does not time an IV one: in arrest the IV dose is due at once
	v := CheckDose(order("adrenaline", "IV", "1 mg", 60), DoseContext{Arrest: true}, []Order{order("adrenaline", "IM", "0.5 mg", 0)})
	if v.Kind != DoseOK {
		t.Errorf("IV adrenaline in arrest a minute after IM: %s %s", v.Kind, v.Say)
	}
}

func TestFourthMorphineDoseOverTheMaximumStops(t *testing.T) {
	vs := course(
		order("morphine", "IV", "5 mg", 0),
		order("morphine", "IV", "5 mg", 300),
		order("morphine", "IV", "5 mg", 600),
		order("morphine", "IV", "10 mg", 900),
	)
	for i, v := range vs[:3] {
		if v.Kind != DoseOK {
			t.Errorf("dose %d: %s %s", i+1, v.Kind, v.Say)
		}
	}
	want := "STOP — morphine 10 mg IV would be the fourth dose, 25 mg in all this shift; the maximum is 20 mg per shift."
	if v := vs[3]; v.Kind != DoseStop || v.Rule != RuleCumulative || !strings.HasPrefix(v.Say, want) {
		t.Errorf("fourth dose: %s/%s %q, want a stop saying %q", v.Kind, v.Rule, v.Say, want)
	}
	if v := vs[3]; v.Excess != 25.0/20 {
		t.Errorf("fourth dose: excess %g, want 1.25 (25 mg of a 20 mg maximum)", v.Excess)
	}
	// a fourth 5 mg dose reaches the maximum without passing it
	if v := course(order("morphine", "IV", "5 mg", 0), order("morphine", "IV", "5 mg", 300),
		order("morphine", "IV", "5 mg", 600), order("morphine", "IV", "5 mg", 900))[3]; v.Kind != DoseOK {
		t.Errorf("a fourth 5 mg dose: %s %s", v.Kind, v.Say)
	}
}

func TestCumulativeCountsEveryRouteWithinTheWindow(t *testing.T) {
	day := Seconds(24 * 3600)
	vs := course(
		order("paracetamol", "PO", "1 g", 0),
		order("paracetamol", "IV", "1 g", 4*3600),
		order("paracetamol", "PO", "1 g", 8*3600),
		order("paracetamol", "PR", "1 g", 12*3600),
		order("paracetamol", "PO", "1 g", 16*3600),
	)
	if v := vs[4]; v.Kind != DoseStop || v.Rule != RuleCumulative ||
		!strings.Contains(v.Say, "5 g in all within 24 h; the maximum is 4 g in 24 h") {
		t.Errorf("a fifth gram of paracetamol in 16 h: %s/%s %q", v.Kind, v.Rule, v.Say)
	}
	// a day after the first dose, it no longer counts
	if v := CheckDose(order("paracetamol", "PO", "1 g", day+1), DoseContext{},
		[]Order{order("paracetamol", "PO", "1 g", 0), order("paracetamol", "PO", "1 g", 8*3600),
			order("paracetamol", "PO", "1 g", 12*3600), order("paracetamol", "PO", "1 g", 18*3600)}); v.Kind != DoseOK {
		t.Errorf("the window is 24 h: %s %s", v.Kind, v.Say)
	}
}

func TestEarlierOrdersOfOtherDrugsOrUnreadableDosesDoNotCount(t *testing.T) {
	given := []Order{
		order("diamorphine", "IV", "5 mg", 0), // another opioid, another drug
		order("morphine", "IV", "", 0),        // no amount: it could not have been given as written
		order("morphine", "IV", "15 mg", 0),
	}
	if v := CheckDose(order("morphine", "IV", "5 mg", 600), DoseContext{}, given); v.Kind != DoseOK {
		t.Errorf("%s %s", v.Kind, v.Say)
	}
}

// FuzzCheckDose: whatever the phrase, drug and route, the check gives a
// known kind, a finite non-negative amount, a share of the effect in (0, 1],
// and something to say for anything but a plain ok.
func FuzzCheckDose(f *testing.F) {
	f.Add("0.5 ml of 1:1000", 0, 0, 70.0, false, 0.0)
	f.Add("2 puffs", 1, 10, 0.0, false, 6.0)
	f.Add("100 ml of 10% glucose", 20, 7, 58.0, true, 40.0)
	f.Add("1.5 mcg/kg", 55, 5, 0.0, false, 0.3)
	f.Add("40 mg/kg", 3, 2, 20.0, false, 6.0)
	f.Fuzz(func(t *testing.T, phrase string, drug, route int, weight float64, arrest bool, age float64) {
		d, _ := ParseDose(phrase)
		all := Drugs()
		o := Order{Drug: all[uint(drug)%uint(len(all))].Name, Dose: d}
		if route >= 0 {
			o.Route = Routes[route%len(Routes)]
		}
		if math.IsNaN(weight) || math.IsInf(weight, 0) || weight < 0 || weight > 350 {
			weight = 0
		}
		if math.IsNaN(age) || math.IsInf(age, 0) || age < 0 || age > 120 {
			age = 0
		}
		v := CheckDose(o, DoseContext{WeightKg: weight, AgeYears: age, Arrest: arrest}, []Order{o, o})
		if _, known := severity[v.Kind]; !known && v.Kind != DoseAsk {
			t.Fatalf("unknown kind %q", v.Kind)
		}
		if math.IsNaN(v.Amount) || math.IsInf(v.Amount, 0) || v.Amount < 0 || !(v.Fraction > 0 && v.Fraction <= 1) {
			t.Fatalf("%+v: amount %g fraction %g", o, v.Amount, v.Fraction)
		}
		if v.Say == "" && v.Rule != RuleNoEntry {
			t.Fatalf("%+v: %s/%s says nothing", o, v.Kind, v.Rule)
		}
	})
}

// BenchmarkCheckDose: one order read from its phrase and checked against a
// shift that has already given ten doses.
func BenchmarkCheckDose(b *testing.B) {
	var given []Order
	for i := range 10 {
		given = append(given, order("morphine", "IV", "2.5 mg", Seconds(300*i)))
	}
	ctx := DoseContext{WeightKg: 70}
	formulary()
	b.ReportAllocs()
	for b.Loop() {
		d, _ := ParseDose("give 100 ml of 10% glucose IV")
		CheckDose(Order{Drug: "glucose", Route: "IV", Dose: d, At: 3000}, ctx, given)
		CheckDose(Order{Drug: "morphine", Route: "IV", Dose: given[0].Dose, At: 3000}, ctx, given)
	}
}
