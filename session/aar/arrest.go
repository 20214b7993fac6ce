package aar

import (
	"fmt"
	"slices"

	"github.com/ward-sim/ward/session/physio"
	sc "github.com/ward-sim/ward/session/scenario"
)

// ArrestReview is the After Action Review of a cardiac arrest, against the Resuscitation Council
// UK's Adult ALS guidelines (2021). Times are seconds from the collapse; nil: never done.
type ArrestReview struct {
	Collapse     float64  `json:"collapse"` // seconds since arrival
	Recognised   *float64 `json:"recognised"`
	FirstCPR     *float64 `json:"first_cpr"`
	FirstShock   *float64 `json:"first_shock,omitempty"` // shockable arrests only
	Shockable    bool     `json:"shockable"`             // the first rhythm was VF or pulseless VT
	Fraction     float64  `json:"compression_fraction"`  // of the time since the first compression
	LongestPause float64  `json:"longest_pause"`
	// InstantPauses are the pauses that took no sim time (physio.ArrestRecord): the fraction and
	// the longest pause count sim time, as the engine does, and cannot see them.
	InstantPauses int                 `json:"instant_pauses,omitempty"`
	Shocks        int                 `json:"shocks"`
	Outcome       string              `json:"outcome"`
	Drugs         []DrugTiming        `json:"drugs"`
	Named         []physio.ArrestStep `json:"rhythms_named"`
	Causes        string              `json:"causes"`    // how the reversible causes were dealt with
	CausesOK      bool                `json:"causes_ok"` // considered, and the cause treated if the heart did not restart
	PostROSC      []CareItem          `json:"post_rosc,omitempty"`
	Stop          *StopDecision       `json:"stop,omitempty"`
	Cycles        []Cycle             `json:"cycles"`
	Source        string              `json:"source"`
}

// DrugTiming is one drug given in the arrest and whether it came at the right point.
type DrugTiming struct {
	At float64 `json:"at"` // when it went in, from the collapse
	// Ordered is when it was ordered, from the collapse: before At when it waited for its access.
	Ordered float64 `json:"ordered"`
	Drug    string  `json:"drug"`
	Verdict string  `json:"verdict"` // on time, early, late, wrong rhythm
	Why     string  `json:"why"`
}

// When is when the drug went in, and when it was ordered if it waited for its access.
func (d DrugTiming) When() string {
	if d.Ordered < d.At {
		return fmt.Sprintf("%s (ordered at %s, in once access was)", physio.SimTime(d.At), physio.SimTime(d.Ordered))
	}
	return physio.SimTime(d.At)
}

// CareItem is one part of the care after a return of circulation.
type CareItem struct {
	Item string   `json:"item"`
	At   *float64 `json:"at"` // seconds from ROSC
}

// Cycle is one two-minute cycle: from a rhythm check (or the collapse) to the next.
type Cycle struct {
	N           int       `json:"n"`
	From        float64   `json:"from"`
	To          float64   `json:"to"`
	Rhythm      sc.Rhythm `json:"rhythm"` // at its start
	Compressing float64   `json:"compressing"`
	Events      []string  `json:"events"`
}

// Verdicts of a drug's timing.
const (
	OnTime      = "on time"
	Early       = "early"
	Late        = "late"
	WrongRhythm = "wrong rhythm"
	// AfterROSC is an arrest drug given once the heart had restarted, by infusion: no longer the
	// algorithm's to time, and not faulted; BolusWithPulse is the arrest's bolus given to a
	// perfusing patient on the trainee's override of the Pharmacist.
	AfterROSC      = "after ROSC"
	BolusWithPulse = "bolus with a pulse"
)

// judged reports whether a drug's verdict is the algorithm's fault to find.
func judged(verdict string) bool { return verdict != OnTime && verdict != AfterROSC }

// arrestReview reviews the patient's arrest, or nil when there was none.
func arrestReview(e *physio.Engine) *ArrestReview {
	a := e.Arrest()
	if a == nil {
		return nil
	}
	first := a.Steps[0].Rhythm
	r := &ArrestReview{
		Collapse: since(e, float64(a.Onset)), Recognised: after(a, a.Called), FirstCPR: after(a, a.FirstCPR),
		Shockable: first.Shockable(), LongestPause: float64(a.LongestPause), InstantPauses: a.InstantPauses, Outcome: arrestOutcome(e, a),
		Source: sc.ALS().Sources["RCUK-ALS"],
	}
	if n := a.Compressing + a.HandsOff; n > 0 {
		r.Fraction = float64(a.Compressing) / float64(n)
	}
	shocks := a.StepsOf(physio.StepShock)
	r.Shocks = len(shocks)
	if r.Shockable && len(shocks) > 0 {
		r.FirstShock = after(a, shocks[0].T)
	}
	r.Drugs = append(drugTimings(a, r.Shockable), missedDrugs(a, r.Shockable, arrestEnd(e))...)
	r.Drugs = append(r.Drugs, drugsAfterROSC(e, a)...)
	r.Named = a.StepsOf(physio.StepNamed)
	r.Causes, r.CausesOK = causesReviewed(e, a)
	r.PostROSC = postROSC(e, a)
	r.Stop = stopDecision(e, a)
	r.Cycles = cycles(e, a)
	return r
}

