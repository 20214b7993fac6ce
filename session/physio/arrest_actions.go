package physio

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/ward-sim/ward/session/action"
	sc "github.com/ward-sim/ward/session/scenario"
)

// ShockNotShockable is the critical error of a shock on a rhythm that is not shockable.
const ShockNotShockable = "shock-not-shockable"

// errCPRWithPulse is the critical error of chest compressions started on a heart that has output.
const errCPRWithPulse = "cpr-with-pulse"

// resumeAfterROSC is how long after a return of circulation compressions are still the algorithm:
// CPR resumes at once after a shock, for two minutes, before anyone checks (RCUK ALS 2021).
const resumeAfterROSC = 120

// DefaultEnergy is the biphasic shock a trainee gets who names no energy: the usual first shock
// of 150–200 J (Resuscitation Council UK, ALS 2021).
const DefaultEnergy = 150

// cprOnAPulse reports whether chest compressions asked for now would fall on a heart the team
// knows to be beating: no arrest, and not the two minutes after the shock that restarted it, when
// the algorithm resumes compressions before anyone checks (so the nurse's word cannot give the
// return of circulation away).
func (e *Engine) cprOnAPulse() bool {
	a := e.s.Arrest
	return !e.inArrest() && (a == nil || e.s.T-a.ROSC > resumeAfterROSC)
}

// arrestAction plays what act does to a cardiac arrest. A shock is judged on any patient: on
// a rhythm that is not shockable it is a critical error. The rest is recorded only while the
// arrest lasts, except the care after a return of circulation, which the review reads from the
// actions themselves.
func (e *Engine) arrestAction(act action.Action, out []Event) []Event {
	if e.s.Arrest == nil && e.Rhythm().Arrest() { // the state changed this second
		e.beginArrest()
	}
	switch act.Kind {
	case sc.KindRhythmCheck, sc.KindAttachMonitor: // pads come with the monitor's action
		out = e.stripEvent(out)
	}
	if act.Kind == sc.KindShock {
		return e.shock(act, out)
	}
	a := e.s.Arrest
	if !a.Active() {
		return out
	}
	switch act.Kind {
	case sc.KindArrestCall:
		e.first(&a.Called, StepCall)
	case sc.KindCPR:
		e.compress(a, act)
	case sc.KindStopCPR:
		e.handsOff(a)
	case sc.KindPads:
		e.first(&a.Pads, StepPads)
	case sc.KindCharge:
		a.Charged = cmp.Or(act.EnergyJ, DefaultEnergy)
		when := "hands off"
		if a.CPR {
			when = "during compressions"
		}
		e.note(StepCharge, fmt.Sprintf("%g J %s", a.Charged, when), a.CPR)
	case sc.KindRhythmCheck, sc.KindPulseCheck:
		return e.check(a, act, out)
	case sc.KindNameRhythm:
		e.note(StepNamed, act.Rhythm, SameRhythm(act.Rhythm, e.Rhythm()))
	case sc.KindCauses:
		e.note(StepCauses, act.Cause, true)
	case sc.KindStopResus:
		a.Stopped, a.CPR = e.s.T, false
		e.note(StepStop, "", true)
	case sc.KindIVAccess: // in when the cannula or needle is, which takes a moment to site
		e.first(&a.Access, StepAccess)
		a.Access = max(a.Access, e.s.AccessAt)
	case sc.KindAirway, sc.KindVentilate:
		if rank := airwayRank(act.Device); rank > airwayRank(a.Airway) {
			a.Airway = act.Device
			e.note(StepAirway, act.Device, true)
		}
	case sc.KindMedication:
		e.arrestDrug(act)
	}
	e.treatCause(a, act)
	return out
}

// first records when something was first done in the arrest.
func (e *Engine) first(at *int64, what string) {
	if *at < 0 {
		*at = e.s.T
		e.note(what, "", true)
	}
}

func (e *Engine) compress(a *ArrestRecord, act action.Action) {
	a.Poor = act.Quality == action.QualityPoor || (act.Rate > 0 && (act.Rate < 100 || act.Rate > 120))
	if a.CPR {
		return
	}
	a.CPR = true
	if a.FirstCPR < 0 {
		a.FirstCPR = e.s.T
	} else if a.PauseFrom == e.s.T {
		a.InstantPauses++
	}
	a.PauseFrom = -1
	e.note(StepCPR, "", true)
}

