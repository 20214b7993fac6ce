package scenario

import (
	"strings"
	"testing"
)

func TestValidateChecksDosesAgainstTheFormulary(t *testing.T) {
	cases := []struct {
		name, old, new string
		line           int
		want           string
	}{
		{"weight out of range", "sex: F}", "sex: F, weight_kg: 900}", 3, "weight_kg 900 is outside 0.5–350"},
		{"negative weight", "sex: F}", "sex: F, weight_kg: -70}", 3, "weight_kg -70 is outside"},
		{"intervention by a route the drug is not given by", "learning_objectives:",
			"interventions:\n  - match: {kind: medication, drug: glucose, route: IM}\n    effects: [{vital: glucose, delta: 4}]\nlearning_objectives:",
			24, "glucose is not given IM (the formulary's routes: PO, BUCCAL, IV or IO)"},
		{"transition by a route the drug is not given by", "      - time_in_state: 5m",
			"      - action: {kind: medication, drug: aspirin, route: IV}", 16, "aspirin is not given IV"},
		{"dose bound above the maximum", "{kind: check_vitals}",
			"{kind: medication, drug: epinephrine, route: IM, max_dose_mg: 5}", 20,
			"max_dose_mg 5 is above the maximum single dose of epinephrine (0.5 mg IM)"},
		{"dose bound in mg for a drug dosed in units", "{kind: check_vitals}",
			"{kind: medication, drug: insulin, min_dose_mg: 10}", 20, "insulin is dosed in units, so min_dose_mg"},
		{"overdose written in a critical action", "    description: look\n    match: {kind: check_vitals}",
			"    description: Adrenaline 5 mg IM into the thigh\n    match: {kind: medication, drug: epinephrine, route: IM}", 19,
			`"5 mg" is above the maximum single dose of epinephrine (0.5 mg IM)`},
		{"overdose in the patient's own medicines", "initial_state: well",
			"medications:\n  - {name: ramipril, dose: 100 mg daily}\ninitial_state: well", 7,
			`"100 mg" is above the maximum single dose of ramipril (10 mg PO)`},
		{"a weight-based maximum uses the weight", "sex: F}",
			"sex: F, weight_kg: 50}\nmedications:\n  - {name: gentamicin, dose: 420 mg once daily}", 5,
			`"420 mg" is above the maximum single dose of gentamicin (350 mg IV)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantValidateError(t, c.old, c.new, c.line, c.want) })
	}
}

func TestValidateAcceptsDosesWithinRange(t *testing.T) {
	doc := strings.Replace(minimal, "initial_state: well", `medications:
  - {name: albuterol, dose: two puffs (100 micrograms each) daily}
  - {name: insulin glargine, dose: 24 units at night}
  - {name: fluticasone, dose: inhaled twice daily}
  - {name: a herbal tea, dose: 5 cups a day}
initial_state: well`, 1)
	doc = strings.Replace(doc, "sex: F}", "sex: F, weight_kg: 61.5}", 1)
	doc = strings.Replace(doc, "    description: look\n    match: {kind: check_vitals}",
		"    description: Adrenaline 0.5 mg IM (1 mg/mL)\n    match: {kind: medication, drug: epinephrine, route: IM, min_dose_mg: 0.3, max_dose_mg: 0.5}", 1)
	// a critical error may name a wrong route or an overdose on purpose
	doc = strings.Replace(doc, "learning_objectives:", `critical_errors:
  - id: im-glucose
    description: Glucose 50 g IM
    match: {kind: medication, drug: glucose, route: IM, min_dose_mg: 50000}
    penalty: 25
learning_objectives:`, 1)
	if errs := Validate([]byte(doc)); len(errs) > 0 {
		t.Fatal(errs)
	}
}

func TestBuiltinScenariosHaveAWeight(t *testing.T) {
	lib, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range lib.List() {
		d := s.Demographics
		if apls := aplsWeight(float64(d.Age)); d.Age < AdultYears && (d.WeightKg < apls/2 || d.WeightKg > apls*2) {
			t.Errorf("%s: weight_kg %g is far from the APLS estimate for %d years (%g kg)", s.ID, d.WeightKg, d.Age, apls)
		} else if w := d.WeightKg; d.Age >= AdultYears && (w < 40 || w > 150) {
			t.Errorf("%s: weight_kg %g is not a plausible adult weight", s.ID, w)
		}
	}
}
