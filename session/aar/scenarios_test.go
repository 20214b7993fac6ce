package aar

import (
	"testing"
)

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
			{60, "IV access"},
			{120, "give glucose 10% 150 mL IV"},
			{400, "repeat the obs"},
		}},
		{"acs-sildenafil", 15, "stabilised", []step{
			{20, "attach the monitor and get a 12 lead ECG"},
			{30, "IV access"},
			{60, "What medications do you take? Any allergies?"},
			{90, "aspirin 300 mg PO"},
			{100, "call the cath lab for primary PCI"},
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
			{40, "do you use oxygen at home? target sats 88-92"},
			{60, "salbutamol 5 mg neb and ipratropium 500 mcg neb with air"},
			{120, "prednisolone 30 mg PO"},
			{900, "repeat obs"},
		}},
		{"fracture-morphine-allergy", 15, "comfortable", []step{
			{20, "check vitals, any allergies?"},
			{40, "fentanyl 100 mcg intranasal"},
			{60, "splint the leg and check the foot's circulation"},
			{600, "recheck vitals"},
		}},
		// the adult curriculum's cases (issue 26)
		{"svt", 10, "sinus", []step{
			{20, "monitor, obs, any allergies? any medical history?"},
			{60, "12 lead ECG and IV access"},
			{90, "modified Valsalva"},
			{150, "adenosine 6 mg IV rapid bolus"},
			{240, "adenosine 12 mg IV rapid bolus"},
			{540, "recheck vitals"},
		}},
		{"bradycardia", 15, "paced", []step{
			{20, "monitor and obs, any allergies? what medications do you take?"},
			{60, "12 lead ECG and IV access"},
			{120, "atropine 500 micrograms IV"},
			{400, "start transcutaneous pacing"},
			{840, "recheck vitals"},
		}},
		{"hyperkalaemia-aki", 20, "improving", []step{
			{20, "monitor and obs, any allergies? what medications do you take?"},
			{60, "12 lead ECG, IV access and a blood gas"},
			{120, "calcium gluconate 10% 30 mL IV"},
			{200, "insulin 10 units IV and glucose 20% 100 mL IV"},
			{300, "1 L Hartmann's"},
			{1140, "recheck vitals"},
		}},
		{"pulmonary-embolism", 20, "anticoagulated", []step{
			{20, "monitor and obs, any allergies? what happened?"},
			{40, "oxygen 15 L via non-rebreather"},
			{90, "12 lead ECG, IV access and bloods"},
			{240, "heparin 5000 units IV"},
			{300, "urgent CTPA"},
			{1140, "recheck vitals"},
		}},
		{"stroke-thrombolysis", 20, "thrombolysed", []step{
			{20, "check vitals and a BM"},
			{60, "when did this start? what medications does he take? any allergies?"},
			{120, "IV access and urgent CT head"},
			{600, "alteplase 74 mg IV"},
			{1140, "recheck vitals"},
		}},
		{"pulmonary-oedema", 20, "improving", []step{
			{20, "sit her up, oxygen 15 L via non-rebreather, check vitals"},
			{60, "any allergies? 12 lead ECG and IV access"},
			{150, "furosemide 40 mg IV"},
			{200, "GTN 400 micrograms SL"},
			{260, "chest X-ray"},
			{1140, "recheck vitals"},
		}},
		{"status-epilepticus", 20, "stopped", []step{
			{15, "NPA and oxygen 15 L via non-rebreather"},
			{40, "check vitals and a BM, IV access"},
			{90, "lorazepam 4 mg IV"},
			{120, "any allergies? what medications does he take?"},
			{360, "levetiracetam 4.5 g IV"},
			{1140, "recheck vitals"},
		}},
		{"bacterial-meningitis", 20, "improving", []step{
			{20, "check vitals and a BM"},
			{60, "what happened? any allergies?"},
			{120, "IV access, blood cultures and a lactate"},
			{240, "dexamethasone 10 mg IV then ceftriaxone 2 g IV"},
			{1140, "recheck vitals"},
		}},
		{"head-injury-anticoagulated", 20, "reversed", []step{
			{20, "check vitals and pupils, any allergies?"},
			{60, "what medications do you take?"},
			{90, "IV access and clotting"},
			{150, "urgent CT head"},
			{240, "beriplex 1500 units IV and vitamin K 10 mg IV"},
			{1140, "recheck vitals"},
		}},
		{"upper-gi-bleed", 20, "resuscitated", []step{
			{20, "check vitals, any allergies?"},
			{40, "two large bore cannulas"},
			{90, "venous blood gas and a crossmatch"},
			{120, "what medications do you take?"},
			{240, "transfuse 2 units of O negative"},
			{1140, "recheck vitals"},
		}},
		{"paracetamol-overdose", 25, "treated", []step{
			{20, "check vitals, any allergies?"},
			{40, "what happened? when did you take them?"},
			{120, "IV access, paracetamol level and bloods"},
			{240, "acetylcysteine 150 mg/kg IV"},
			{360, "who do you live with?"},
			{1480, "recheck vitals"},
		}},
		{"diabetic-ketoacidosis", 25, "improving", []step{
			{20, "check vitals and a BM, any allergies?"},
			{60, "IV access, blood ketones and a venous gas"},
			{150, "1 L 0.9% saline over an hour"},
			{210, "what medications do you take?"},
			{300, "start a fixed rate insulin infusion at 0.1 units/kg/hr IV"},
			{1480, "recheck vitals"},
		}},
		// the paediatric case (issue 26)
		{"paediatric-asthma", 20, "improving", []step{
			{30, "Sit him up, oxygen 15 L via non-rebreather, check vitals. Any allergies?"},
			{60, "Salbutamol 2.5 mg nebulised"},
			{120, "ipratropium 250 mcg neb"},
			{180, "prednisolone 40 mg PO"},
			{600, "recheck obs"},
		}},
		// the library's second step (issue 37)
		{"postpartum-haemorrhage", 15, "contracting", []step{{20, "call the obstetric registrar and the anaesthetist, check vitals"}, {40, "any allergies?"}, {60, "rub up the fundus"}, {90, "two large bore cannulas, bloods and crossmatch"}, {150, "oxytocin 5 units IV"}, {210, "tranexamic acid 1 g IV"}, {600, "recheck vitals"}}},
		{"eclampsia", 15, "controlled", []step{{15, "call the obstetric registrar and the anaesthetist"}, {30, "put her in the left lateral tilt and give oxygen 15 L via non-rebreather"}, {60, "check vitals, IV access"}, {90, "magnesium sulfate 4 g IV"}, {180, "any allergies?"}, {240, "labetalol 20 mg IV"}, {720, "recheck vitals"}}},
		{"ruptured-ectopic", 16, "resuscitated", []step{{20, "check vitals, any allergies?"}, {60, "urine pregnancy test"}, {90, "two large bore cannulas and a crossmatch"}, {150, "FAST scan"}, {180, "call the gynae registrar for theatre"}, {240, "transfuse 2 units of O negative"}, {840, "recheck vitals"}}},
		{"paediatric-arrest", 16, "post-rosc-stable", []step{{10, "open the airway and give five rescue breaths with the bag valve mask"}, {30, "she's in cardiac arrest, crash call, start CPR 15 to 2"}, {50, "pads on"}, {60, "stop compressions, rhythm check"}, {64, "this is PEA, no shock, resume CPR"}, {90, "IO access and give adrenaline 120 micrograms IO"}, {120, "consider the 4 Hs and 4 Ts"}, {190, "stop compressions, rhythm check and pulse check"}, {195, "resume CPR"}, {310, "stop compressions, rhythm check and pulse check"}, {315, "resume CPR, adrenaline 120 micrograms IO"}, {430, "stop compressions, rhythm check and pulse check"}, {435, "resume CPR"}, {550, "stop compressions, rhythm check and pulse check"}, {570, "there's a pulse: oxygen 15 L via non-rebreather and check vitals"}, {600, "call paediatric intensive care"}, {840, "check vitals"}}},
		{"paediatric-sepsis", 16, "improving", []step{{20, "check vitals and a BM, any allergies?"}, {60, "IO access, blood cultures and a blood gas"}, {120, "140 mL 0.9% saline bolus"}, {180, "ceftriaxone 1.1 g IV"}, {240, "call the paediatric registrar and PICU"}, {840, "recheck vitals"}}},
		{"bronchiolitis", 15, "supported", []step{{20, "check vitals"}, {60, "oxygen 2 L via nasal cannula"}, {120, "nasal suction"}, {180, "how is she feeding? any allergies?"}, {240, "call the paediatric registrar"}, {720, "recheck vitals"}}},
		{"major-haemorrhage-prehospital", 15, "controlled", []step{{15, "apply a tourniquet high on the right thigh and a pelvic binder"}, {60, "check vitals, any allergies?"}, {120, "IV access"}, {180, "tranexamic acid 1 g IV"}, {240, "pre-alert the major trauma centre"}, {720, "recheck vitals"}}},
		{"hypothermia-prehospital", 15, "rewarming", []step{{20, "check vitals, any allergies?"}, {60, "remove his wet clothes, wrap him and start active rewarming"}, {120, "attach the monitor"}, {180, "check a BM"}, {300, "pre-alert the emergency department"}, {780, "recheck vitals"}}},
		{"hyperosmolar-hyperglycaemic-state", 15, "rehydrating", []step{{20, "check vitals and a BM, any allergies?"}, {60, "IV access, blood ketones, a venous gas and serum osmolality"}, {120, "1 L 0.9% saline over an hour"}, {180, "chest x-ray"}, {780, "recheck vitals"}}},
		{"adrenal-crisis", 15, "stabilising", []step{{20, "check vitals and a BM, any allergies?"}, {40, "what medications do you take?"}, {60, "IV access and a venous gas"}, {120, "hydrocortisone 100 mg IV"}, {150, "1 L 0.9% saline over an hour"}, {780, "recheck vitals"}}},
		{"tricyclic-overdose", 15, "narrowing", []step{{15, "jaw thrust and oxygen 15 L via non-rebreather"}, {40, "check vitals, attach the monitor"}, {60, "12 lead ECG and IV access"}, {120, "any allergies?"}, {150, "sodium bicarbonate 8.4% 50 mL IV"}, {210, "call ICU"}, {780, "recheck vitals"}}},
		{"fast-af", 15, "rate-controlled", []step{{20, "check vitals, attach the monitor"}, {40, "12 lead ECG"}, {60, "when did this start? any allergies?"}, {120, "IV access and bloods"}, {180, "metoprolol 5 mg IV"}, {780, "recheck vitals"}}},
		{"ruptured-aaa", 15, "for-theatre", []step{{20, "check vitals, any allergies?"}, {40, "examine his abdomen"}, {60, "call the vascular surgeon"}, {90, "two large bore cannulas and a crossmatch"}, {150, "transfuse 2 units of O negative"}, {780, "recheck vitals"}}},
		{"traumatic-tension-pneumothorax", 12, "decompressed", []step{{15, "oxygen 15 L via non-rebreather, check vitals"}, {45, "examine his chest"}, {90, "needle decompression on the left"}, {150, "any allergies? call the trauma team"}, {600, "recheck vitals"}}},
		{"major-burns", 16, "secured", []step{{15, "oxygen 15 L via non-rebreather, check vitals"}, {45, "any allergies? call the anaesthetist to secure his airway"}, {90, "two large bore cannulas and a blood gas"}, {150, "1 L Hartmann's"}, {210, "morphine 5 mg IV"}, {840, "recheck vitals"}}},
		{"delirium-fall", 16, "settling", []step{{20, "check vitals and a BM"}, {60, "when did this start? what is she usually like? any allergies?"}, {120, "examine her hips"}, {180, "urine dipstick, IV access and bloods"}, {240, "500 mL Hartmann's bolus"}, {300, "cefuroxime 1.5 g IV"}, {840, "recheck vitals"}}},
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
			r := Of(e)
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
