package physio

import (
	"testing"

	"github.com/ward-sim/ward/session/action"
	sc "github.com/ward-sim/ward/session/scenario"
)

// Every GCS total has a breakdown whose parts are in range and add up to it.
func TestGCSPartsAddUp(t *testing.T) {
	for gcs := 3; gcs <= 15; gcs++ {
		e, v, m := gcsParts(gcs)
		if e < 1 || e > 4 || v < 1 || v > 5 || m < 1 || m > 6 || e+v+m != gcs {
			t.Errorf("GCS %d → E%d V%d M%d", gcs, e, v, m)
		}
	}
}

// An examination's GCS is the engine's: a state's written breakdown that no longer adds up to
// the patient's GCS is rewritten, the rest of its words kept.
func TestFindingGivesTheEnginesGCS(t *testing.T) {
	if got := withGCS("E3 V4 M5 (12), confused", 11); got != "E3 V3 M5 (11), confused" {
		t.Errorf("rewritten to %q", got)
	}
	if got := withGCS("E4 V5 M6", 15); got != "E4 V5 M6" {
		t.Errorf("a GCS that adds up was changed to %q", got)
	}
	e := NewEngine("patient_1", scenario(t, "anaphylaxis"), 1, 0)
	for _, at := range []float64{60, 10 * 60, 30 * 60, 40 * 60, 50 * 60} {
		e.AdvanceTo(at, nil)
		p := gcsWords.FindStringSubmatch(e.finding("gcs"))
		if p == nil {
			t.Fatalf("at %g the GCS finding %q writes no breakdown", at, e.finding("gcs"))
		}
		if sum := int(p[1][0]-'0') + int(p[2][0]-'0') + int(p[3][0]-'0'); sum != e.TrueVitals().GCS {
			t.Errorf("at %g the GCS finding %q adds up to %d, the engine has %d", at, p[0], sum, e.TrueVitals().GCS)
		}
	}
}

// Every built-in scenario answers every examination the lexicon can ask for, in every state:
// each region's phrase parses to that examination, and its finding is never empty.
func TestEveryScenarioAnswersEveryExamination(t *testing.T) {
	for _, s := range library(t).List() {
		e := NewEngine("patient_1", s, 1, 0)
		for _, region := range sc.Regions {
			for name := range s.States {
				if s.State(name).Finding(region) == "" {
					t.Errorf("%s in %s finds nothing for %s", s.ID, name, region)
				}
			}
			if e.finding(region) == "" {
				t.Errorf("%s finds nothing for %s", s.ID, region)
			}
		}
	}
	for _, phrase := range []string{"check the trachea", "listen to the chest", "check his GCS", "look at the skin",
		"examine the airway", "check cap refill", "feel the pulses", "examine him", "check the pupils"} {
		if as := action.Parse(phrase); len(as) == 0 || as[0].Kind != sc.KindExamine && as[0].Kind != sc.KindPupils {
			t.Errorf("%q parses to %+v, want an examination", phrase, as)
		}
	}
}