// SimTimeNote says how the compression fraction and the pauses were counted when some pauses took
// no sim time, and is empty when none did.
func (v *ArrestReview) SimTimeNote() string {
	if v.InstantPauses == 0 {
		return ""
	}
	return fmt.Sprintf("counted in sim time: %d pause(s) began and ended in the same sim second (lines typed with the clock paused, or sent at once), so their real length is not measured", v.InstantPauses)
}

// HandsOff is the arrest's time without compressions, seconds, from the collapse to the end of
// its last cycle: what the compression fraction leaves out, before the first compression too.
func (v *ArrestReview) HandsOff() float64 {
	var off float64
	for _, c := range v.Cycles {
		off += c.To - c.From - c.Compressing
	}
	return off
}

// faults reports whether the review faults a drug given at elapsed seconds since arrival (early,
// late, the wrong rhythm or dose), so nothing praises the same dose. A nil review faults nothing.
func (v *ArrestReview) faults(elapsed float64) bool {
	if v == nil {
		return false
	}
	return slices.ContainsFunc(v.Drugs, func(d DrugTiming) bool {
		return d.Ordered == elapsed-v.Collapse && judged(d.Verdict) && d.Verdict != Missed
	})
}

// after is t as seconds from the collapse, or nil for "never".
func after(a *physio.ArrestRecord, t int64) *float64 {
	if t < 0 {
		return nil
	}
	s := float64(t - a.Onset)
	return &s
}

func arrestOutcome(e *physio.Engine, a *physio.ArrestRecord) string {
	switch {
	case a.ROSC >= 0:
		return "ROSC at " + physio.SimTime(float64(a.ROSC-a.Onset)) + " from the collapse"
	case a.Stopped >= 0:
		return "resuscitation stopped at " + physio.SimTime(float64(a.Stopped-a.Onset)) + " from the collapse"
	}
	return "still in arrest at " + physio.SimTime(float64(int64(e.Clock())-a.Onset)) + " from the collapse"
}

// drugTimings judges each adrenaline and amiodarone against the algorithm: in a shockable arrest
// both after the third shock, amiodarone 150 mg after the fifth; adrenaline in a non-shockable
// arrest as soon as there is access; every adrenaline after the first 3–5 minutes after the last.
func drugTimings(a *physio.ArrestRecord, shockable bool) []DrugTiming {
	var out []DrugTiming
	var lastAdrenaline int64 = -1
	amiodarones := 0
	for _, s := range a.Steps {
		if s.What != physio.StepAdrenaline && s.What != physio.StepAmiodarone {
			continue
		}
		in := s.GivenAt() // a drug ordered before its access was in is timed from when it went in
		d := DrugTiming{At: float64(in - a.Onset), Ordered: float64(s.T - a.Onset), Drug: s.What + " " + s.Detail}
		switch {
		case s.What == physio.StepAdrenaline && lastAdrenaline >= 0:
			d.Verdict, d.Why = repeatVerdict(in - lastAdrenaline)
		case s.What == physio.StepAdrenaline && shockable:
			d.Verdict, d.Why = afterShock(a, in, 3)
		case s.What == physio.StepAdrenaline:
			d.Verdict, d.Why = soonAfterAccess(a, in)
		case !shockable:
			d.Verdict, d.Why = WrongRhythm, "amiodarone is for VF or pulseless VT that a shock has not ended"
		default:
			amiodarones++
			d.Verdict, d.Why = afterShock(a, in, 3+2*(amiodarones-1))
		}
		if s.What == physio.StepAdrenaline {
			lastAdrenaline = in
		}
		checkDose(&d, s, amiodarones)
		out = append(out, d)
	}
	return out
}

