package aar

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ward-sim/ward/session/physio"
)

func outcome(r Report, id string) CriticalOutcome {
	for _, o := range r.CriticalActions {
		if o.ID == id {
			return o
		}
	}
	return CriticalOutcome{}
}

func scoreLine(r Report, item string) ScoreLine {
	for _, l := range r.Score.Breakdown {
		if strings.HasPrefix(l.Item, item) {
			return l
		}
	}
	return ScoreLine{}
}

func TestCriticalActionsWithinAndBefore(t *testing.T) {
	// Allergies asked after the analgesic: "before" is missed though done.
	e, _ := play(t, "fracture-morphine-allergy", 30*60,
		step{60, "fentanyl 100 mcg IN"},
		step{120, "any allergies?"},
		step{25 * 60, "splint the leg"},
	)
	r := Of(e)
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
	if got := scoreLine(r, "Strong analgesia"); got.Points != 20 || got.Max != 20 || got.Why != "met at 01:00" {
		t.Errorf("analgesia scored %+v, want its weight 20/20, met at 01:00", got)
	}
	if got := scoreLine(r, "Splint"); got.Points != 0 || got.Max != 10 || !strings.Contains(got.Why, "the target was within 20:00") {
		t.Errorf("a late splint scored %+v, want 0/10 with the target", got)
	}
}

