package aar

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ward-sim/ward/session/physio"
)

// A review's paths teach what they say: the treated-well path meets every critical action and
// makes no critical error, the mistreated path makes at least one (or the Pharmacist stops it, a
// near miss), and the untreated patient
// ends no better than they arrived (a patient who arrives in cardiac arrest can score no worse). TestScenarioReviews checks the states and NEWS2 row by row; this
// checks what the debrief would say at the end of each path.
func TestScenarioReviewPathsTeach(t *testing.T) {
	for _, s := range library(t).List() {
		t.Run(s.ID, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "scenario", "builtin", s.ID+".review.md"))
			if err != nil {
				t.Fatal(err)
			}
			paths, errs := physio.ParseReview(string(data))
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			played := map[string]*physio.Engine{}
			for _, p := range paths {
				_, played[p.Name] = physio.PlayPath(s, p, false)
			}
			well := Of(played["Treated well"])
			for _, o := range well.CriticalActions {
				if !o.Met {
					t.Errorf("treated well: critical action %s is not met (%s)", o.ID, o.Rule)
				}
			}
			if len(well.CriticalErrors) > 0 {
				t.Errorf("treated well: critical errors %+v", well.CriticalErrors)
			}
			if m := Of(played["Mistreated"]); len(m.CriticalErrors)+len(m.NearMisses) == 0 {
				t.Errorf("mistreated: no critical error is made, nor stopped as a near miss")
			}
			if u := played["Untreated"]; u.TrueNEWS2().Total < u.Snapshot().NEWS2AtArrival {
				t.Errorf("untreated: NEWS2 %d is better than on arrival (%d)", u.TrueNEWS2().Total, u.Snapshot().NEWS2AtArrival)
			}
		})
	}
}
