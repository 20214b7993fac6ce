package physio

import (
	"github.com/ward-sim/ward/session/action"
	sc "github.com/ward-sim/ward/session/scenario"
)

// A drug takes time. Given, it does nothing until its onset by that route (sc.Timing), and its
// effects grow to full strength by its peak and end with its duration; an IV or IO drug given
// while the cannula is still going in starts its course once the access is in. What the drug
// brings about in the scenario (a transition that waits on it, an antidote's reversal) happens
// at its onset too, so the patient's words and the nurse's readings never run ahead of it.

// Pending is an action whose consequences are still to come: they happen at At.
type Pending struct {
	At     int64         `json:"at"`
	Action action.Action `json:"action"`
}

// course is when a given drug (or fluids) starts to act and when it reaches full effect, as
// offsets from now, and how long it acts (0: as long as the scenario says).
func (e *Engine) course(a action.Action) (onset, peak, duration int64) {
	wait := e.accessWait(a)
	if a.Kind != sc.KindMedication {
		return wait, wait, 0
	}
	tm, ok := sc.TimingOf(a.Drug, a.Route)
	if !ok {
		return wait, wait, 0
	}
	return wait + int64(tm.Onset), wait + int64(tm.Peak), int64(tm.Duration)
}

// accessWait is how long a drug or fluid by vein or bone waits for its access to be in: the
// drug's course, the nurse's "drawn up" and the arrest's timing all start from it.
func (e *Engine) accessWait(a action.Action) int64 {
	if a.Kind == sc.KindFluids || a.Route == "IV" || a.Route == "IO" {
		return max(0, e.s.AccessAt-e.s.T)
	}
	return 0
}

// onCourse shapes a drug's scenario effects to its course: none before its onset, full by its
// peak, ended by its duration when the scenario gives none.
func onCourse(effects []sc.Effect, onset, peak, duration int64) []sc.Effect {
	out := make([]sc.Effect, len(effects))
	for i, ef := range effects {
		start := max(int64(ef.Onset), onset)
		ef.Onset = sc.Seconds(start)
		ef.Ramp = sc.Seconds(max(0, peak-start))
		if ef.Duration == 0 && duration > 0 {
			ef.Duration = sc.Seconds(max(1, duration-start))
		}
		out[i] = ef
	}
	return out
}

// later holds a's consequences until at; an action due now has them at once.
func (e *Engine) later(a action.Action, at int64) bool {
	if at <= e.s.T {
		return false
	}
	e.s.Pending = append(e.s.Pending, Pending{At: at, Action: a})
	return true
}

// arrive brings about the consequences of the actions now due: what their drugs reverse, and
// the transitions that wait on them.
func (e *Engine) arrive() {
	if !e.anyDue() {
		return // the usual second: the queue is left as it is rather than copied onto itself
	}
	kept := e.s.Pending[:0]
	for _, p := range e.s.Pending {
		if p.At > e.s.T {
			kept = append(kept, p)
			continue
		}
		e.consequences(p.Action)
	}
	e.s.Pending = kept
}

// anyDue reports whether an action waiting for its time acts by now.
func (e *Engine) anyDue() bool {
	for i := range e.s.Pending {
		if e.s.Pending[i].At <= e.s.T {
			return true
		}
	}
	return false
}

// consequences are what an action brings about once it acts: an antidote's reversal, and the
// transition conditions it meets.
func (e *Engine) consequences(a action.Action) {
	if a.Kind == sc.KindMedication {
		if a.Drug == "epinephrine" {
			e.cancel(sourceAllergy)
		}
		e.reverse(a.Drug)
	}
	e.markSeen(a)
}
