package physio

import (
	"slices"
	"testing"
)

// Each built-in scenario, left alone, deteriorates by its own rules.
func TestScenariosDeteriorateUntreated(t *testing.T) {
	cases := []struct {
		scenario string
		minutes  float64
		want     string
	}{
		{"asthma-exacerbation", 20, "near-fatal"},
		{"anaphylaxis", 15, "peri-arrest"},
		{"opioid-overdose", 10, "hypoxic"},
		{"hypoglycaemia", 25, "seizing"},
		{"acs-sildenafil", 30, "cardiogenic-shock"},
		{"sepsis-urosepsis", 20, "septic-shock"},
		{"copd-exacerbation", 20, "worsening"},
		{"fracture-morphine-allergy", 20, "uncontrolled"},
		// the adult curriculum's cases (issue 26)
		{"svt", 26, "collapsing"},
		{"bradycardia", 13, "collapsing"},
		{"hyperkalaemia-aki", 13, "peri-arrest"},
		{"pulmonary-embolism", 26, "peri-arrest"},
		{"stroke-thrombolysis", 41, "established"},
		{"pulmonary-oedema", 23, "peri-arrest"},
		{"status-epilepticus", 30, "peri-arrest"},
		{"bacterial-meningitis", 40, "coning"},
		{"head-injury-anticoagulated", 30, "coning"},
		{"upper-gi-bleed", 23, "peri-arrest"},
		{"paracetamol-overdose", 30, "vomiting"},
		{"diabetic-ketoacidosis", 40, "peri-arrest"},
		// the paediatric case (issue 26)
		{"paediatric-asthma", 20, "near-fatal"},
		{"arrest-vf-ward", 10, "vf-arrest"},
		{"arrest-pea-tension", 10, "pea-arrest"},
		{"arrest-asystole-stop", 10, "asystole"},
		// the library's second step (issue 37)
		{"postpartum-haemorrhage", 25, "peri-arrest"},
		{"eclampsia", 20, "hypoxic"},
		{"ruptured-ectopic", 25, "peri-arrest"},
		{"paediatric-arrest", 10, "pea-arrest"},
		{"paediatric-sepsis", 25, "peri-arrest"},
		{"bronchiolitis", 25, "apnoeic"},
		{"major-haemorrhage-prehospital", 16, "peri-arrest"},
		{"hypothermia-prehospital", 22, "collapsed"},
		{"hyperosmolar-hyperglycaemic-state", 30, "collapse"},
		{"adrenal-crisis", 25, "collapse"},
		{"tricyclic-overdose", 22, "peri-arrest"},
		{"fast-af", 30, "shocked"},
		{"ruptured-aaa", 25, "peri-arrest"},
		{"traumatic-tension-pneumothorax", 16, "peri-arrest"},
		{"major-burns", 22, "obstructed"},
		{"delirium-fall", 30, "shocked"},
	}
	// Arrests that start at the worst NEWS2 there is cannot rise from it.
	startsAtWorst := []string{"arrest-pea-tension", "arrest-asystole-stop", "paediatric-arrest"}
	var ids []string
	for _, c := range cases {
		ids = append(ids, c.scenario)
	}
	playsEveryScenario(t, ids)
	for _, c := range cases {
		t.Run(c.scenario, func(t *testing.T) {
			e, _ := play(t, c.scenario, c.minutes*60)
			if e.State() != c.want {
				t.Errorf("state %q after %g min, want %q", e.State(), c.minutes, c.want)
			}
			if now, then := e.TrueNEWS2().Total, e.Snapshot().NEWS2AtArrival; now <= then && !slices.Contains(startsAtWorst, c.scenario) {
				t.Errorf("NEWS2 %d did not rise from %d", now, then)
			}
		})
	}
}

// Each built-in scenario, treated correctly, improves and ends error-free.
// playsEveryScenario fails when a built-in scenario has no row in a play-through table, so a new
// scenario cannot go untested.
func playsEveryScenario(t *testing.T, ids []string) {
	t.Helper()
	for _, s := range library(t).List() {
		if !slices.Contains(ids, s.ID) {
			t.Errorf("scenario %s is not played through", s.ID)
		}
	}
}