// drugsAfterROSC are the arrest's drugs given once the heart had restarted: an infusion of
// amiodarone for a tachyarrhythmia that recurs, or a bolus the Pharmacist stopped and the trainee
// gave anyway (RCUK ALS 2021: with a pulse, amiodarone runs in over 10–20 minutes).
func drugsAfterROSC(e *physio.Engine, a *physio.ArrestRecord) []DrugTiming {
	if a.ROSC < 0 {
		return nil
	}
	var out []DrugTiming
	for _, o := range e.Orders() {
		if !o.Given || o.T < float64(a.ROSC) || (o.Drug != "amiodarone" && o.Drug != "epinephrine") {
			continue
		}
		d := DrugTiming{At: o.T - float64(a.Onset), Ordered: o.T - float64(a.Onset), Drug: o.Text(), Verdict: AfterROSC,
			Why: "given with a pulse, run in over time: for a tachyarrhythmia, not the arrest algorithm"}
		if !o.Dose.IsInfusion() {
			d.Verdict, d.Why = BolusWithPulse, "the arrest's bolus given to a perfusing patient, on an override: it risks hypotension and bradycardia"
		}
		out = append(out, d)
	}
	return out
}

// Missed is the verdict on a drug that was due and never given; WrongDose on one given at a
// dose other than the algorithm's.
const (
	Missed    = "missed"
	WrongDose = "wrong dose"
)

// checkDose holds a drug to the algorithm's dose: adrenaline 1 mg each time, amiodarone 300 mg
// and then 150 mg (the nth amiodarone is n). A dose not stated in mg is not judged.
func checkDose(d *DrugTiming, s physio.ArrestStep, n int) {
	if d.Verdict == WrongRhythm {
		return
	}
	want := 1.0
	if s.What == physio.StepAmiodarone {
		want = map[bool]float64{true: 300, false: 150}[n <= 1]
	}
	if s.DoseMg > 0 && s.DoseMg != want {
		d.Verdict, d.Why = WrongDose, fmt.Sprintf("%g mg; the algorithm's dose is %g mg (%s)", s.DoseMg, want, d.Why)
	}
}

// missedDrugs are the drugs that fell due while the arrest went on and were never given:
// adrenaline and amiodarone a cycle after the third shock, adrenaline three minutes after
// access in a non-shockable arrest.
func missedDrugs(a *physio.ArrestRecord, shockable bool, end int64) []DrugTiming {
	var out []DrugTiming
	missed := func(what string, due int64, why string) {
		if due >= 0 && end-due > 150 && len(a.StepsOf(what)) == 0 {
			out = append(out, DrugTiming{At: float64(due - a.Onset), Ordered: float64(due - a.Onset), Drug: what, Verdict: Missed, Why: why})
		}
	}
	shocks := a.StepsOf(physio.StepShock)
	switch {
	case shockable && len(shocks) >= 3:
		missed(physio.StepAdrenaline, shocks[2].T, "due after the third shock")
		missed(physio.StepAmiodarone, shocks[2].T, "due after the third shock")
	case !shockable && a.Access >= 0:
		missed(physio.StepAdrenaline, max(a.Access, a.Onset)+30, "due as soon as there is IV or IO access")
	}
	return out
}

// arrestEnd is when the arrest ended, or now.
func arrestEnd(e *physio.Engine) int64 {
	a := e.Arrest()
	switch {
	case a.ROSC >= 0:
		return a.ROSC
	case a.Stopped >= 0:
		return a.Stopped
	}
	return int64(e.Clock())
}

func repeatVerdict(gap int64) (string, string) {
	why := fmt.Sprintf("%s after the last adrenaline; the guideline says every 3–5 minutes", physio.SimTime(float64(gap)))
	switch {
	case gap < 180:
		return Early, why
	case gap > 300:
		return Late, why
	}
	return OnTime, why
}

// afterShock: due after shock n, and within the cycle that follows it.
func afterShock(a *physio.ArrestRecord, t int64, n int) (string, string) {
	var shocks []physio.ArrestStep
	for _, s := range a.StepsOf(physio.StepShock) {
		if s.T <= t {
			shocks = append(shocks, s)
		}
	}
	if len(shocks) < n {
		return Early, fmt.Sprintf("given after %d shock(s); it is due after shock %d", len(shocks), n)
	}
	gap := t - shocks[n-1].T
	why := fmt.Sprintf("%s after shock %d", physio.SimTime(float64(gap)), n)
	if gap > 150 {
		return Late, why + "; it is due in the cycle after that shock"
	}
	return OnTime, why
}

// soonAfterAccess: in a non-shockable arrest adrenaline is due as soon as there is IV or IO access.
func soonAfterAccess(a *physio.ArrestRecord, t int64) (string, string) {
	from := max(a.Onset, a.Access)
	gap := t - from
	why := fmt.Sprintf("%s after the collapse or the access, whichever came later", physio.SimTime(float64(gap)))
	if gap > 180 {
		return Late, why + "; it is due as soon as there is access"
	}
	return OnTime, why
}

