package physio

import (
	"encoding/json"
	"strings"
	"testing"
)

func outcome(r Report, id string) CriticalOutcome {
	for _, o := range r.CriticalActions {
		if o.ID == id {
			return o
		}
	}
	return CriticalOutcome{}
}

func TestCriticalActionsWithinAndBefore(t *testing.T) {
	// Allergies asked after the analgesic: "before" is missed though done.
	e, _ := play(t, "fracture-morphine-allergy", 30*60,
		step{60, "fentanyl 100 mcg IN"},
		step{120, "any allergies?"},
		step{25 * 60, "splint the leg"},
	)
	r := e.Report()
	cases := []struct {
		id        string
		met, done bool
		at        float64
	}{
		{"analgesia", true, true, 60},
		{"ask-allergies", false, true, 120},
		{"splint", false, true, 25 * 60},
		{"vitals", false, false, 0},
	}
	for _, c := range cases {
		o := outcome(r, c.id)
		if o.Met != c.met || o.Done != c.done || (c.done && *o.At != c.at) {
			t.Errorf("%s: %+v, want met %v done %v at %g", c.id, o, c.met, c.done, c.at)
		}
	}
	if got := r.Score.Breakdown[0]; got.Points != 15 || got.Max != 60 {
		t.Errorf("critical actions scored %+v, want 15/60 for 1 of 4", got)
	}
}

func TestReportScoresAndDebriefs(t *testing.T) {
	good, _ := play(t, "acs-sildenafil", 15*60,
		step{20, "attach the monitor and get a 12 lead ECG"},
		step{60, "What medications do you take? Any allergies?"},
		step{90, "aspirin 300 mg PO"},
		step{120, "morphine 5 mg IV"},
	)
	bad, _ := play(t, "acs-sildenafil", 15*60, step{60, "GTN 400 mcg SL"})
	gr, br := good.Report(), bad.Report()
	if gr.Score.Total != 100 {
		t.Errorf("good run scored %d: %+v", gr.Score.Total, gr.Score.Breakdown)
	}
	if br.Score.Total >= 20 || len(br.CriticalErrors) != 1 {
		t.Errorf("nitrate after sildenafil scored %d with errors %+v", br.Score.Total, br.CriticalErrors)
	}
	md := br.Markdown()
	for _, want := range []string{"# After Action Review — Inferior STEMI", "## Score:", "## Critical actions",
		"**Missed** — A 12-lead ECG within 10 minutes", "## Critical errors", "sildenafil taken",
		"## Timeline", "| 01:00 | medication nitroglycerin 0.4 mg SL |", "### Plus", "### Delta",
		"nitroglycerin given at 01:00 before asking about allergies", "The patient deteriorated", "## Learning objectives"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if !strings.Contains(strings.Join(gr.Plus, "\n"), "Asked about allergies before giving any medication") {
		t.Errorf("plus: %v", gr.Plus)
	}
}

func TestReportJSON(t *testing.T) {
	e, _ := play(t, "hypoglycaemia", 600, step{30, "BM"}, step{60, "glucagon 1 mg IM"})
	data, err := json.Marshal(e.Report())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(data, &m)
	for _, k := range []string{"patient_id", "scenario", "timeline", "critical_actions", "critical_errors", "score", "plus", "delta"} {
		if _, ok := m[k]; !ok {
			t.Errorf("report JSON lacks %q", k)
		}
	}
	if !strings.Contains(string(data), `glucose check → 2.1 mmol/L`) {
		t.Errorf("timeline should show the glucose result: %s", data)
	}
}
