package physio

import (
	"strings"
	"testing"

	"github.com/ward-sim/ward/session/action"
	sc "github.com/ward-sim/ward/session/scenario"
)

func hours(h float64) *float64 { return &h }

// allergic is a patient allergic to agent, whose class carries cross-reactions.
func allergic(agent, class, reaction, severity string) *sc.Scenario {
	return &sc.Scenario{Allergies: []sc.Allergy{{Agent: agent, DrugClass: class, Reaction: reaction, Severity: severity}}}
}

// taking is a patient on drug, last taken hours before arrival (nil: not said).
func taking(drug string, hours *float64) *sc.Scenario {
	return &sc.Scenario{Medications: []sc.Medication{{Name: drug, LastTakenHours: hours}}}
}

func TestCheckMedicationByClass(t *testing.T) {
	penicillin := allergic("penicillin", "penicillin", "hives", "severe")
	morphine := allergic("morphine", "phenanthrene_opioid", "apnoea", "severe")
	aspirin := allergic("aspirin", "nsaid", "bronchospasm", "severe")
	ibuprofen := allergic("ibuprofen", "nsaid", "angioedema", "severe")
	codeineIntolerance := allergic("codeine", "phenanthrene_opioid", "nausea", "intolerance")
	sildenafil := taking("sildenafil", hours(10))
	sildenafilOld := taking("sildenafil", hours(30))
	tadalafil := taking("tadalafil", hours(30))
	vardenafilUnknown := taking("Levitra", nil)
	none := &sc.Scenario{}

	cases := []struct {
		name    string
		s       *sc.Scenario
		drug    string
		sbp     float64
		elapsed float64
		level   string // "" for no finding
		rule    string
	}{
		{"penicillin itself", penicillin, "penicillin", 120, 0, sc.HardStop, RuleAllergy},
		{"amoxicillin is a penicillin", penicillin, "amoxicillin", 120, 0, sc.HardStop, RuleCrossReactivity},
		{"ampicillin is a penicillin", penicillin, "ampicillin", 120, 0, sc.HardStop, RuleCrossReactivity},
		{"piperacillin is a penicillin", penicillin, "piperacillin-tazobactam", 120, 0, sc.HardStop, RuleCrossReactivity},
		{"co-amoxiclav is a penicillin", penicillin, "co-amoxiclav", 120, 0, sc.HardStop, RuleCrossReactivity},
		{"ceftriaxone: low cross-reactivity", penicillin, "ceftriaxone", 120, 0, sc.Warn, RuleCrossReactivity},
		{"vancomycin is fine", penicillin, "vancomycin", 120, 0, "", ""},
		{"morphine itself", morphine, "morphine", 120, 0, sc.HardStop, RuleAllergy},
		{"codeine is a phenanthrene", morphine, "codeine", 120, 0, sc.Warn, RuleCrossReactivity},
		{"oxycodone is a phenanthrene", morphine, "oxycodone", 120, 0, sc.Warn, RuleCrossReactivity},
		{"hydromorphone is a phenanthrene", morphine, "hydromorphone", 120, 0, sc.Warn, RuleCrossReactivity},
		{"fentanyl is not", morphine, "fentanyl", 120, 0, "", ""},
		{"aspirin itself", aspirin, "aspirin", 120, 0, sc.HardStop, RuleAllergy},
		{"aspirin allergy blocks ibuprofen", aspirin, "ibuprofen", 120, 0, sc.HardStop, RuleCrossReactivity},
		{"aspirin allergy blocks ketorolac", aspirin, "ketorolac", 120, 0, sc.HardStop, RuleCrossReactivity},
		{"aspirin allergy blocks naproxen", aspirin, "naproxen", 120, 0, sc.HardStop, RuleCrossReactivity},
		{"NSAID allergy blocks aspirin", ibuprofen, "aspirin", 120, 0, sc.HardStop, RuleCrossReactivity},
		{"paracetamol is not an NSAID", aspirin, "paracetamol", 120, 0, "", ""},
		{"an intolerance only warns", codeineIntolerance, "codeine", 120, 0, sc.Warn, RuleAllergy},
		{"GTN 10 h after sildenafil", sildenafil, "GTN", 130, 0, sc.HardStop, RulePDE5},
		{"isosorbide 10 h after sildenafil", sildenafil, "isosorbide mononitrate", 130, 0, sc.HardStop, RulePDE5},
		{"GTN 30 h after sildenafil", sildenafilOld, "nitroglycerin", 130, 0, "", ""},
		{"GTN 30 h after tadalafil", tadalafil, "nitroglycerin", 130, 0, sc.HardStop, RulePDE5},
		{"sildenafil taken 23.5 h before arrival, an hour ago", taking("sildenafil", hours(23.5)), "gtn", 130, 3600, "", ""},
		{"PDE5 inhibitor, last dose unknown", vardenafilUnknown, "gtn", 130, 0, sc.Warn, RulePDE5},
		{"GTN with SBP 88", none, "gtn", 88, 0, sc.HardStop, RuleHypotension},
		{"GTN with SBP 90", none, "gtn", 90, 0, "", ""},
		{"unknown drug", penicillin, "unobtainium", 120, 0, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := CheckMedication(c.s, c.drug, c.sbp, c.elapsed)
			if c.level == "" {
				if len(got) > 0 {
					t.Fatalf("want no finding, got %+v", got)
				}
				return
			}
			if len(got) != 1 || got[0].Level != c.level || got[0].Rule != c.rule || got[0].Reason == "" {
				t.Fatalf("want one %s/%s, got %+v", c.level, c.rule, got)
			}
			if d, _ := sc.LookupDrug(c.drug); got[0].Drug != sc.DrugLabel(d.Name) {
				t.Errorf("drug %q, want the formulary's name for %q", got[0].Drug, d.Name)
			}
		})
	}
}