func (e *Engine) handsOff(a *ArrestRecord) {
	if !a.CPR {
		return
	}
	a.CPR, a.PauseFrom = false, e.s.T
	e.note(StepCPRStop, "", true)
}

// check is a rhythm or pulse check: hands off, and the moment a non-shockable arrest whose cause
// is treated may have restarted. One decision is drawn per two-minute cycle, however many checks
// the trainee makes in it.
func (e *Engine) check(a *ArrestRecord, act action.Action, out []Event) []Event {
	e.handsOff(a)
	what := StepCheck
	if act.Kind == sc.KindPulseCheck {
		what = StepPulse
	}
	e.note(what, "", false)
	if e.Rhythm().Shockable() || (a.Decided >= 0 && e.s.T-a.Decided < 90) {
		return out
	}
	a.Decided = e.s.T
	if e.draw() < e.nonShockableChance(a) {
		a.Steps[len(a.Steps)-1].Detail = "a pulse"
		return e.rosc(a, out)
	}
	return out
}

// shock delivers a shock. On a rhythm that is not shockable it is a critical error and does no
// good; on VF or pulseless VT it ends the arrest with the ALS model's chance.
func (e *Engine) shock(act action.Action, out []Event) []Event {
	r := e.Rhythm()
	a := e.s.Arrest
	energy := act.EnergyJ
	if a != nil {
		energy = cmp.Or(energy, a.Charged)
		a.Charged = 0
	}
	energy = cmp.Or(energy, DefaultEnergy)
	if !r.Shockable() {
		what := "a perfusing rhythm (" + string(r) + ")"
		if r.Arrest() {
			what = string(r) + ", which is not shockable"
		}
		if a.Active() {
			e.note(StepShock, fmt.Sprintf("%g J on %s", energy, what), false)
		}
		return e.criticalError(ShockNotShockable, "a shock delivered on "+what, out)
	}
	if a.Pads < 0 {
		a.Pads = e.s.T
	}
	detail := fmt.Sprintf("%g J", energy)
	if a.CPR {
		detail += " with compressions going: nobody stood clear"
	}
	ok := e.draw() < e.shockChance(a)
	e.note(StepShock, detail, ok)
	if ok {
		return e.rosc(a, out)
	}
	return out
}

// draw is the next seeded uniform number in [0, 1).
func (e *Engine) draw() float64 { return (uniform(&e.s.RNG) + 1) / 2 }

func (e *Engine) shockChance(a *ArrestRecord) float64 {
	if !e.sc.Arrest.CanSurvive() {
		return 0
	}
	m := sc.ALS()
	p := m.ShockChance(float64(e.s.T-a.Onset)) * e.qualityFactor(a)
	if len(a.StepsOf(StepAmiodarone)) > 0 {
		p *= m.Amiodarone
	}
	return min(p, 1)
}

func (e *Engine) nonShockableChance(a *ArrestRecord) float64 {
	if !e.sc.Arrest.CanSurvive() || (e.sc.Arrest.Cause != "" && a.CauseTreated < 0) {
		return 0
	}
	m := sc.ALS()
	p := m.NonShockable * e.qualityFactor(a)
	switch given := a.StepsOf(StepAdrenaline); {
	case len(given) == 0:
		p *= m.NoAdrenaline
	case given[0].GivenAt()-max(a.Onset, a.Access) > 180:
		p *= m.LateAdrenaline
	}
	return p
}

// qualityFactor is what the compressions so far do to a chance: their fraction of the arrest,
// and whether they are poor now. The first minute is the time it takes to recognise an arrest
// and start, and is not held against a shock given within it.
func (e *Engine) qualityFactor(a *ArrestRecord) float64 {
	m := sc.ALS()
	span := e.s.T - a.Onset - 60
	f := 1.0
	if span > 0 {
		f = m.FractionFactor(float64(a.Compressing) / float64(span))
	}
	if a.Poor {
		f *= m.PoorCompressions
	}
	return f
}

// rosc is the return of spontaneous circulation: the scenario's ROSC state, and the sudden rise
// of EtCO2 the capnograph shows.
func (e *Engine) rosc(a *ArrestRecord, out []Event) []Event {
	a.ROSC, a.CPR = e.s.T, false
	e.note(StepROSC, "", true)
	out = e.enter(e.sc.Arrest.ROSC, "return of spontaneous circulation", CauseTrainee, out)
	e.s.Trend[sc.EtCO2] = e.cur.Target(sc.EtCO2)
	return e.stripEvent(out)
}

