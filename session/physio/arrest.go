package physio

import (
	"slices"

	sc "github.com/ward-sim/ward/session/scenario"
)

// ArrestRecord is a cardiac arrest as the engine plays it and the review reads it: when the
// heart stopped, the rhythm now, the compressions and the pauses between them, and every step of
// the algorithm in order (Steps). Times are ward seconds; -1 is "not yet".
type ArrestRecord struct {
	Onset  int64     `json:"onset"`
	Rhythm sc.Rhythm `json:"rhythm"` // while the arrest lasts; it may decay (coarse VF → fine VF → asystole)
	Called int64     `json:"called"` // the arrest recognised and help called
	// CPR is whether compressions are going on now; Poor whether they were stated too slow,
	// too fast or too shallow.
	CPR  bool `json:"cpr"`
	Poor bool `json:"poor,omitempty"`
	// FirstCPR is the first compression; Compressing and HandsOff the seconds since then with
	// and without; PauseFrom the start of the pause now (-1 while compressing); LongestPause
	// the longest pause.
	FirstCPR     int64 `json:"first_cpr"`
	Compressing  int64 `json:"compressing"`
	HandsOff     int64 `json:"hands_off"`
	PauseFrom    int64 `json:"pause_from"`
	LongestPause int64 `json:"longest_pause"`
	// InstantPauses counts the pauses that took no sim time: hands off and on again in the same
	// sim second (lines typed with the clock paused, or sent at once), which no timer can measure.
	InstantPauses int          `json:"instant_pauses,omitempty"`
	NoFlow        float64      `json:"no_flow"` // weighted seconds without flow, for the rhythm's decay
	Pads          int64        `json:"pads"`
	Charged       float64      `json:"charged,omitempty"` // joules charged and not yet delivered
	Access        int64        `json:"access"`            // IV or IO access in
	Airway        string       `json:"airway,omitempty"`  // the most advanced airway in: bvm, sga, ett
	CauseTreated  int64        `json:"cause_treated"`
	ROSC          int64        `json:"rosc"`
	Stopped       int64        `json:"stopped"` // resuscitation stopped: the patient has died
	Decided       int64        `json:"decided"` // the last check at which the heart could have restarted
	Steps         []ArrestStep `json:"steps"`
}

// ArrestStep is one thing the algorithm did or found, at ward time T, with the true rhythm then.
type ArrestStep struct {
	T      int64     `json:"t"`
	What   string    `json:"what"` // one of the Step* kinds
	Rhythm sc.Rhythm `json:"rhythm"`
	Detail string    `json:"detail,omitempty"`
	OK     bool      `json:"ok,omitempty"`      // a shock that worked, a rhythm named right
	DoseMg float64   `json:"dose_mg,omitempty"` // a drug's dose, as the formulary reads it
	// In is when a drug ordered while its IV or IO access was still being sited goes in; 0 when it
	// went in as it was ordered.
	In int64 `json:"in,omitempty"`
}

// GivenAt is when the step's drug went in: ordered at T, or at In once its access was in.
func (s ArrestStep) GivenAt() int64 { return max(s.T, s.In) }

// Kinds of ArrestStep.
const (
	StepCollapse   = "collapse"
	StepCall       = "arrest call"
	StepCPR        = "compressions started"
	StepCPRStop    = "compressions stopped"
	StepPads       = "pads on"
	StepCharge     = "charged"
	StepShock      = "shock"
	StepCheck      = "rhythm check"
	StepPulse      = "pulse check"
	StepAdrenaline = "adrenaline"
	StepAmiodarone = "amiodarone"
	StepNamed      = "rhythm named"
	StepCauses     = "causes considered"
	StepCause      = "cause treated"
	StepAccess     = "IV/IO access"
	StepAirway     = "airway"
	StepDecay      = "rhythm changed"
	StepROSC       = "ROSC"
	StepStop       = "resuscitation stopped"
)

func (a *ArrestRecord) clone() *ArrestRecord {
	if a == nil {
		return nil
	}
	c := *a
	c.Steps = slices.Clone(a.Steps)
	return &c
}

// Active reports whether the heart is stopped and the team is still working.
func (a *ArrestRecord) Active() bool { return a != nil && a.ROSC < 0 && a.Stopped < 0 }

// Arrest is the patient's cardiac arrest record, or nil if they have not arrested.
func (e *Engine) Arrest() *ArrestRecord { return e.s.Arrest.clone() }

// Rhythm is the true rhythm now: the arrest's own while it lasts, else the state's.
func (e *Engine) Rhythm() sc.Rhythm {
	if a := e.s.Arrest; a != nil && a.ROSC < 0 {
		return a.Rhythm
	}
	return e.cur.RhythmKind()
}

// inArrest reports whether the heart has no output now: routes kept for an arrest are open.
func (e *Engine) inArrest() bool { return e.Rhythm().Arrest() }

// CPRGoing reports whether chest compressions are going on now.
func (e *Engine) CPRGoing() bool { return e.s.Arrest.Active() && e.s.Arrest.CPR }

// note adds a step to the arrest's record, with the true rhythm now.
func (e *Engine) note(s string, detail string, ok bool) {
	a := e.s.Arrest
	a.Steps = append(a.Steps, ArrestStep{T: e.s.T, What: s, Rhythm: e.Rhythm(), Detail: detail, OK: ok})
}

