package physio

import (
	"fmt"
	"slices"

	"github.com/ward-sim/ward/session/action"
	sc "github.com/ward-sim/ward/session/scenario"
)

// NEWS2 Scale 2 is a decision (RCP 2017): SpO2 is scored on Scale 1 until the trainee
// prescribes a target of 88–92 % for a patient whose hypercapnic respiratory failure is
// documented, here by a blood gas taken or a history heard (an oxygen alert card). A target of
// 94–98 % goes back to Scale 1.

// Scale is the SpO2 scale the patient is scored on now.
func (e *Engine) Scale() int {
	if e.s.Scale2 {
		return 2
	}
	return 1
}

// prescribeTarget sets the SpO2 target a asks for, and says why not when it cannot.
func (e *Engine) prescribeTarget(a action.Action) string {
	lo, hi := a.Target[0], a.Target[1]
	switch {
	case lo == 94 && hi == 98:
		e.s.Scale2 = false
	case lo == 88 && hi == 92 && !e.sc.NEWS2.HypercapnicTarget:
		return "A target of 88–92 % is for a patient with hypercapnic respiratory failure, which nothing here shows: the target stays 94–98 % (NEWS2 Scale 1)."
	case lo == 88 && hi == 92 && !e.hypercapniaDocumented():
		return "A target of 88–92 % needs hypercapnia documented first — a blood gas, or the history of it (an oxygen alert card): the target stays 94–98 % (NEWS2 Scale 1) until then."
	case lo == 88 && hi == 92:
		e.s.Scale2 = true
	default:
		return fmt.Sprintf("A target of %g–%g %% is not one NEWS2 scores: prescribe 94–98 %% (Scale 1) or, in hypercapnic respiratory failure, 88–92 %% (Scale 2).", lo, hi)
	}
	return ""
}

// hypercapniaDocumented reports whether the trainee has found what documents the patient's
// hypercapnia: a test of the scenario's list done, or a topic of it told.
func (e *Engine) hypercapniaDocumented() bool {
	for _, from := range e.sc.NEWS2.HypercapniaFrom {
		if slices.Contains(e.s.Told, from) {
			return true
		}
		if slices.ContainsFunc(e.s.Actions, func(r ActionRecord) bool { return r.Kind == sc.KindTest && r.Test == from }) {
			return true
		}
	}
	return false
}
