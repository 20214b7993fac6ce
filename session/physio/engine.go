package physio

import (
	"fmt"
	"math"
	"slices"

	sc "github.com/ward-sim/ward/session/scenario"
)

// Engine plays one patient's scenario. It advances in whole sim seconds, so
// a run depends only on its seed and the sequence of calls, not on how the
// caller slices time. It is not safe for concurrent use.
type Engine struct {
	s   Snapshot
	sc  *sc.Scenario
	cur *sc.State
}

// monitorInterval is how often an attached monitor adds a reading to the log.
const monitorInterval = 60

// jitterAmp bounds the seeded noise on each vital; the noise is a smooth,
// mean-reverting wobble around the trend, never a drift.
var jitterAmp = [sc.NumVitals]float64{
	sc.HR: 1.5, sc.RR: 0.8, sc.SpO2: 0.6, sc.SBP: 2.5, sc.DBP: 2, sc.TempC: 0.05,
	sc.EtCO2: 0.8, sc.Glucose: 0.05,
}

// NewEngine admits a patient to scenario s at ward time now (seconds).
func NewEngine(patientID string, s *sc.Scenario, seed uint64, now float64) *Engine {
	t := int64(math.Floor(now))
	e := &Engine{sc: s, cur: s.State(s.InitialState)}
	e.s = Snapshot{
		PatientID: patientID, Scenario: s.ID, RNG: seed, Admitted: t, T: t,
		State: s.InitialState, StateSince: t, AllergiesAskedAt: -1, NextReading: -1, Attended: -1,
		Seen: make([]bool, s.NumConditions()), HeldSince: make([]int64, s.NumConditions()), AccessAt: -1,
	}
	if s.Access != "" {
		e.s.AccessAt = t
	}
	for v := range e.s.Trend {
		e.s.Trend[v] = e.cur.Target(sc.Vital(v))
	}
	e.s.Entered = e.s.Trend
	for i := range e.s.HeldSince {
		e.s.HeldSince[i] = -1
	}
	e.s.NextObs = t + obsFirst
	if s.Monitoring.Mode == sc.MonitorContinuous {
		e.s.Monitored, e.s.NextReading = true, t
	}
	e.s.States = append(e.s.States, StateChange{T: float64(t), To: s.InitialState, Reason: "arrival", Cause: CauseScript})
	e.s.NEWS2AtArrival = e.TrueNEWS2().Total
	return e
}

// PatientID, Scenario, State and the clocks describe where the engine is.
func (e *Engine) PatientID() string       { return e.s.PatientID }
func (e *Engine) Scenario() *sc.Scenario  { return e.sc }
func (e *Engine) State() string           { return e.s.State }
func (e *Engine) CurrentState() *sc.State { return e.cur }
func (e *Engine) Clock() float64          { return float64(e.s.T) }
func (e *Engine) Elapsed() float64        { return float64(e.s.T - e.s.Admitted) }
func (e *Engine) Admitted() float64       { return float64(e.s.Admitted) }
func (e *Engine) Monitored() bool         { return e.s.Monitored }
func (e *Engine) OnOxygen() bool          { return e.s.OnOxygen }

// AllergiesAsked reports whether the trainee has asked about allergies yet.
func (e *Engine) AllergiesAsked() bool { return e.s.AllergiesAskedAt >= 0 }

// Actions, Readings, SafetyRecords and CriticalErrors are the engine's logs,
// read-only and without copying the whole state as Snapshot does. Each is
// capped at its length, so a caller's append copies instead of writing into
// the engine's spare capacity.
func (e *Engine) Actions() []ActionRecord       { return capped(e.s.Actions) }
func (e *Engine) Readings() []Reading           { return capped(e.s.Readings) }
func (e *Engine) SafetyRecords() []SafetyRecord { return capped(e.s.Safety) }

// StateChanges is the course of states, from the arrival's.
func (e *Engine) StateChanges() []StateChange { return capped(e.s.States) }

// Told lists the topics the patient has answered.
func (e *Engine) Told() []string                { return capped(e.s.Told) }
func (e *Engine) CriticalErrors() []ErrorRecord { return capped(e.s.Errors) }

func capped[T any](s []T) []T { return s[:len(s):len(s)] }