func TestMorphineAllergySuggestsFentanyl(t *testing.T) {
	got := CheckMedication(scenario(t, "fracture-morphine-allergy"), "oxycodone", 150, 0)
	if len(got) != 1 || !strings.Contains(got[0].Suggest, "fentanyl") {
		t.Fatalf("got %+v", got)
	}
}

func TestScenarioContraindication(t *testing.T) {
	got := CheckMedication(scenario(t, "asthma-exacerbation"), "propranolol", 130, 0)
	if len(got) != 1 || got[0].Level != sc.HardStop || got[0].Rule != RuleContraindication {
		t.Fatalf("beta-blocker in asthma: %+v", got)
	}
}

// A penicillin-allergic patient given ampicillin gets a hard stop, a critical
// error in the AAR and an allergic reaction — although nobody asked.
func TestAskingAllergiesIsRecordedOnTheFinding(t *testing.T) {
	_, events := playFrom(t, cannulated(t, "fracture-morphine-allergy", 42), 60, step{10, "any allergies?"}, step{20, "morphine 5 mg IV"})
	safety := eventsOf(events, EventSafety)
	if len(safety) != 1 || !safety[0].Safety.AllergiesAsked || safety[0].Safety.Rule != RuleAllergy {
		t.Fatalf("got %+v", safety)
	}
}

func TestAdrenalineReversesAnAllergicReaction(t *testing.T) {
	allergyEffects := func(e *Engine) int {
		n := 0
		for _, ef := range e.s.Effects {
			if ef.Source == sourceAllergy {
				n++
			}
		}
		return n
	}
	e, _ := play(t, "sepsis-urosepsis", 300, step{10, "ibuprofen 400 mg PO"})
	before := allergyEffects(e)
	if before == 0 {
		t.Fatal("ibuprofen in an NSAID allergy started no allergic reaction")
	}
	e.Apply(action.Action{Kind: sc.KindMedication, Drug: "epinephrine", DoseMg: 0.5, Route: "IM"})
	if n := allergyEffects(e); n != before {
		t.Fatalf("adrenaline IM acted before its onset: %d of %d allergy effects remain", n, before)
	}
	e.AdvanceTo(e.Clock()+60, nil) // IM adrenaline: onset 1 minute
	if n := allergyEffects(e); n > 0 {
		t.Fatalf("%d of %d allergy effects remain after adrenaline", n, before)
	}
}

// Her morphine allergy is a true allergy: morphine brings on anaphylaxis, and IM adrenaline
// settles it.
func TestMorphineBringsOnAnaphylaxisAndAdrenalineSettlesIt(t *testing.T) {
	e, _ := playFrom(t, cannulated(t, "fracture-morphine-allergy", 42), 5*60, step{10, "morphine 5 mg IV"})
	if v := e.TrueVitals(); e.State() != "anaphylaxis" || v.SBP > 100 || v.Wheeze < 1 {
		t.Fatalf("after morphine: state %s, SBP %d, wheeze %d; want anaphylaxis with hypotension and wheeze", e.State(), v.SBP, v.Wheeze)
	}
	e.Apply(action.Action{Kind: sc.KindMedication, Drug: "epinephrine", DoseMg: 0.5, Route: "IM"})
	e.AdvanceTo(12*60, nil)
	if v := e.TrueVitals(); e.State() != "settling" || v.SBP < 110 || v.Wheeze > 0 {
		t.Fatalf("after adrenaline: state %s, SBP %d, wheeze %d; want the reaction settling", e.State(), v.SBP, v.Wheeze)
	}
}