// causesReviewed says how the reversible causes were dealt with, and whether that was enough: a
// cause treated, or considered when the heart restarted before it needed treating (the coronary
// occlusion behind VF is treated after ROSC, in the cath lab).
func causesReviewed(e *physio.Engine, a *physio.ArrestRecord) (string, bool) {
	considered := len(a.StepsOf(physio.StepCauses)) > 0
	c := sc.ALS().Cause(e.Scenario().Arrest.Cause)
	switch {
	case c != nil && a.CauseTreated >= 0:
		return fmt.Sprintf("the cause, %s, was treated at %s", c.Name, physio.SimTime(float64(a.CauseTreated-a.Onset))), true
	case c != nil && considered && a.ROSC >= 0:
		return fmt.Sprintf("the 4 Hs and 4 Ts were considered; the cause, %s, is for after ROSC (%s)", c.Name, c.Treatment), true
	case c != nil && considered:
		return fmt.Sprintf("the 4 Hs and 4 Ts were considered, but the cause, %s, was not treated (it shows as %s; treat with %s)",
			c.Name, c.Findings, c.Treatment), false
	case c != nil:
		return fmt.Sprintf("the reversible causes were not considered; this one was %s (it shows as %s; treat with %s)",
			c.Name, c.Findings, c.Treatment), false
	case considered:
		return "the 4 Hs and 4 Ts were considered", true
	}
	return "the 4 Hs and 4 Ts were not considered", false
}

// postROSCCare are the parts of care after ROSC (RCUK ALS 2021, post-resuscitation care), each
// with the actions that do it.
var postROSCCare = []struct {
	item  string
	kinds []sc.ActionKind
}{
	{"ABCDE reassessment", []sc.ActionKind{sc.KindExamine, sc.KindCheckVitals}},
	{"oxygen titrated to SpO2 94–98 %", []sc.ActionKind{sc.KindTargetSats, sc.KindOxygen, sc.KindVentilate}},
	{"12-lead ECG", []sc.ActionKind{sc.KindECG}},
	{"blood pressure target (systolic above 100 mmHg)", []sc.ActionKind{sc.KindBPTarget}},
	{"temperature control (no fever)", []sc.ActionKind{sc.KindTempControl}},
	{"referral (intensive care, the cath lab)", []sc.ActionKind{sc.KindRefer}},
}

func postROSC(e *physio.Engine, a *physio.ArrestRecord) []CareItem {
	if a.ROSC < 0 {
		return nil
	}
	var out []CareItem
	for _, c := range postROSCCare {
		item := CareItem{Item: c.item}
		for _, act := range e.Actions() {
			if act.T >= float64(a.ROSC) && slices.Contains(c.kinds, act.Kind) {
				at := act.T - float64(a.ROSC)
				item.At = &at
				break
			}
		}
		out = append(out, item)
	}
	return out
}

// StopDecision judges the decision to stop: the guideline considers stopping when asystole has
// lasted more than 20 minutes of ALS with no reversible cause found (RCUK ALS 2021).
type StopDecision struct {
	After  float64   `json:"after"` // seconds of ALS, from the first compression (or collapse)
	Rhythm sc.Rhythm `json:"rhythm"`
	Causes bool      `json:"causes_considered"`
	InLine bool      `json:"in_line"` // with the guideline
	Why    string    `json:"why"`
}

// minALSBeforeStop is the ALS an asystolic arrest is given before stopping is considered.
const minALSBeforeStop = 20 * 60

func stopDecision(e *physio.Engine, a *physio.ArrestRecord) *StopDecision {
	if a.Stopped < 0 {
		return nil
	}
	from := a.Onset
	if a.FirstCPR >= 0 {
		from = a.FirstCPR
	}
	d := &StopDecision{After: float64(a.Stopped - from), Rhythm: a.Rhythm,
		Causes: len(a.StepsOf(physio.StepCauses))+len(a.StepsOf(physio.StepCause)) > 0}
	switch {
	case a.Rhythm.Shockable():
		d.Why = "stopped while the rhythm was still shockable"
	case !d.Causes:
		d.Why = "stopped without going through the reversible causes"
	case d.After < minALSBeforeStop:
		d.Why = fmt.Sprintf("stopped after %s of ALS; the guideline considers stopping after 20 minutes of asystole", physio.SimTime(d.After))
	default:
		d.InLine = true
		d.Why = fmt.Sprintf("stopped after %s of ALS in %s, with the reversible causes considered", physio.SimTime(d.After), a.Rhythm)
	}
	return d
}