// AdvanceTo steps the engine in whole seconds up to ward time clock and
// appends what happened to out. A closed case has left the ward: its time stands still.
func (e *Engine) AdvanceTo(clock float64, out []Event) []Event {
	end := int64(math.Floor(clock))
	for e.s.T < end && !e.Closed() {
		out = e.step(out)
	}
	return out
}

func (e *Engine) step(out []Event) []Event {
	e.s.T++
	t := e.s.T
	e.expireEffects(t)
	e.arrive()
	var target [sc.NumVitals]float64
	since := float64(t - e.s.StateSince)
	for v := range target {
		target[v] = e.cur.CourseTarget(sc.Vital(v), since)
	}
	for i := range e.s.Effects {
		if ef := &e.s.Effects[i]; ef.From <= t {
			target[ef.Vital] = shifted(target[ef.Vital], ef, t)
		}
	}
	for v := range target {
		e.s.Trend[v] += (target[v] - e.s.Trend[v]) * e.cur.Alpha(sc.Vital(v))
		e.s.Jitter[v] = 0.8*e.s.Jitter[v] + 0.2*jitterAmp[v]*uniform(&e.s.RNG)
	}
	rhythm := e.Rhythm()
	out = e.checkTransitions(out)
	out = e.arrestTick(rhythm, out)
	return e.watch(rhythm, out)
}

// shifted moves a target by an effect without crossing the effect's cap; an
// effect never pulls a target back that is already beyond its cap.
func shifted(x float64, ef *ActiveEffect, t int64) float64 {
	delta := ef.Delta
	if t < ef.Full {
		delta *= float64(t-ef.From) / float64(ef.Full-ef.From)
	}
	y := x + delta
	switch {
	case !ef.HasCap:
		return y
	case ef.Delta > 0 && y > ef.Cap:
		return max(x, ef.Cap)
	case ef.Delta < 0 && y < ef.Cap:
		return min(x, ef.Cap)
	}
	return y
}

// expireEffects drops the effects worn off by t. In most seconds none has, and the list is left
// as it is rather than copied onto itself: the engine steps every patient every second.
func (e *Engine) expireEffects(t int64) {
	for i := range e.s.Effects {
		if e.s.Effects[i].wornOff(t) {
			e.s.Effects = slices.DeleteFunc(e.s.Effects, func(ef ActiveEffect) bool { return ef.wornOff(t) })
			return
		}
	}
}

// wornOff reports whether an effect with an end has reached it by t.
func (ef *ActiveEffect) wornOff(t int64) bool { return ef.Until >= 0 && ef.Until <= t }

// raw is the true state: trend plus noise, within physiological limits.
func (e *Engine) raw() [sc.NumVitals]float64 {
	var r [sc.NumVitals]float64
	for v := range r {
		r[v] = e.rawVital(sc.Vital(v))
	}
	return r
}

// rawVital is one vital of raw, for a caller that reads only a few of them each second.
func (e *Engine) rawVital(v sc.Vital) float64 {
	lim := sc.Range[v]
	return min(max(e.s.Trend[v]+e.s.Jitter[v], lim[0]), lim[1])
}

// TrueVitals is the engine's truth, which the trainee does not see.
func (e *Engine) TrueVitals() Vitals {
	raw := e.raw()
	v := vitalsFrom(&raw, e.sc)
	v.OnOxygen = e.s.OnOxygen
	v.Rhythm = e.cur.Rhythm
	v.Glucose = math.Round(raw[sc.Glucose]*10) / 10
	v.EtCO2 = roundInt(raw[sc.EtCO2])
	e.noOutput(&v)
	return v
}

// TrueNEWS2 scores the true vitals.
func (e *Engine) TrueNEWS2() NEWS2Score {
	return NEWS2(e.TrueVitals(), e.Scale(), e.s.OnOxygen)
}

// Measured is what the trainee can see: live values while a monitor is
// attached, otherwise the last reading taken. ok is false before any.
func (e *Engine) Measured() (r Reading, ok bool) {
	if e.s.Monitored {
		return e.reading(ReadByMonitor), true
	}
	if n := len(e.s.Readings); n > 0 {
		return e.s.Readings[n-1], true
	}
	return Reading{}, false
}