func TestReportScoresFromTheScenarioWeights(t *testing.T) {
	good, _ := play(t, "acs-sildenafil", 15*60,
		step{20, "attach the monitor and get a 12 lead ECG"},
		step{30, "IV access"},
		step{60, "What medications do you take? Any allergies?"},
		step{90, "aspirin 300 mg PO"},
		step{100, "call the cath lab for primary PCI"},
		step{120, "morphine 5 mg IV"},
	)
	bad, _ := play(t, "acs-sildenafil", 15*60, step{60, "GTN 400 mcg SL"})
	if gr := Of(good); gr.Score.Total != 45 {
		t.Errorf("good actions alone scored %d, want the actions' 45", gr.Score.Total)
	}
	mustDo(t, errOf(good.Diagnose("inferior stemi")))
	mustDo(t, errOf(good.Dispose("cath lab")))
	gr, br := Of(good), Of(bad)
	if gr.Score.Total != 100 {
		t.Errorf("good run scored %d: %+v", gr.Score.Total, gr.Score.Breakdown)
	}
	if br.Score.Total != 0 || len(br.CriticalErrors) != 1 {
		t.Errorf("nitrate after sildenafil scored %d with errors %+v", br.Score.Total, br.CriticalErrors)
	}
	if got := scoreLine(br, "critical error"); got.Points != -25 {
		t.Errorf("a drug given against a hard stop cost %d, want the scenario's hard_stop 25", got.Points)
	}
	md := br.Markdown()
	for _, want := range []string{"# After Action Review — Inferior STEMI", "**Presentation:** central chest pain",
		"## Critical errors\n\n- 01:00 — gave glyceryl trinitrate without knowing the patient's medicines: sildenafil taken",
		"## Missed critical actions\n\n- Cardiac monitoring — not done (within 05:00)\n- A 12-lead ECG within 10 minutes — not done (within 10:00)",
		"## Score: 0 / 100", "| Aspirin 300 mg chewed | 0 / 10 | not done |",
		"Next time: A reperfusion decision — call the cath lab for primary PCI (within 15:00)",
		"## Timeline", "| 01:00 | medication glyceryl trinitrate 400 micrograms SL |", "### Plus", "### Delta",
		"01:00 — glyceryl trinitrate given before asking about allergies", "## Learning objectives"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if !slices.Contains(gr.lines(PointPlus), "Asked about allergies before giving any medication that could wait") {
		t.Errorf("plus: %v", gr.lines(PointPlus))
	}
	// Before the nurse's first observation, nothing was measured.
	early, _ := play(t, "acs-sildenafil", 60)
	md = Of(early).Markdown()
	for _, want := range []string{"**NEWS2:** never measured", "No observations were measured"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

// The review's NEWS2 is what the trainee measured: the first reading "at arrival", the last one
// "now", whatever the engine's truth did in between.
func TestReviewNEWS2IsFirstAndLastMeasured(t *testing.T) {
	e, _ := play(t, "asthma-exacerbation", 12*60, step{120, "check vitals"}, step{180, "salbutamol 5 mg nebulised"}, step{600, "obs"})
	r := Of(e)
	rd := e.Readings()
	first, last := rd[0], rd[len(rd)-1]
	if len(rd) < 2 || first.Source != physio.ReadByCheck {
		t.Fatalf("readings %+v, want the check at 02:00 first", rd)
	}
	if r.NEWS2AtArrival.Text != first.Score().String() || r.NEWS2Now.Text != last.Score().String() || r.NEWS2AtArrival.Elapsed != 120 {
		t.Errorf("review NEWS2 %+v → %+v, want the readings %s at 02:00 → %s", r.NEWS2AtArrival, r.NEWS2Now, first.Score(), last.Score())
	}
}

// The walkthrough of the anaphylaxis case with amoxicillin and a 50 mg IV adrenaline bolus. As
// written, the Pharmacist stops both (the allergy was told, the dose is a hundredfold): two near
// misses. Given on the trainee's override, both are critical errors. Either way both lead the
// debrief with what was missed, and a debrief that leaves any of them out is caught.
func TestDebriefLeadsWithCriticalErrorsAndMissedActions(t *testing.T) {
	cases := []struct {
		name, override string
		kind           string
	}{
		{"stopped", "", PointNearMiss},
		{"overridden", ", override", PointCriticalError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, _ := playFrom(t, cannulated(t, "anaphylaxis", 42), 8*60,
				step{0, "what happened? any allergies?"},
				step{1, "give amoxicillin 500 mg PO" + c.override},
				step{2, "give adrenaline 50 mg IV" + c.override},
				step{180, "check vitals"},
				step{181, "give adrenaline 0.5 mg IM and oxygen 15L"},
				step{480, "check vitals"},
			)
			r := Of(e)
			var kinds []string
			for _, p := range r.Debrief {
				kinds = append(kinds, p.Kind)
			}
			want := []string{PointMissed, PointMissed, c.kind, c.kind}
			if c.kind == PointCriticalError {
				want = []string{c.kind, c.kind, PointMissed, PointMissed}
			}
			if len(kinds) < 4 || !slices.Equal(kinds[:4], want) {
				t.Fatalf("debrief kinds %v, want it to open with %v", kinds, want)
			}
			unnamed := r.Unnamed("Well done.")
			if len(unnamed) != 4 {
				t.Errorf("a debrief naming nothing leaves out %d points, want 4: %+v", len(unnamed), unnamed)
			}
			if left := r.Unnamed(r.Digest()); len(left) != 0 {
				t.Errorf("the review's own digest leaves out %+v", left)
			}
			named := "You ordered amoxicillin for a man allergic to penicillin, and 50 mg of adrenaline IV. IV access and a fluid bolus never happened."
			if left := r.Unnamed(named); len(left) != 0 {
				t.Errorf("a debrief in its own words still left out %+v", left)
			}
		})
	}
}

// Every critical action and critical error of every built-in scenario names itself, so the
// review's own lines always pass the check a model's debrief must pass.
func TestEveryBuiltinPointNamesItself(t *testing.T) {
	for _, s := range library(t).List() {
		for _, ca := range s.CriticalActions {
			p := Point{Text: ca.Description + " — not done", names: matchNames(ca.Match)}
			if !p.namedIn(normalized(p.Text)) {
				t.Errorf("%s: critical action %q does not use a word that names it (%v)", s.ID, ca.Description, p.names)
			}
		}
		for _, ce := range s.CriticalErrors {
			p := Point{Text: ce.Description, names: matchNames(ce.Match)}
			if !p.namedIn(normalized(p.Text)) {
				t.Errorf("%s: critical error %q does not use a word that names it (%v)", s.ID, ce.Description, p.names)
			}
		}
	}
}

// Indicated emergency treatment for a patient who cannot give a history is credited, and not
// faulted for coming before an allergy history.
func TestRescueIsCreditedNotFaulted(t *testing.T) {
	cases := []struct {
		scenario string
		steps    []step
		credit   string
	}{
		{"opioid-overdose", []step{{30, "jaw thrust and ventilate with the bag valve mask"}, {60, "naloxone 400 mcg IM"}},
			"Naloxone for opioid toxicity — given to a patient who could not give a history (GCS 7)"},
		{"fracture-morphine-allergy", []step{{30, "any allergies?"}, {40, "fentanyl 100 mcg IN"}, {300, "fentanyl 100 mcg IN"},
			{1300, "naloxone 400 mcg IM"}}, "Naloxone for opioid toxicity — given to a patient who could not give a history"},
		{"anaphylaxis", []step{{20, "adrenaline 0.5 mg IM"}}, "IM adrenaline for anaphylaxis — the right emergency treatment"},
	}
	for _, c := range cases {
		t.Run(c.scenario, func(t *testing.T) {
			e, _ := play(t, c.scenario, 30*60, c.steps...)
			r := Of(e)
			plus, delta := strings.Join(r.lines(PointPlus), "\n"), strings.Join(r.lines(PointDelta), "\n")
			if !strings.Contains(plus, c.credit) {
				t.Errorf("plus lacks %q:\n%s", c.credit, plus)
			}
			if strings.Contains(delta, "naloxone given before") || strings.Contains(delta, "epinephrine given before") {
				t.Errorf("a rescue was faulted for coming before the allergy history:\n%s", delta)
			}
		})
	}
	e, _ := play(t, "fracture-morphine-allergy", 21*60, step{30, "any allergies?"}, step{40, "fentanyl 100 mcg IN"}, step{300, "fentanyl 100 mcg IN"})
	if e.State() != "opioid-toxicity" {
		t.Errorf("two fentanyl doses left her %s, want opioid-toxicity", e.State())
	}
}

func TestReportJSON(t *testing.T) {
	e, _ := play(t, "hypoglycaemia", 600, step{30, "BM"}, step{60, "glucagon 1 mg IM"})
	data, err := json.Marshal(Of(e))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"patient_id", "scenario", "presentation", "timeline", "critical_actions", "critical_errors", "score", "debrief", "news2_at_arrival"} {
		if _, ok := m[k]; !ok {
			t.Errorf("report JSON lacks %q", k)
		}
	}
	if !strings.Contains(string(data), `glucose check → 2.1 mmol/L`) {
		t.Errorf("timeline should show the glucose result: %s", data)
	}
}

// Speech follows the ACVPU level of the GCS.
func TestSpeechFollowsConsciousness(t *testing.T) {
	cases := []struct {
		gcs     int
		speech  physio.Speech
		history bool
	}{{15, physio.SpeechTalks, true}, {14, physio.SpeechConfused, true}, {13, physio.SpeechConfused, true}, {12, physio.SpeechWords, false},
		{10, physio.SpeechWords, false}, {9, physio.SpeechSounds, false}, {6, physio.SpeechSounds, false}, {5, physio.SpeechNone, false}, {3, physio.SpeechNone, false}}
	for _, c := range cases {
		if got := physio.SpeechAt(c.gcs); got != c.speech || got.GivesHistory() != c.history {
			t.Errorf("GCS %d: %s (history %v), want %s (%v)", c.gcs, got, got.GivesHistory(), c.speech, c.history)
		}
	}
	if physio.SpeechTalks.Response() != "" || physio.SpeechNone.Response() == "" {
		t.Error("only a patient who cannot talk is described")
	}
}

// Examining her sound left leg is no check of the broken right leg's circulation: the
// neurovascular critical action is met by the right leg's examination only.
func TestTheSoundLimbMeetsNoLimbCheck(t *testing.T) {
	met := func(say string) bool {
		e, _ := play(t, "fracture-morphine-allergy", 120, step{30, say})
		for _, o := range Of(e).CriticalActions {
			if o.ID == "neurovascular" {
				return o.Met
			}
		}
		t.Fatal("no neurovascular critical action")
		return false
	}
	if met("examine her left leg") || !met("examine her right leg") || !met("check the foot's circulation") {
		t.Errorf("neurovascular met: left leg %v, right leg %v, the foot unsided %v",
			met("examine her left leg"), met("examine her right leg"), met("check the foot's circulation"))
	}
}
