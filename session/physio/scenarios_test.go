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
		{"arrest-vf-ward", 10, "vf-arrest"},
		{"arrest-pea-tension", 10, "pea-arrest"},
		{"arrest-asystole-stop", 10, "asystole"},
	}
	// Arrests that start at the worst NEWS2 there is cannot rise from it.
	startsAtWorst := []string{"arrest-pea-tension", "arrest-asystole-stop"}
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
func TestScenariosImproveWhenTreated(t *testing.T) {
	cases := []struct {
		scenario string
		minutes  float64
		want     string
		steps    []step
	}{
		{"asthma-exacerbation", 20, "improving", []step{
			{30, "Sit her up, oxygen 15 L via non-rebreather, check vitals. Any allergies?"},
			{60, "Salbutamol 5 mg nebulised"},
			{120, "ipratropium 500 mcg neb"},
			{180, "prednisolone 40 mg PO"},
			{600, "recheck obs"},
		}},
		{"arrest-vf-ward", 20, "post-rosc-stable", []step{
			{31, "he's in cardiac arrest, put out a crash call and start CPR"},
			{50, "pads on, charge to 150 J"},
			{60, "stop compressions, rhythm check"},
			{63, "this is VF, stand clear, shock 150 J, resume CPR"},
			{180, "12-lead ECG and check vitals"},
			{210, "oxygen 15 L via non-rebreather, aim for a MAP above 65, temperature control, refer to the cath lab"},
			{600, "check vitals"},
		}},
		{"arrest-pea-tension", 20, "post-rosc-stable", []step{
			{50, "he's in cardiac arrest, crash call, start CPR"}, {60, "pads on"},
			{70, "stop compressions, rhythm check"}, {74, "this is PEA, no shock, resume CPR"},
			{90, "IO access and give adrenaline 1 mg IO"}, {100, "consider the 4 Hs and 4 Ts, examine his chest"},
			{120, "needle decompression on the right"},
			{190, "stop compressions, rhythm check and pulse check"}, {195, "resume CPR"},
			{310, "stop compressions, rhythm check and pulse check"}, {315, "resume CPR, adrenaline 1 mg IO"},
			{430, "stop compressions, rhythm check and pulse check"}, {435, "resume CPR"},
			{550, "stop compressions, rhythm check and pulse check"},
			{570, "12-lead ECG, oxygen 15 L via non-rebreather, aim for a MAP above 65, temperature control"},
			{720, "chest x-ray and refer to ICU"},
		}},
		{"anaphylaxis", 20, "recovered", []step{
			{20, "Any allergies? Adrenaline 0.5 mg IM into the thigh, high flow oxygen 15 L NRB"},
			{90, "IV access and 500 mL saline bolus"},
			{700, "check vitals"},
		}},
		{"opioid-overdose", 15, "awake", []step{
			{20, "jaw thrust, OPA, ventilate with the BVM"},
			{60, "put him on the monitor"},
			{90, "naloxone 400 micrograms IM"},
			{300, "check a BM"},
		}},
		{"hypoglycaemia", 10, "recovering", []step{
			{30, "check his blood glucose and obs"},
			{90, "IV access, give glucose 10% 150 mL IV"},
			{400, "repeat the obs"},
		}},
		{"acs-sildenafil", 15, "stabilised", []step{
			{20, "attach the monitor and get a 12 lead ECG"},
			{60, "What medications do you take? Any allergies?"},
			{90, "aspirin 300 mg PO"},
			{120, "morphine 5 mg IV"},
		}},
		{"sepsis-urosepsis", 20, "improving", []step{
			{20, "full set of obs please, any allergies?"},
			{60, "IV access with blood cultures and a lactate, 500 mL Hartmann's bolus"},
			{120, "ceftriaxone 2 g IV"},
			{180, "paracetamol 1 g IV"},
			{900, "repeat obs"},
		}},
		{"copd-exacerbation", 20, "improving", []step{
			{20, "sit him up, 28% venturi, check vitals"},
			{60, "salbutamol 5 mg neb and ipratropium 500 mcg neb"},
			{120, "prednisolone 30 mg PO"},
			{900, "repeat obs"},
		}},
		{"fracture-morphine-allergy", 15, "comfortable", []step{
			{20, "check vitals, any allergies?"},
			{40, "fentanyl 100 mcg intranasal"},
			{60, "splint the leg"},
			{600, "recheck vitals"},
		}},
	}
	var ids []string
	for _, c := range cases {
		ids = append(ids, c.scenario)
	}
	ids = append(ids, "arrest-asystole-stop") // cannot improve; TestArrestStopDecision plays it
	playsEveryScenario(t, ids)
	for _, c := range cases {
		t.Run(c.scenario, func(t *testing.T) {
			e, _ := play(t, c.scenario, c.minutes*60, c.steps...)
			r := e.Report()
			if e.State() != c.want {
				t.Errorf("state %q, want %q; timeline:\n%s", e.State(), c.want, r.Markdown())
			}
			if now, then := e.TrueNEWS2().Total, e.Snapshot().NEWS2AtArrival; now >= then {
				t.Errorf("NEWS2 %d did not fall from %d", now, then)
			}
			if len(r.CriticalErrors) > 0 {
				t.Errorf("critical errors: %v", r.CriticalErrors)
			}
			for _, o := range r.CriticalActions {
				if !o.Met {
					t.Errorf("critical action %s not met (%s)", o.ID, o.Rule)
				}
			}
		})
	}
}

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
