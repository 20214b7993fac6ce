package scenario

import (
	"strings"
	"testing"
)

// No built-in case's examination finds a conclusion: every finding of every state describes.
func TestBuiltinFindingsDescribe(t *testing.T) {
	lib, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range lib.List() {
		for _, c := range s.Conclusions() {
			t.Errorf("%s, %s %s: %q", s.ID, c.Path, c.Why, c.Finding)
		}
	}
}

// A finding that names the diagnosis (a synonym, an abbreviation, a slip, in any order), a
// written state or its description, or that orders or times the management, is a conclusion;
// the same words used to describe are not.
func TestConclusionsFromDescriptions(t *testing.T) {
	s := &Scenario{
		Diagnosis: &DiagnosisKey{Accepted: []string{"adrenal crisis", "fast AF", "infective exacerbation of COPD"}},
		States: map[string]*State{
			"crisis":       {Description: "Refractory hypotension; drowsy."},
			"septic-shock": {},
			"post-ictal":   {},
			"near_fatal":   {},
			"obstructed":   {},
		},
	}
	for finding, want := range map[string]string{
		"Endocrine: vomiting — adrenal crisis; steroid card.":       `names the diagnosis ("adrenal crisis")`,
		"Endocrine: vomiting; adrenal crsis":                        `names the diagnosis ("adrenal crisis")`,
		"Cardiovascular: fast AF for three days":                    `names the diagnosis ("fast AF")`,
		"wheeze and crackles: a COPD exacerbation, infective":       `names the diagnosis ("infective exacerbation of COPD")`,
		"mottled knees: septic shock":                               "names the state septic-shock",
		"mottled knees (septic-shock)":                              "names the state septic-shock",
		"silent chest: near fatal":                                  "names the state near_fatal",
		"drowsy: refractory hypotension; drowsy.":                   "names the state crisis",
		"Trauma: tension pneumothorax — decompress now.":            `says what to do or how soon ("now.")`,
		"Vascular: free rupture — theatre now or never.":            `says what to do or how soon ("now or never")`,
		"GCS 9 — antibiotics cannot wait for any scan":              `says what to do or how soon ("cannot wait")`,
		"paced at 70; he needs a permanent pacemaker":               `says what to do or how soon ("needs")`,
		"tiring with apnoeas — for CPAP and a senior paediatrician": `says what to do or how soon ("for CPAP")`,
		"holding at GCS 13; for neurosurgical evacuation":           `says what to do or how soon ("for neurosurgical evacuation")`,
		"perfusion restored; watch for bleeding":                    `says what to do or how soon ("watch")`,
		"escape rhythm at 24: peri-arrest":                          `says what to do or how soon ("peri-arrest")`,
		"agonal breathing: close to arrest":                         `says what to do or how soon ("close to arrest")`,
		// describing: "now" before a sign, "for" a length of time, a needle, a bedside state word,
		// a diagnosis's words apart in a sentence, a state's one-word id
		"now drowsy, flushed and hot":                         "",
		"the trachea now central":                             "",
		"a seizure for 12 minutes; a fast, irregular pulse":   "",
		"a needle decompression in the left chest":            "",
		"post-ictal GCS 9 and rising":                         "",
		"cannot give a history; cannot keep his eyes open":    "",
		"a crisis card in her bag; vomiting and adrenal pain": "",
		"a near-obstructed airway; obstructed nostrils":       "",
	} {
		if got := s.concludes(finding); got != want {
			t.Errorf("%q: %q, want %q", finding, got, want)
		}
	}
}

// Conclusions names each concluding finding by its path, the baseline's and a state's.
func TestConclusionsAreFoundByPath(t *testing.T) {
	s := &Scenario{
		Diagnosis: &DiagnosisKey{Accepted: []string{"bronchiolitis"}},
		Findings:  Findings{"focused": "crackles and wheeze — bronchiolitis", "airway": "patent"},
		States: map[string]*State{
			"tiring": {Findings: Findings{"focused": "apnoeas — for CPAP", "airway": "blood in the mouth; needs suction"}},
			"better": {Findings: Findings{"focused": "settling on low-flow oxygen"}},
		},
	}
	var got []string
	for _, c := range s.Conclusions() {
		got = append(got, c.Path)
	}
	if want := "findings.focused states.tiring.findings.airway states.tiring.findings.focused"; strings.Join(got, " ") != want {
		t.Errorf("%v, want %s", got, want)
	}
}

// No built-in case's examination states a vital sign the engine owns.
func TestBuiltinFindingsLeaveTheVitalsToTheEngine(t *testing.T) {
	lib, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range lib.List() {
		for _, m := range s.Measurements() {
			t.Errorf("%s, %s states %q: %q", s.ID, m.Path, m.Number, m.Finding)
		}
	}
}

// A temperature, a blood pressure, a rate a minute, a saturation or a glucose is the engine's
// to say; a fetal heart rate, a burn's extent, a peak flow and a Glasgow score are not.
func TestVitalNumbersInFindings(t *testing.T) {
	for finding, want := range map[string]string{
		"wet and cold; core temperature 35.2 °C":          "35.2 °C",
		"on a magnesium infusion, BP 150/98":              "150/98",
		"a regular pulse of 46/min":                       "46/min",
		"breathing 32 / min, shallow":                     "32 / min",
		"recession and a saturation under 90 %":           "saturation under 90 %",
		"SpO2 88% on air":                                 "SpO2 88%",
		"the glucose falling about 5 mmol/L an hour":      "glucose falling about 5 mmol",
		"fetal heart 100/min during the fit":              "",
		"a second fit; fetal bradycardia 80/min":          "",
		"burns over about 30 % of the body surface":       "",
		"speaking in phrases; peak flow 55 % of his best": "",
		"post-ictal GCS 9 and rising; QRS 128 ms":         "",
		"a fetal heart of 140/min; her pulse 120/min":     "120/min",
	} {
		if got := vitalNumber(finding); got != want {
			t.Errorf("%q: %q, want %q", finding, got, want)
		}
	}
}