// arrestDrug records adrenaline and amiodarone given in the arrest.
func (e *Engine) arrestDrug(act action.Action) {
	what := map[string]string{"epinephrine": StepAdrenaline, "amiodarone": StepAmiodarone}[act.Drug]
	if what == "" {
		return
	}
	e.note(what, strings.TrimSpace(act.WrittenDose().String()+" "+act.Route), true)
	step := &e.s.Arrest.Steps[len(e.s.Arrest.Steps)-1]
	step.DoseMg = act.DoseMg
	if wait := e.accessWait(act); wait > 0 {
		step.In = e.s.T + wait
	}
}

// treatCause marks the arrest's reversible cause treated by an action that treats it: one that
// says so, or one the ALS model lists for it.
func (e *Engine) treatCause(a *ArrestRecord, act action.Action) {
	id := e.sc.Arrest.Cause
	c := sc.ALS().Cause(id)
	if c == nil || a.CauseTreated >= 0 {
		return
	}
	treats := act.Kind == sc.KindTreatCause && act.Cause == id
	for _, m := range c.TreatedBy {
		treats = treats || Matches(m, act)
	}
	if treats {
		a.CauseTreated = e.s.T
		e.note(StepCause, c.Name, true)
	}
}

// airwayRank orders the airways: a tracheal tube above a supraglottic airway above a bag and mask.
func airwayRank(device string) int {
	switch device {
	case "ett":
		return 3
	case "sga":
		return 2
	case "bvm":
		return 1
	}
	return 0
}

// SameRhythm reports whether what a trainee said names the rhythm: VF is VF coarse or fine, and
// the words need not be the enum's own ("ventricular fibrillation", "flatline").
func SameRhythm(said string, r sc.Rhythm) bool {
	vf := r == sc.CoarseVF || r == sc.FineVF
	if said == SaidVF {
		return vf
	}
	got, ok := sc.ParseRhythm(said)
	return ok && said != "" && (got == r || vf && (got == sc.CoarseVF || got == sc.FineVF))
}

// SaidVF is VF named without saying coarse or fine, which names either.
const SaidVF = sc.SaidVF

// asDoneNow is what an action is at this moment: in an arrest, looking at the heart's rhythm is a
// rhythm check (no one takes a 12-lead during CPR). Outside one, a rhythm or pulse check stays
// what it is and finds a pulse: it never becomes a 12-lead that names the rhythm.
func (e *Engine) asDoneNow(a action.Action) action.Action {
	if a.Kind == sc.KindECG && e.inArrest() {
		a.Kind = sc.KindRhythmCheck
	}
	return a
}

// arrestResult is what a rhythm or pulse check found at the time it was done. A rhythm check
// finds a trace to read, or a pulse, never a name; a pulse check finds a pulse or none.
func (e *Engine) arrestResult(a ActionRecord) (Result, bool) {
	name, ok := checkNames[a.Kind]
	if !ok {
		return Result{}, false
	}
	// What the check found when it was done; a record kept before that was stored is read from
	// the time, which cannot tell a check from a shock later in its second.
	return Result{T: a.T, Name: name, Value: cmp.Or(a.Found, checkFound(a.Kind, e.pulseAt(int64(a.T))))}, true
}

var checkNames = map[sc.ActionKind]string{sc.KindRhythmCheck: "rhythm check", sc.KindPulseCheck: "pulse check"}

// checkFound is what a pulse or rhythm check finds with or without a pulse. A rhythm check in an
// arrest names no rhythm: the team leader reads it from the monitor.
func checkFound(kind sc.ActionKind, pulse bool) string {
	switch {
	case kind == sc.KindRhythmCheck && pulse:
		return "pulse present — not an arrest"
	case kind == sc.KindRhythmCheck:
		return "hands off; the rhythm is on the monitor for the team leader to read"
	case pulse:
		return "pulse present"
	}
	return "no pulse"
}

// pulseAt reports whether the heart had output at ward second t: not in an arrest, or after its
// return of circulation.
func (e *Engine) pulseAt(t int64) bool {
	a := e.s.Arrest
	if a == nil || t < a.Onset {
		return !e.StateAt(float64(t)).RhythmKind().Arrest()
	}
	return a.ROSC >= 0 && a.ROSC <= t
}
