package records

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ward-sim/ward/session/scenario"
)

// Suggestion is one case a trainee's next shift should hold, drawn from what their progress
// shows they miss most, and why.
type Suggestion struct {
	Scenario string   `json:"scenario"`
	Number   int      `json:"number"`                    // the case's number in /scenarios' list, to /admit it
	Action   string   `json:"critical_action,omitempty"` // the critical action it asks for again; "" for a case not yet met
	MissedIn []string `json:"missed_in,omitempty"`       // the cases in which the trainee missed it, oldest first
	Reason   string   `json:"reason"`
}

// NextShiftSize is the most patients a suggested shift holds.
const NextShiftSize = 3

// Spacing. Each critical action the trainee has missed is a weakness, kept in a box as a
// Leitner deck keeps a card: a miss puts it in box 0, and each later case that asks for it and
// sees it done moves it up a box. A weakness in box b rests restShifts[b] shifts after the one
// that last asked for it before it is offered again, so one just done right does not come back
// at once but later; in box len(restShifts) it is learned and no longer offered. A weakness
// missed again is offered at once, in another case.
var restShifts = []int{0, 1, 3}

// weakness is one critical action the trainee has missed, and where its spacing stands.
type weakness struct {
	action     string
	missedIn   []string // the cases it was missed in, each once, oldest first
	lastMissed int      // the patient result it was last missed in, counted from the first
	box        int      // cases that asked for it and saw it done since it was last missed
	askedIn    int      // the shift that last asked for it, counted from the first closed one
}

// due reports whether the weakness is offered after closed shifts: not learned, and rested (the
// shifts after the one that last asked for it are as many as its box asks).
func (w weakness) due(closed int) bool {
	return w.box < len(restShifts) && closed-1-w.askedIn >= restShifts[w.box]
}

// NextShift suggests the next shift's cases: for each weakness due (the critical action missed
// in the most cases first; ties: the one missed most recently), a case that asks for it again,
// away from the cases of the last shift so the weakness comes back in a new setting, the least
// recently played first (the open shift counts as the last); then, while there is room, cases
// the trainee has not played yet, a domain they have not met first, and last the cases played
// least recently. With a curriculum the cases come from it alone. The open shift's results are left out: its cases are still being
// discovered, so no reason may name them.
func (p Progress) NextShift(lib *scenario.Library) []Suggestion {
	var out []Suggestion
	chosen := map[string]bool{}
	pick := func(c *scenario.Scenario, n int, s Suggestion) {
		s.Scenario, s.Number = c.ID, n
		out, chosen[c.ID] = append(out, s), true
	}
	for _, w := range p.dueWeaknesses(lib) {
		if len(out) == NextShiftSize {
			return out
		}
		if c, n := p.bestCase(lib, chosen, func(c *scenario.Scenario) bool { return asksFor(c, w.action) }); c != nil {
			pick(c, n, Suggestion{Action: w.action, MissedIn: w.missedIn, Reason: w.reason()})
		}
	}
	played, met := p.lastPlayed(), p.domainsMet(lib)
	unplayed := func(c *scenario.Scenario) bool { return played[c.ID] == 0 }
	newDomain := func(c *scenario.Scenario) bool {
		return unplayed(c) && slices.ContainsFunc(c.Tags, func(t string) bool { return !met[t] })
	}
	anyCase := func(*scenario.Scenario) bool { return true } // a curriculum played through: the least recent
	for _, fits := range []func(*scenario.Scenario) bool{newDomain, unplayed, anyCase} {
		for len(out) < NextShiftSize {
			c, n := p.bestCase(lib, chosen, fits)
			if c == nil {
				break
			}
			pick(c, n, Suggestion{Reason: p.freshReason(c, met, played)})
			for _, t := range c.Tags {
				met[t] = true // the next new case brings another domain
			}
		}
	}
	return out
}

// bestCase is the case among those the trainee may be offered (the curriculum's, when one is
// set) and not chosen already that fits, earliest by earlier, and its number in the library.
func (p Progress) bestCase(lib *scenario.Library, chosen map[string]bool, fits func(*scenario.Scenario) bool) (*scenario.Scenario, int) {
	played := p.lastPlayed()
	latest := map[string]bool{}
	if n := len(p.Shifts); n > 0 {
		for _, id := range p.Shifts[n-1].Scenarios() {
			latest[id] = true
		}
	}
	best, bestNumber := (*scenario.Scenario)(nil), 0
	for i, c := range lib.List() {
		if chosen[c.ID] || (p.Curriculum != nil && !slices.Contains(p.Curriculum, c.ID)) || !fits(c) {
			continue
		}
		if best == nil || earlier(c.ID, best.ID, latest, played) {
			best, bestNumber = c, i+1
		}
	}
	return best, bestNumber
}

