package session

import (
	"strings"
	"testing"
)

// ward run through the adult curriculum's cases (issue 26), where the teaching needs more than
// the review paths play: a dangerous order stopped, an investigation that answers from the
// state, a critical error named as it happens. Each step's words must appear in what that turn
// said (any speaker) or in its critical errors.
func TestCurriculumCasesTeachAsTheyRun(t *testing.T) {
	type step struct {
		in   string
		want []string
	}
	cases := []struct {
		scenario string
		steps    []step
	}{
		{"svt", []step{
			{"12 lead ECG", []string{"regular narrow-complex tachycardia at 188/min"}},
			{"IV access", nil},
			{"/wait 1m", nil},
			{"adenosine 30 mg IV", []string{"STOP", "adenosine"}},
			{"synchronised cardioversion", []string{"Synchronised DC shock delivered", "A synchronised DC shock for an SVT with no adverse features"}},
		}},
		{"bradycardia", []step{
			{"12 lead ECG", []string{"P waves at 80/min marching through, unrelated to broad ventricular escape complexes"}},
			{"IV access", nil},
			{"/wait 1m", nil},
			{"atropine 3 mg IV", []string{"STOP", "atropine"}},
			{"give his bisoprolol 5 mg PO", []string{"Caution", "a beta-blocker slows it further", "A beta blocker (his bisoprolol)"}},
			{"start transcutaneous pacing", []string{"Pads on and pacing"}},
		}},
		{"hyperkalaemia-aki", []step{
			{"12 lead ECG", []string{"tall tented T waves"}},
			{"venous blood gas", []string{"potassium 7.4 mmol/L"}},
			{"IV access", nil},
			{"/wait 1m", nil},
			{"insulin 100 units IV", []string{"STOP", "insulin"}},
			{"ibuprofen 400 mg PO", []string{"Caution", "acute kidney injury", "An NSAID (ibuprofen, diclofenac) given in acute kidney injury"}},
		}},
		{"stroke-thrombolysis", []step{
			{"IV access", nil},
			{"/wait 1m", nil},
			{"alteplase 74 mg IV", []string{"Alteplase before a CT head has excluded haemorrhage"}},
		}},
		{"pulmonary-embolism", []step{
			{"12 lead ECG", []string{"S wave in I, Q wave and inverted T in III"}},
			{"urgent CTPA", []string{"CT pulmonary angiogram", "filling defects in both main pulmonary arteries"}},
			{"IV access", nil},
			{"/wait 1m", nil},
			{"alteplase 70 mg IV", []string{"Thrombolysis (alteplase) for a PE without shock"}},
		}},
		{"bacterial-meningitis", []step{
			{"lumbar puncture", []string{"opening pressure 38", "A lumbar puncture with a GCS of 12 or less"}},
		}},
		{"paracetamol-overdose", []step{
			{"paracetamol level please", []string{"142 mg/L at 9 hours"}},
			{"paracetamol 1 g PO for her headache", []string{"Caution", "she has taken an overdose of paracetamol", "More paracetamol for her headache"}},
		}},
		{"diabetic-ketoacidosis", []step{
			{"blood ketones", []string{"5.8 mmol/L"}},
			{"IV access", nil},
			{"/wait 1m", nil},
			{"start a fixed rate insulin infusion at 0.1 units/kg/hr IV", []string{"insulin 0.1 units/kg/h IV"}},
			{"sodium bicarbonate 8.4% 50 mL IV", []string{"IV sodium bicarbonate in DKA"}},
		}},
		{"head-injury-anticoagulated", []step{
			{"clotting please", []string{"INR 3.8"}},
			{"urgent CT head", []string{"acute left subdural haematoma 11 mm thick"}},
			{"IV access", nil},
			{"/wait 1m", nil},
			{"midazolam 2 mg IV", []string{"A sedative or opioid (midazolam, lorazepam, morphine)"}},
		}},
		{"upper-gi-bleed", []step{
			{"IV access", nil},
			{"/wait 1m", nil},
			{"crossmatch", []string{"4 units ready in 40 minutes"}},
			{"omeprazole 80 mg IV", []string{"A PPI (omeprazole) before endoscopy"}},
			{"transfuse 2 units of O negative", []string{"red cells (transfusion) 2 units"}},
		}},
		{"status-epilepticus", []step{
			{"IV access", nil},
			{"/wait 1m", nil},
			{"lorazepam 4 mg IV", nil},
			{"/wait 3m", nil}, // the first dose acts, and fails, within minutes
			{"lorazepam 4 mg IV", []string{"A third benzodiazepine dose"}},
		}},
		{"pulmonary-oedema", []step{
			{"chest X-ray", []string{"bat's wing"}},
			{"lie her flat", []string{"Lying her flat"}},
		}},
	}
	for _, c := range cases {
		t.Run(c.scenario, func(t *testing.T) {
			in := []string{"/admit patient_1 " + c.scenario}
			for _, s := range c.steps {
				in = append(in, s.in)
			}
			turns := byTurn(runJSON(t, seeded(t).s, lines(in...)))
			if len(turns) != len(in) {
				t.Fatalf("%d turns for %d lines", len(turns), len(in))
			}
			for i, s := range c.steps {
				var said []string
				for _, m := range ofKind(turns[i+1], "message") {
					said = append(said, m.str("text"))
				}
				for _, e := range ofKind(turns[i+1], "critical_error") {
					said = append(said, e.str("description"))
				}
				text := strings.Join(said, "\n")
				for _, w := range s.want {
					if !strings.Contains(text, w) {
						t.Errorf("%q: want %q in\n%s", s.in, w, text)
					}
				}
			}
		})
	}
}
