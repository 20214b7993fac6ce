package records

import (
	"fmt"
	"slices"

	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session/aar"
	"github.com/ward-sim/ward/session/scenario"
)

// What the Preceptor knows of a trainee's earlier shifts: the findings that came back in more
// than one of them ("points lost for: allergies asked before medication" in two of the last
// three shifts), so the debrief can say it is a pattern, not a slip.

// recentShifts is how far back the Preceptor looks: far enough to see a habit, near enough
// that an old one the trainee has mended is not raised again.
const recentShifts = 5

// findings are what cost points in one review, worded the same in every shift so they can be
// compared: each critical error, each critical action not met, and each part of the score that
// gave less than its weight.
func findings(r aar.Report) []string {
	var out []string
	add := func(f string) {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	critical := map[string]bool{"critical actions": true}
	for _, er := range r.CriticalErrors {
		add("critical error: " + er.Description)
	}
	for _, o := range r.CriticalActions {
		critical[o.Description] = true
		if !o.Met {
			add(o.Description + " — not done in time")
		}
	}
	for _, l := range r.Score.Breakdown {
		if l.Max > 0 && l.Points < l.Max && !critical[l.Item] {
			add("points lost for: " + l.Item)
		}
	}
	for _, p := range r.Score.Parts {
		if p.Name != aar.PartActions && p.Points < p.Max {
			add("points lost for: the " + p.Name)
		}
	}
	return out
}

// Recurring are the findings that came back in at least two of the trainee's last shifts
// before this one, each saying in how many.
func Recurring(store *persist.Store, lib *scenario.Library, trainee, current string) ([]string, error) {
	sessions, err := store.Sessions()
	if err != nil {
		return nil, err
	}
	sessions = slices.DeleteFunc(sessions, func(info persist.SessionInfo) bool {
		return info.Trainee != trainee || info.ID == current
	})
	results, err := shiftResults(store, lib, sessions[max(len(sessions)-recentShifts, 0):])
	return recurringIn(results), err
}

// recurringIn are the findings that came back in at least two of the shifts, each saying in
// how many, in the order they first appeared.
func recurringIn(results []ShiftResult) []string {
	count := map[string]int{}
	var order []string
	for _, r := range results {
		var seen []string
		for _, p := range r.Patients {
			for _, f := range p.Findings {
				if !slices.Contains(seen, f) {
					seen = append(seen, f)
				}
			}
		}
		for _, f := range seen {
			if count[f] == 0 {
				order = append(order, f)
			}
			count[f]++
		}
	}
	var out []string
	for _, f := range order {
		if count[f] >= 2 {
			out = append(out, fmt.Sprintf("%s (in %d of the last %d shifts)", f, count[f], len(results)))
		}
	}
	return out
}