func (w weakness) reason() string {
	r := fmt.Sprintf("you missed the critical action %q in %d case(s) (%s)", w.action, len(w.missedIn), strings.Join(w.missedIn, ", "))
	if w.box > 0 {
		r += fmt.Sprintf(", then did it in %d case(s) since", w.box)
	}
	return r + "; this case asks for it again"
}

// freshReason says why a case that tests no weakness was chosen: a domain not met, a case not
// played, or the time since it was played.
func (p Progress) freshReason(c *scenario.Scenario, met map[string]bool, played map[string]int) string {
	for _, t := range c.Tags {
		if !met[t] {
			return fmt.Sprintf("you have not yet met a case of %s", t)
		}
	}
	if played[c.ID] == 0 {
		return "you have not played this case yet"
	}
	return fmt.Sprintf("you last played this case %d shift(s) ago", len(p.Shifts)+1-played[c.ID])
}

// dueWeaknesses are the weaknesses offered now, the one missed in the most cases first (ties:
// the one missed most recently, then by id).
func (p Progress) dueWeaknesses(lib *scenario.Library) []weakness {
	all, closed := p.weaknesses(lib)
	var due []weakness
	for _, w := range all {
		if w.due(closed) {
			due = append(due, *w)
		}
	}
	slices.SortFunc(due, func(a, b weakness) int {
		return cmp.Or(cmp.Compare(len(b.missedIn), len(a.missedIn)), cmp.Compare(b.lastMissed, a.lastMissed), cmp.Compare(a.action, b.action))
	})
	return due
}

// weaknesses plays the closed shifts in order through the spacing's boxes: each case attempted
// that asks for a critical action misses it (box 0) or does it (a box up, once it was missed
// before). closed is how many closed shifts there are in which the trainee attended a patient.
func (p Progress) weaknesses(lib *scenario.Library) (map[string]*weakness, int) {
	out := map[string]*weakness{}
	closed, n := 0, 0
	for _, s := range p.Shifts {
		if s.Session == p.Open {
			continue
		}
		for _, r := range s.attempted() {
			n++
			for _, id := range r.Missed {
				w := out[id]
				if w == nil {
					w = &weakness{action: id}
					out[id] = w
				}
				if !slices.Contains(w.missedIn, r.Scenario) {
					w.missedIn = append(w.missedIn, r.Scenario)
				}
				w.lastMissed, w.box, w.askedIn = n, 0, closed
			}
			for _, id := range done(lib, r) {
				if w := out[id]; w != nil {
					w.box, w.askedIn = w.box+1, closed
				}
			}
		}
		if len(s.attempted()) > 0 { // a shift in which the trainee did nothing does not space
			closed++
		}
	}
	return out, closed
}

// done are the critical actions a patient's case asked for that the trainee did.
func done(lib *scenario.Library, r PatientResult) []string {
	c, ok := lib.Get(r.Scenario)
	if !ok {
		return nil
	}
	var out []string
	for _, a := range c.CriticalActions {
		if !slices.Contains(r.Missed, a.ID) {
			out = append(out, a.ID)
		}
	}
	return out
}

// domainsMet are the domains (tags) of the cases the trainee has played.
func (p Progress) domainsMet(lib *scenario.Library) map[string]bool {
	met := map[string]bool{}
	for id := range p.lastPlayed() {
		if c, ok := lib.Get(id); ok {
			for _, t := range c.Tags {
				met[t] = true
			}
		}
	}
	return met
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

// NextShiftID names the suggested next shift where a shift is chosen (ward --shift next, the
// start dialog): the shift that starts holds the cases NextShift suggests then.
const NextShiftID = "next"

// ErrNothingToSuggest: the library (or the curriculum) has no case to offer.
var ErrNothingToSuggest = errors.New("no case to suggest for the next shift; choose a shift")

// Roster is the suggested next shift as a roster to start: a patient for each case suggested, in
// the case's own bed or the next free one.
func (p Progress) Roster(lib *scenario.Library) (scenario.Shift, error) {
	sh := scenario.Shift{ID: NextShiftID, Title: "Your next shift"}
	if len(p.Next) == 0 {
		return sh, ErrNothingToSuggest
	}
	beds := map[string]bool{}
	for i, n := range p.Next {
		c, _ := lib.Get(n.Scenario) // NextShift chose it from lib
		bed := scenario.FreeBed(c.Demographics.Bed, beds)
		beds[bed] = true
		sh.Patients = append(sh.Patients, scenario.ShiftPatient{ID: fmt.Sprintf("patient_%d", i+1), Scenario: n.Scenario, Bed: bed})
	}
	return sh, nil
}
