package physio

import (
	"fmt"
	"math"

	"github.com/ward-sim/ward/session/action"
	sc "github.com/ward-sim/ward/session/scenario"
)

// Effect sources. Oxygen effects last while that oxygen is running; allergy
// effects are reversed by adrenaline.
const (
	sourceOxygen    = "oxygen"
	sourceAllergy   = "allergy"
	sourceReaction  = "reaction"
	sourceTreatment = "treatment"
)

// Apply performs one action now and returns what followed: the action itself, measurements,
// safety findings, critical errors and any state change. Anything the trainee does for the
// patient reviews the alarms and escalations waiting on them, including one their own action
// sets off.
//
// A medication order is checked first (checkOrder). The Pharmacist stops an order over its
// maximum dose, by a wrong route, or against an allergy or contraindication the trainee knows
// of, and it is not given unless the trainee overrides the stop; then the body responds, and the
// override is a critical error. An order that cannot be dosed as written gets a question back
// and nothing is given. An allergy nobody asked about does not stop the order: the drug is given
// and the reaction plays out, and that is the lesson.
func (e *Engine) Apply(a action.Action) []Event {
	if e.Closed() {
		return nil // the patient has left the ward
	}
	a = e.asDoneNow(a)
	t := e.s.T
	var out []Event
	order := OrderRecord{Fraction: 1}
	if a.Kind == sc.KindMedication {
		var findings []Finding
		a, order, findings = e.checkOrder(a)
		if out = e.recordOrder(order, findings, out); !order.Given {
			e.reviewed()
			return out
		}
	}
	if a.Kind == sc.KindFluids && a.Dose.PerKg { // "10 mL/kg": the volume at this patient's weight
		a.VolumeML = math.Round(a.Dose.Amount * e.doseContext().Weight())
	}
	if a.Kind == sc.KindFluids && e.s.AccessAt < 0 {
		e.reviewed()
		return e.recordOrder(e.fluidsRefused(a), nil, out)
	}
	if a.Kind == sc.KindCPR && e.cprOnAPulse() {
		e.reviewed()
		out = e.criticalError(errCPRWithPulse, "chest compressions asked for on a patient with a pulse", out)
		return e.recordOrder(e.compressionsRefused(), nil, out)
	}
	if a.Kind == sc.KindIVAccess {
		e.siteAccess(&a)
	}
	if a.Kind == sc.KindTargetSats {
		if why := e.prescribeTarget(a); why != "" {
			e.reviewed()
			return e.recordOrder(OrderRecord{T: float64(t), Drug: "target saturation", Verdict: sc.DoseAsk,
				Rule: RuleRouteRefused, Refused: true, Say: why}, nil, out)
		}
	}
	rec := ActionRecord{T: float64(t), Action: a, GCS: e.TrueVitals().GCS}
	wrong := e.wrongSide(a)
	rec.WrongSide = wrong != "" || e.soundLimb(a)
	if a.Kind == sc.KindIVAccess {
		rec.AccessIn = float64(e.s.AccessAt)
	}
	if wait := e.accessWait(a); wait > 0 {
		rec.InAt = float64(t + wait)
	}
	if a.Kind == sc.KindTargetSats {
		rec.Scale = e.Scale()
	}
	switch a.Kind {
	case sc.KindMedication:
		rec.AllergiesAsked = e.AllergiesAsked()
	case sc.KindAsk:
		if a.Topic == topicAllergies && !e.AllergiesAsked() {
			e.s.AllergiesAskedAt = t
		}
		e.hear(a.Topic)
	case sc.KindExamine, sc.KindPupils:
		rec.Found = e.examined(a)
	case sc.KindPulseCheck, sc.KindRhythmCheck:
		rec.Found = checkFound(a.Kind, e.pulseAt(t)) // before a shock later in this second
	case sc.KindGlucoseCheck:
		raw := e.raw()
		rec.Glucose = math.Round(raw[sc.Glucose]*10) / 10
		e.s.LastGlucose = rec.Glucose
	}
	e.s.Actions = append(e.s.Actions, rec)
	out = append(out, Event{Kind: EventAction, PatientID: e.s.PatientID, Action: rec})
	if wrong != "" { // done on the healthy side, it treats nothing
		e.reviewed()
		return e.checkTransitions(e.criticalError(errWrongSide, wrong, out))
	}

	switch a.Kind {
	case sc.KindCheckVitals:
		out = e.measure(ReadByCheck, out)
	case sc.KindAttachMonitor:
		if !e.s.Monitored {
			e.s.Monitored = true
			e.s.NextReading = t + monitorInterval
			out = e.alarm(e.measure(ReadByMonitor, out))
		}
	case sc.KindOxygen, sc.KindVentilate:
		e.cancel(sourceOxygen)
		e.s.OnOxygen = true
	case sc.KindStopOxygen:
		e.cancel(sourceOxygen)
		e.s.OnOxygen = false
	}
	onset, peak, duration := e.course(a)
	e.intervene(a, order.Fraction, onset, peak, duration)
	errors := len(e.s.Errors)
	out = e.scenarioErrors(a, out)
	if a.Kind == sc.KindMedication {
		out = e.administer(a, order, len(e.s.Errors) > errors, out)
	}
	out = e.arrestAction(a, out)
	if !e.later(a, t+onset) {
		e.consequences(a)
	}
	e.reviewed() // the trainee is with the patient: what sounds now, they hear
	return e.checkTransitions(out)
}

