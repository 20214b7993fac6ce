package aar

import (
	"fmt"

	"github.com/ward-sim/ward/session/physio"
)

// Trajectory is the stretch of the case the NEWS2 trajectory is judged on: from the first
// measured score to the last; or, after a change of state the trainee did not cause (the case's
// script, the instructor's injection), from where that change took the patient to the last score
// measured since. Where it took them is the worse of the NEWS2 the new state's values lead to and
// the first score measured after it, so the vitals still settling into a scripted arrest or an
// injected deterioration are not charged as the trainee's.
type Trajectory struct {
	From *ScoreAt `json:"from,omitempty"` // nil: never measured (since the change)
	To   *ScoreAt `json:"to,omitempty"`
	// Since is the change the trainee did not cause that the stretch starts from; nil: arrival.
	Since   *physio.StateChange `json:"since,omitempty"`
	SinceAt float64             `json:"since_at,omitempty"` // seconds since arrival of Since
	// Judged: From and To are two points to compare (readings of two moments, or a change and a
	// reading).
	Judged bool `json:"judged"`
}

func trajectory(e *physio.Engine) Trajectory {
	var tr Trajectory
	readings := e.Readings()
	if ch := lastUncharged(e); ch != nil {
		tr.Since, tr.SinceAt = ch, since(e, ch.T)
		readings = readingsFrom(readings, ch.T)
	}
	if len(readings) == 0 {
		return tr
	}
	last := readings[len(readings)-1]
	tr.From, tr.To = scoreAt(e, readings[0]), scoreAt(e, last)
	tr.Judged = readings[0].T < last.T // two moments: a check in the nurse's second is one (physio.Moments)
	if tr.Since != nil {
		if led := e.NEWS2At(e.Scenario().State(tr.Since.To), last.OnOxygen); led.Total > tr.From.Total {
			tr.From = &ScoreAt{Elapsed: tr.SinceAt, NEWS2Score: led, Text: led.String()}
		}
		tr.Judged = true
	}
	return tr
}

// readingsFrom are the readings taken at ward time t or later: a change's own second counts, as
// the engine moves state before it measures.
func readingsFrom(rs []physio.Reading, t float64) []physio.Reading {
	for i, r := range rs {
		if r.T >= t {
			return rs[i:]
		}
	}
	return nil
}

// Improved, Worsened: how the last score compares with the first.
func (t Trajectory) Improved() bool { return t.Judged && t.To.Total < t.From.Total }
func (t Trajectory) Worsened() bool { return t.Judged && t.To.Total > t.From.Total }

// String says what was compared: "NEWS2 4 low (Scale 1) when first measured, NEWS2 2 low
// (Scale 1) when last measured", or from where a change the trainee did not cause took them.
func (t Trajectory) String() string {
	switch {
	case t.From == nil && t.Since != nil:
		return "not measured since " + t.sinceText()
	case t.From == nil:
		return "never measured"
	case !t.Judged:
		return fmt.Sprintf("measured only once (%s)", t.From.Text)
	case t.Since != nil:
		return fmt.Sprintf("%s after %s, %s when last measured", t.From.Text, t.sinceText(), t.To.Text)
	}
	return fmt.Sprintf("%s when first measured, %s when last measured", t.From.Text, t.To.Text)
}

// sinceText names the change the trainee did not cause: "the case's script at 00:30
// (palpitations → vf-arrest)".
func (t Trajectory) sinceText() string {
	return fmt.Sprintf("%s at %s (%s → %s)", t.Since.CauseWords(), physio.SimTime(t.SinceAt), t.Since.From, t.Since.To)
}

// lastUncharged is the last change of state after arrival the trainee did not cause (the
// script's or the instructor's), or nil.
func lastUncharged(e *physio.Engine) *physio.StateChange {
	changes := e.StateChanges()
	for i := len(changes) - 1; i > 0; i-- {
		if c := changes[i]; !c.Chargeable() {
			return &c
		}
	}
	return nil
}
