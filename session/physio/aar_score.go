package physio

import (
	"fmt"

	sc "github.com/ward-sim/ward/session/scenario"
)

// score weighs critical actions (60), the patient's NEWS2 trajectory (20),
// asking about allergies first (10) and reassessment (10), less 25 for each
// critical error and 5 for each safety warning, within 0–100.
func (e *Engine) score(r Report) Score {
	met := 0
	for _, o := range r.CriticalActions {
		if o.Met {
			met++
		}
	}
	lines := []ScoreLine{{Item: "critical actions", Max: 60}}
	if n := len(r.CriticalActions); n > 0 {
		lines[0].Points = 60 * met / n
	}
	outcome := 10
	switch {
	case r.NEWS2Now < r.NEWS2AtArrival:
		outcome = 20
	case r.NEWS2Now > r.NEWS2AtArrival:
		outcome = 0
	}
	lines = append(lines,
		ScoreLine{Item: "patient trajectory (NEWS2)", Points: outcome, Max: 20},
		ScoreLine{Item: "allergies asked before medication", Points: 10 * btoi(e.allergiesFirst()), Max: 10},
		ScoreLine{Item: "reassessed after treatment", Points: 10 * btoi(e.reassessed()), Max: 10},
	)
	if n := len(r.CriticalErrors); n > 0 {
		lines = append(lines, ScoreLine{Item: fmt.Sprintf("critical errors (%d)", n), Points: -25 * n})
	}
	if n := len(r.SafetyWarnings); n > 0 {
		lines = append(lines, ScoreLine{Item: fmt.Sprintf("safety warnings (%d)", n), Points: -5 * n})
	}
	total := 0
	for _, l := range lines {
		total += l.Points
	}
	return Score{Total: min(max(total, 0), 100), Max: 100, Breakdown: lines}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// allergiesFirst: every medication came after asking about allergies (or,
// with no medication given, allergies were asked at all).
func (e *Engine) allergiesFirst() bool {
	gaveAny := false
	for _, a := range e.s.Actions {
		if a.Kind == sc.KindMedication {
			gaveAny = true
			if !a.AllergiesAsked {
				return false
			}
		}
	}
	return gaveAny || e.AllergiesAsked()
}

// reassessed: vitals were measured after the first treatment.
func (e *Engine) reassessed() bool {
	for _, a := range e.s.Actions {
		if a.IsTreatment() {
			for _, rd := range e.s.Readings {
				if rd.T > a.T {
					return true
				}
			}
			return e.s.Monitored
		}
	}
	return false
}

// debrief lists what went well (plus) and what to change (delta).
func (e *Engine) debrief(r Report) (plus, delta []string) {
	for _, o := range r.CriticalActions {
		switch {
		case o.Met:
			plus = append(plus, fmt.Sprintf("%s — done at %s (%s)", o.Description, SimTime(*o.At), o.Rule))
		case o.Done:
			delta = append(delta, fmt.Sprintf("%s — done at %s, but the target was %s", o.Description, SimTime(*o.At), o.Rule))
		default:
			delta = append(delta, fmt.Sprintf("%s — not done (%s)", o.Description, o.Rule))
		}
	}
	for _, er := range r.CriticalErrors {
		delta = append(delta, fmt.Sprintf("Critical error at %s: %s", SimTime(e.since(er.T)), er.Description))
	}
	for _, w := range r.SafetyWarnings {
		delta = append(delta, fmt.Sprintf("Safety warning at %s on %s: %s", SimTime(e.since(w.T)), w.Drug, w.Reason))
	}
	for _, a := range e.s.Actions {
		if a.Kind == sc.KindMedication && !a.AllergiesAsked {
			delta = append(delta, fmt.Sprintf("%s given at %s before asking about allergies", a.Drug, SimTime(e.since(a.T))))
		}
	}
	if e.allergiesFirst() {
		plus = append(plus, "Asked about allergies before giving any medication")
	}
	if e.reassessed() {
		plus = append(plus, "Reassessed the vital signs after treatment")
	} else {
		delta = append(delta, "No vital signs were measured after treatment")
	}
	trend := fmt.Sprintf("NEWS2 %d at arrival, %d now (state: %s)", r.NEWS2AtArrival, r.NEWS2Now, r.FinalState)
	switch {
	case r.NEWS2Now < r.NEWS2AtArrival:
		plus = append(plus, "The patient improved: "+trend)
	case r.NEWS2Now > r.NEWS2AtArrival:
		delta = append(delta, "The patient deteriorated: "+trend)
	default:
		delta = append(delta, "The patient did not improve: "+trend)
	}
	return plus, delta
}