// errWrongSide is the critical error of a one-sided procedure on the side without the problem.
const errWrongSide = "wrong-side-procedure"

// oneSided are the procedures done on one side of the body, each with what it is called.
var oneSided = map[sc.ActionKind]string{sc.KindTreatCause: "", sc.KindSplint: "a splint",
	sc.KindHaemorrhageControl: "haemorrhage control"}

// wrongSide says what is wrong with a one-sided procedure done on the side without the case's
// one-sided problem (a decompression or chest drain of the healthy lung; a splint or tourniquet
// on the sound limb), arrest or not; "" when it names no side or the right one.
func (e *Engine) wrongSide(a action.Action) string {
	what, ok := oneSided[a.Kind]
	side := e.sc.LimbSide()
	if a.Kind == sc.KindTreatCause {
		side = e.sc.OneSided()
	}
	if !ok || side == "" || a.Side == "" || a.Side == side {
		return ""
	}
	if c := sc.ALS().Cause(a.Cause); c != nil {
		what = c.Name + " treated"
	}
	return fmt.Sprintf("%s on the %s: the problem is on the %s", what, a.Side, side)
}

// recordOrder keeps a checked order and the findings that go with it, and reports them.
func (e *Engine) recordOrder(o OrderRecord, findings []Finding, out []Event) []Event {
	e.s.Orders = append(e.s.Orders, o)
	out = append(out, Event{Kind: EventOrder, PatientID: e.s.PatientID, Order: o})
	for _, f := range findings {
		rec := SafetyRecord{T: o.T, Finding: f, AllergiesAsked: e.AllergiesAsked(), Known: e.knows(f)}
		e.s.Safety = append(e.s.Safety, rec)
		out = append(out, Event{Kind: EventSafety, PatientID: e.s.PatientID, Safety: rec})
	}
	return out
}

// CheckMedication is the safety verdict on giving drug now, without giving it.
func (e *Engine) CheckMedication(drug string) []Finding {
	raw := e.raw()
	return CheckMedication(e.sc, drug, raw[sc.SBP], e.Elapsed())
}

// administer is what a given drug does beyond the scenario's interventions: the reaction to an
// allergy or contraindication and the toxicity of an overdose, each a critical error (unless the
// scenario already named the error, scenarioErred), and the antidotes.
func (e *Engine) administer(a action.Action, o OrderRecord, scenarioErred bool, out []Event) []Event {
	for _, f := range e.CheckMedication(a.Drug) {
		if f.Level != sc.HardStop {
			continue
		}
		if !scenarioErred {
			out = e.orderError(o, &f, out)
		}
		e.addEffects(f.effects, f.source)
	}
	if o.Override && o.doseStopped() {
		if !scenarioErred {
			out = e.orderError(o, nil, out)
		}
		e.overdose(o)
	}
	return out
}

// intervene applies the effects of the first intervention matching a, scaled by fraction: a
// dose below the usual one does part of its work.
func (e *Engine) intervene(a action.Action, fraction float64, onset, peak, duration int64) {
	source := sourceTreatment
	if a.Kind == sc.KindOxygen || a.Kind == sc.KindVentilate {
		source = sourceOxygen
	}
	for _, iv := range e.sc.Interventions {
		if Matches(iv.Match, a) {
			effects := scaled(iv.Effects, fraction)
			if a.Kind == sc.KindMedication || a.Kind == sc.KindFluids {
				effects = onCourse(effects, onset, peak, duration)
			}
			e.addEffects(effects, source)
			return
		}
	}
}

func (e *Engine) addEffects(effects []sc.Effect, source string) {
	t := e.s.T
	for _, ef := range effects {
		v, _ := sc.ParseVital(ef.Vital)
		ae := ActiveEffect{Vital: v, Delta: ef.Delta, From: t + int64(ef.Onset), Until: -1, Source: source}
		if ef.Ramp > 0 {
			ae.Full = ae.From + int64(ef.Ramp)
		}
		if ef.Duration > 0 {
			ae.Until = ae.From + int64(ef.Duration)
		}
		if ef.Cap != nil {
			ae.Cap, ae.HasCap = *ef.Cap, true
		}
		e.s.Effects = append(e.s.Effects, ae)
	}
}

func (e *Engine) cancel(source string) {
	kept := e.s.Effects[:0]
	for _, ef := range e.s.Effects {
		if ef.Source != source {
			kept = append(kept, ef)
		}
	}
	e.s.Effects = kept
}

func (e *Engine) scenarioErrors(a action.Action, out []Event) []Event {
	for _, ce := range e.sc.CriticalErrors {
		if Matches(ce.Match, a) && (len(ce.States) == 0 || ce.States.Has(e.s.State)) {
			out = e.criticalError(ce.ID, ce.Description, out)
		}
	}
	return out
}

func (e *Engine) criticalError(id, description string, out []Event) []Event {
	rec := ErrorRecord{T: float64(e.s.T), ID: id, Description: description}
	e.s.Errors = append(e.s.Errors, rec)
	return append(out, Event{Kind: EventCriticalError, PatientID: e.s.PatientID, Error: rec})
}

// markSeen records a against every transition condition it satisfies.
func (e *Engine) markSeen(a action.Action) {
	for ti := range e.sc.Transitions {
		tr := &e.sc.Transitions[ti]
		for i, c := range tr.When {
			if (c.Action != nil && Matches(*c.Action, a)) || (c.Done != nil && Matches(*c.Done, a)) {
				e.s.Seen[tr.ConditionIndex(i)] = true
			}
		}
	}
}
