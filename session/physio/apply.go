package physio

import (
	"math"

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

// Apply performs one action now and returns what followed: the action itself,
// measurements, safety findings, critical errors and any state change.
// Medications are given even against a hard stop — the trainee said so — and
// the body responds; the finding and the critical error are the lesson.
func (e *Engine) Apply(a Action) []Event {
	t := e.s.T
	rec := ActionRecord{T: float64(t), Action: a, GCS: roundInt(e.raw()[sc.GCS])}
	switch a.Kind {
	case sc.KindMedication:
		rec.AllergiesAsked = e.AllergiesAsked()
	case sc.KindAsk:
		if a.Topic == "allergies" && !e.AllergiesAsked() {
			e.s.AllergiesAskedAt = t
		}
	case sc.KindGlucoseCheck:
		raw := e.raw()
		rec.Glucose = math.Round(raw[sc.Glucose]*10) / 10
		e.s.LastGlucose = rec.Glucose
	}
	e.s.Actions = append(e.s.Actions, rec)
	out := []Event{{Kind: EventAction, PatientID: e.s.PatientID, Action: rec}}

	switch a.Kind {
	case sc.KindCheckVitals:
		out = e.measure("check", out)
	case sc.KindAttachMonitor:
		if !e.s.Monitored {
			e.s.Monitored = true
			e.s.NextReading = t + monitorInterval
			out = e.measure("monitor", out)
		}
	case sc.KindOxygen, sc.KindVentilate:
		e.cancel(sourceOxygen)
		e.s.OnOxygen = true
	case sc.KindStopOxygen:
		e.cancel(sourceOxygen)
		e.s.OnOxygen = false
	case sc.KindMedication:
		out = e.administer(a, out)
	}
	e.intervene(a)
	out = e.scenarioErrors(a, out)
	e.markSeen(a)
	return e.checkTransitions(out)
}

// CheckMedication is the safety verdict on giving drug now, without giving it.
func (e *Engine) CheckMedication(drug string) []Finding {
	raw := e.raw()
	return CheckMedication(e.sc, drug, raw[sc.SBP], e.Elapsed())
}

func (e *Engine) administer(a Action, out []Event) []Event {
	t := float64(e.s.T)
	for _, f := range e.CheckMedication(a.Drug) {
		rec := SafetyRecord{T: t, Finding: f, AllergiesAsked: e.AllergiesAsked()}
		e.s.Safety = append(e.s.Safety, rec)
		out = append(out, Event{Kind: EventSafety, PatientID: e.s.PatientID, Safety: rec})
		if f.Level == sc.HardStop {
			out = e.criticalError(f.Rule+":"+f.Drug, "gave "+f.Drug+" despite a hard stop: "+f.Reason, out)
			e.addEffects(f.effects, f.source)
		}
	}
	if a.Drug == "epinephrine" {
		e.cancel(sourceAllergy)
	}
	return out
}

// intervene applies the effects of the first intervention matching a.
func (e *Engine) intervene(a Action) {
	source := sourceTreatment
	if a.Kind == sc.KindOxygen || a.Kind == sc.KindVentilate {
		source = sourceOxygen
	}
	for _, iv := range e.sc.Interventions {
		if matches(iv.Match, a) {
			e.addEffects(iv.Effects, source)
			return
		}
	}
}

func (e *Engine) addEffects(effects []sc.Effect, source string) {
	t := e.s.T
	for _, ef := range effects {
		v, _ := sc.ParseVital(ef.Vital)
		ae := ActiveEffect{Vital: v, Delta: ef.Delta, From: t + int64(ef.Onset), Until: -1, Source: source}
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

func (e *Engine) scenarioErrors(a Action, out []Event) []Event {
	for _, ce := range e.sc.CriticalErrors {
		if matches(ce.Match, a) && (len(ce.States) == 0 || ce.States.Has(e.s.State)) {
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
func (e *Engine) markSeen(a Action) {
	for ti := range e.sc.Transitions {
		tr := &e.sc.Transitions[ti]
		for i, c := range tr.When {
			if (c.Action != nil && matches(*c.Action, a)) || (c.Done != nil && matches(*c.Done, a)) {
				e.s.Seen[tr.ConditionIndex(i)] = true
			}
		}
	}
}
