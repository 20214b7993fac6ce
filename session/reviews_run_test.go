package session

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ward-sim/ward/session/physio"
)

// Every built-in scenario's review paths, played as a trainee plays them in `ward run`: each
// row's line typed at its time (the clock moved on with /wait), through the analyzer, the
// engine, the Pharmacist's checks and the offline team; the patient goes through the states the
// review says, in its order, and ends where it ends. (Not to the second, nor with its NEWS2:
// ward seeds each patient's noise from the shift's seed and the patient's id, the review from
// its own seed, so a threshold may be crossed a little sooner or later; TestScenarioReviews
// holds the review's columns to the engine row by row.)
func TestRunEveryReviewPath(t *testing.T) {
	t.Parallel() // its own rigs: see sample_test.go
	lib := newRig(t).s.cfg.Scenarios
	for i, s := range lib.List() {
		if !checkedUnderRace(i, 3) {
			continue
		}
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
				if s.Arrest != nil && slices.ContainsFunc(p.Rows, func(r physio.ReviewRow) bool { return r.State == s.Arrest.ROSC }) {
					t.Skip("a return of circulation is drawn from the patient's seed, which ward derives from the shift's; " +
						"TestArrestRunPaths plays the arrests in ward run under a seed of its own")
				}
				r := newRig(t)
				r.turn("/admit patient_1 " + s.ID)
				clock := 0.0
				var want, got []string
				for _, row := range p.Rows {
					if wait := row.At - clock; wait > 0 {
						r.turn(fmt.Sprintf("/wait %ds", int(wait)))
						clock = row.At
					}
					if row.Say != "" {
						r.turn(row.Say)
					}
					want, got = course(want, row.State), course(got, r.engine("patient_1").State())
				}
				if !slices.Equal(got, want) {
					t.Errorf("ward run takes the patient through %v; the review through %v", got, want)
				}
			})
		}
	}
}

// course adds state to the states passed through, unless the patient is still in it.
func course(states []string, state string) []string {
	if n := len(states); n > 0 && states[n-1] == state {
		return states
	}
	return append(states, state)
}