// reading measures now. Rhythm and capnography need the monitor; glucose
// shows its last finger-prick value.
func (e *Engine) reading(source string) Reading {
	raw := e.raw()
	v := vitalsFrom(&raw, e.sc)
	v.OnOxygen = e.s.OnOxygen
	v.Glucose = e.s.LastGlucose
	if e.s.Monitored {
		v.Rhythm = e.cur.Rhythm
	} else {
		v.EtCO2 = 0
	}
	e.noOutput(&v)
	n := NEWS2(v, e.Scale(), e.s.OnOxygen)
	return Reading{T: float64(e.s.T), Vitals: v, NEWS2: n.Total, Parts: n.Parts, Band: n.Band, Scale: n.Scale, Source: source}
}

// measure takes a reading; whoever took it, the nurse's next observation is due at the interval
// its score calls for.
func (e *Engine) measure(source string, out []Event) []Event {
	r := e.reading(source)
	e.s.Readings = append(e.s.Readings, r)
	e.s.NextObs = e.s.T + int64(ObsInterval(r.NEWS2, r.Band))
	return append(out, Event{Kind: EventVitals, PatientID: e.s.PatientID, Reading: r})
}

// checkTransitions updates how long each vital threshold has held, then
// fires the first transition out of the current state whose conditions hold.
func (e *Engine) checkTransitions(out []Event) []Event {
	t := e.s.T
	for _, ti := range e.cur.Outgoing() {
		tr := &e.sc.Transitions[ti]
		for i := range tr.When {
			c, k := &tr.When[i], tr.ConditionIndex(i)
			if c.Vital == "" {
				continue
			}
			if !thresholdMet(c, e.rawVital(c.VitalIndex())) {
				e.s.HeldSince[k] = -1
			} else if e.s.HeldSince[k] < 0 {
				e.s.HeldSince[k] = t
			}
		}
	}
	for _, ti := range e.cur.Outgoing() {
		tr := &e.sc.Transitions[ti]
		if e.transitionHolds(tr) {
			return e.enter(tr.To, transitionReason(tr), e.transitionCause(tr), out)
		}
	}
	return out
}

func thresholdMet(c *sc.Condition, v float64) bool {
	if c.Below != nil {
		return v < *c.Below
	}
	return v > *c.Above
}

func (e *Engine) transitionHolds(tr *sc.Transition) bool {
	all := tr.AllRequired()
	for i := range tr.When {
		ok := e.conditionHolds(&tr.When[i], tr.ConditionIndex(i))
		if ok && !all {
			return true
		}
		if !ok && all {
			return false
		}
	}
	return all
}

func (e *Engine) conditionHolds(c *sc.Condition, k int) bool {
	t := e.s.T
	switch {
	case c.TimeInState != nil:
		return float64(t-e.s.StateSince) >= float64(*c.TimeInState)
	case c.Action != nil, c.Done != nil:
		return e.s.Seen[k]
	}
	held := e.s.HeldSince[k]
	return held >= 0 && float64(t-held) >= float64(c.For)
}

// enter moves to state to. Actions "in this state" and threshold timers
// start afresh; actions "done at any time" are remembered.
func (e *Engine) enter(to, reason, cause string, out []Event) []Event {
	ch := StateChange{T: float64(e.s.T), From: e.s.State, To: to, Reason: reason, Cause: cause}
	e.s.State, e.s.StateSince, e.cur = to, e.s.T, e.sc.State(to)
	e.s.Entered = e.s.Trend
	for i := range e.s.HeldSince {
		e.s.HeldSince[i] = -1
	}
	for ti := range e.sc.Transitions {
		tr := &e.sc.Transitions[ti]
		for i := range tr.When {
			if tr.When[i].Action != nil {
				e.s.Seen[tr.ConditionIndex(i)] = false
			}
		}
	}
	e.s.States = append(e.s.States, ch)
	return append(out, Event{Kind: EventState, PatientID: e.s.PatientID, State: ch})
}

func transitionReason(tr *sc.Transition) string {
	if tr.Reason != "" {
		return tr.Reason
	}
	c := tr.When[0]
	switch {
	case c.TimeInState != nil:
		return fmt.Sprintf("%g s in state", float64(*c.TimeInState))
	case c.Vital != "":
		return fmt.Sprintf("%s threshold held for %g s", c.Vital, float64(c.For))
	}
	return "action taken"
}
