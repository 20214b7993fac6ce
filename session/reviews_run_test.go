package session

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ward-sim/ward/session/physio"
)

// Every built-in scenario's review paths, played as a trainee plays them in `ward run`: each
// row's line typed at its time (the clock moved on with /wait), through the analyzer, the
// engine, the Pharmacist's checks and the offline team; after each row the patient is in the
// state the review says. (Its NEWS2 may differ: ward seeds each patient's noise from the shift's
// seed and the patient's id, the review from its own seed, and a score near a band's edge moves
// with the noise; TestScenarioReviews holds the NEWS2 column to the engine.)
func TestRunEveryReviewPath(t *testing.T) {
	lib := newRig(t).s.cfg.Scenarios
	for _, s := range lib.List() {
		data, err := os.ReadFile(filepath.Join("scenario", "builtin", s.ID+".review.md"))
		if err != nil {
			t.Fatalf("%s: %v", s.ID, err)
		}
		paths, errs := physio.ParseReview(string(data))
		if len(errs) > 0 {
			t.Fatalf("%s: %v", s.ID, errs)
		}
		for _, p := range paths {
			t.Run(s.ID+"/"+p.Name, func(t *testing.T) {
				r := newRig(t)
				r.turn("/admit patient_1 " + s.ID)
				clock := 0.0
				for _, row := range p.Rows {
					if wait := row.At - clock; wait > 0 {
						r.turn(fmt.Sprintf("/wait %ds", int(wait)))
						clock = row.At
					}
					if row.Say != "" {
						r.turn(row.Say)
					}
					e := r.engine("patient_1")
					if state := e.State(); state != row.State {
						t.Errorf("%s %q: ward run has the patient %s; the review says %s", physio.SimTime(row.At), row.Say, state, row.State)
					}
				}
			})
		}
	}
}