// arrestTick keeps a second of the arrest: it starts one when the state's rhythm has no output,
// counts compressions and pauses, and lets the rhythm decay without flow. When the rhythm on the
// monitor is no longer the one it was (before, at the start of the second) the monitor's strip is
// reported. It allocates nothing unless something changes.
func (e *Engine) arrestTick(before sc.Rhythm, out []Event) []Event {
	e.keepArrest()
	if e.Rhythm() != before {
		out = e.stripEvent(out)
	}
	return out
}

func (e *Engine) keepArrest() {
	e.s.Beat += float64(e.monitorRate()) / 60
	a := e.s.Arrest
	if (a == nil || a.ROSC >= 0) && e.cur.RhythmKind().Arrest() {
		e.beginArrest()
		return
	}
	if !a.Active() {
		return
	}
	t := e.s.T
	if e.followState(a) {
		return
	}
	switch {
	case a.CPR:
		a.Compressing++
	case a.FirstCPR >= 0:
		a.HandsOff++
		a.LongestPause = max(a.LongestPause, t-a.PauseFrom)
	}
	m := sc.ALS()
	if a.CPR {
		a.NoFlow += 1 / m.NoFlow.WithCPR
	} else {
		a.NoFlow++
	}
	switch {
	case a.Rhythm == sc.CoarseVF && a.NoFlow >= float64(m.NoFlow.FineVF):
		a.Rhythm = sc.FineVF
		e.note(StepDecay, "VF has become fine", false)
	case a.Rhythm == sc.FineVF && a.NoFlow >= float64(m.NoFlow.Asystole):
		a.Rhythm = sc.Asystole
		e.note(StepDecay, "VF has decayed to asystole", false)
	}
}

func (e *Engine) beginArrest() {
	e.s.Arrest = &ArrestRecord{
		Onset: e.s.T, Rhythm: e.cur.RhythmKind(), Called: -1, FirstCPR: -1, PauseFrom: e.s.T, Pads: -1,
		Access: -1, CauseTreated: -1, ROSC: -1, Stopped: -1, Decided: -1,
	}
	if e.s.AccessAt >= 0 { // a cannula sited before the arrest, or on its way
		e.s.Arrest.Access = e.s.AccessAt
	}
	e.note(StepCollapse, "", false)
}

// monitorRate is the rate of the complexes on the monitor, which the strip draws.
func (e *Engine) monitorRate() int {
	switch r := e.Rhythm(); {
	case r == sc.PulselessVT || r == sc.VT:
		return max(roundInt(e.s.Trend[sc.HR]), 160)
	case r == sc.CoarseVF || r == sc.FineVF || r == sc.Asystole:
		return 0
	}
	return max(roundInt(e.s.Trend[sc.HR]), 20)
}

// noOutput is what a heart with no output shows: no pulse, no blood pressure, no saturation the
// probe can read, GCS 3, agonal gasps for a minute or two and then none unless someone ventilates,
// and an EtCO2 that follows the compressions.
func (e *Engine) noOutput(v *Vitals) {
	if !e.Rhythm().Arrest() {
		return
	}
	a := e.s.Arrest
	if a == nil { // found in arrest, before the engine's first second
		a = &ArrestRecord{Onset: e.s.T}
	}
	v.HR, v.SBP, v.DBP, v.SpO2, v.GCS, v.AVPU, v.NoOutput = 0, 0, 0, 0, 3, "U", true
	switch {
	case a.Airway != "" && a.CPR:
		v.RR = 10
	case e.s.T-a.Onset < 90 && e.witnessed():
		v.RR = 4 // agonal gasps
	default:
		v.RR = 0
	}
	m := sc.ALS()
	co2 := m.EtCO2.None
	if a.CPR && a.Poor {
		co2 = m.EtCO2.Poor
	} else if a.CPR {
		co2 = m.EtCO2.Good
	}
	if v.EtCO2 > 0 || e.s.Monitored {
		v.EtCO2 = roundInt(co2 + e.s.Jitter[sc.EtCO2])
	}
	v.Rhythm = ""
}

// StepsOf returns the arrest's steps of one kind, oldest first.
func (a *ArrestRecord) StepsOf(what string) []ArrestStep {
	var out []ArrestStep
	for _, s := range a.Steps {
		if s.What == what {
			out = append(out, s)
		}
	}
	return out
}

// ArrestedAt reports whether the heart was stopped and the team working at ward second t.
func (e *Engine) ArrestedAt(t int64) bool {
	a := e.s.Arrest
	return a != nil && t >= a.Onset && (a.ROSC < 0 || t < a.ROSC) && (a.Stopped < 0 || t < a.Stopped)
}

// witnessed reports whether the arrest happened in front of the team, rather than being how the
// patient was found: only then are there agonal gasps to see.
func (e *Engine) witnessed() bool { return !e.sc.State(e.sc.InitialState).RhythmKind().Arrest() }

// followState keeps the arrest with the scenario's own course: a transition out of the arrest
// state into one with output is a return of circulation, and into another arrest state sets its
// rhythm. It reports whether the arrest ended.
func (e *Engine) followState(a *ArrestRecord) bool {
	r := e.cur.RhythmKind()
	switch {
	case !r.Arrest():
		a.ROSC, a.CPR = e.s.T, false
		e.note(StepROSC, "in the case's own course", true)
		return true
	case e.s.StateSince == e.s.T && r != a.Rhythm:
		a.Rhythm = r
		e.note(StepDecay, "the case moved on", false)
	}
	return false
}
