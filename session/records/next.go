package records

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ward-sim/ward/session/scenario"
)

// Suggestion is the case a trainee's next shift should hold, drawn from what their progress
// shows they miss most, and why.
type Suggestion struct {
	Scenario string   `json:"scenario"`
	Number   int      `json:"number"`          // the case's number in /scenarios' list, to /admit it
	Action   string   `json:"critical_action"` // the critical action it asks for again
	MissedIn []string `json:"missed_in"`       // the cases in which the trainee missed it, oldest first
	Reason   string   `json:"reason"`
}

// Suggest suggests a case for the next shift: one that asks again for the critical action the
// trainee has missed in the most cases (ties: the one missed most recently), chosen among the
// library's cases that ask for it, away from the cases of their last shift so the weakness comes
// back in a new setting, and the least recently played first (the open shift counts as the
// last). ok is false when nothing was
// missed, or no case asks for it again.
func (p Progress) Suggest(lib *scenario.Library) (s Suggestion, ok bool) {
	missed, last := p.misses()
	action := ""
	for id, cases := range missed {
		if action == "" || len(cases) > len(missed[action]) ||
			(len(cases) == len(missed[action]) && (last[id] > last[action] || (last[id] == last[action] && id < action))) {
			action = id
		}
	}
	if action == "" {
		return s, false
	}
	played := p.lastPlayed()
	latest := map[string]bool{}
	if n := len(p.Shifts); n > 0 {
		for _, id := range p.Shifts[n-1].Scenarios() {
			latest[id] = true
		}
	}
	best, bestNumber := (*scenario.Scenario)(nil), 0
	for i, c := range lib.List() {
		if !asksFor(c, action) {
			continue
		}
		if best == nil || earlier(c.ID, best.ID, latest, played) {
			best, bestNumber = c, i+1
		}
	}
	if best == nil {
		return s, false
	}
	cases := missed[action]
	return Suggestion{Scenario: best.ID, Number: bestNumber, Action: action, MissedIn: cases,
		Reason: fmt.Sprintf("you missed the critical action %q in %d case(s) (%s); this case asks for it again",
			action, len(cases), strings.Join(cases, ", "))}, true
}

// misses is, by critical action, the cases in which the trainee missed it (each once, oldest
// first), and the index of the patient result in which each was last missed; the open shift's
// cases are left out.
func (p Progress) misses() (map[string][]string, map[string]int) {
	missed, last := map[string][]string{}, map[string]int{}
	n := 0
	for _, s := range p.Shifts {
		if s.Session == p.Open {
			continue
		}
		for _, r := range s.attempted() {
			n++
			for _, id := range r.Missed {
				if !slices.Contains(missed[id], r.Scenario) {
					missed[id] = append(missed[id], r.Scenario)
				}
				last[id] = n
			}
		}
	}
	return missed, last
}

// lastPlayed is, by case, the number of the shift it was last played in (1 is the oldest).
func (p Progress) lastPlayed() map[string]int {
	out := map[string]int{}
	for i, s := range p.Shifts {
		for _, id := range s.Scenarios() {
			out[id] = i + 1
		}
	}
	return out
}

// earlier reports whether case a should come before case b: one not in the last shift first,
// then the one played least recently (never played: first of all).
func earlier(a, b string, latest map[string]bool, played map[string]int) bool {
	if latest[a] != latest[b] {
		return !latest[a]
	}
	return played[a] < played[b]
}

func asksFor(s *scenario.Scenario, action string) bool {
	return slices.ContainsFunc(s.CriticalActions, func(c scenario.CriticalAction) bool { return c.ID == action })
}
