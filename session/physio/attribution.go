package physio

import (
	"fmt"

	sc "github.com/ward-sim/ward/session/scenario"
)

// Every change of state says what caused it, so the review charges the trainee only for what
// followed from their actions, or from their leaving the patient untreated when they could have
// acted; a change the case's script or the instructor made is shown as theirs.
const (
	// CauseTrainee: the trainee's action moved the patient (a transition on an action, ROSC), or
	// the patient got better as their treatment took its course.
	CauseTrainee = "trainee"
	// CauseUntreated: the patient got worse with time while the state they were in had a way out
	// the trainee's actions could take.
	CauseUntreated = "untreated"
	// CauseScript: the case moved the patient whatever the trainee did (a scripted arrest: the
	// state had no way out an action could take), or the patient arrived.
	CauseScript = "script"
	// CauseInstructor: the instructor injected the change (injected.go).
	CauseInstructor = "instructor"
)

// causeWords is how the review names each cause.
var causeWords = map[string]string{CauseTrainee: "after the trainee's actions", CauseUntreated: "with time, before the treatment that stops it",
	CauseScript: "the case's script", CauseInstructor: "injected by the instructor"}

// Chargeable reports whether the change may be charged to the trainee: theirs, or one that came
// with time before the treatment that stops it (a record kept before causes counts as theirs).
func (c StateChange) Chargeable() bool {
	return c.Cause == CauseTrainee || c.Cause == CauseUntreated || c.Cause == ""
}

// CauseWords is how the review names the change's cause: "the case's script".
func (c StateChange) CauseWords() string { return causeWords[c.Cause] }

// transitionCause says what caused the scenario's transition tr out of the current state: an
// action among its conditions is the trainee's; a move that is no worse by NEWS2 is their
// treatment taking its course; a move for the worse on time or a vital is time untreated when
// the state offered a way out by an action, and the case's script when it offered none.
func (e *Engine) transitionCause(tr *sc.Transition) string {
	switch {
	case onAction(tr):
		return CauseTrainee
	case e.NEWS2At(e.sc.State(tr.To), false).Total <= e.NEWS2At(e.cur, false).Total:
		return CauseTrainee
	}
	for _, ti := range e.cur.Outgoing() {
		if onAction(&e.sc.Transitions[ti]) {
			return CauseUntreated
		}
	}
	return CauseScript
}

// onAction reports whether any condition of tr is an action the trainee does.
func onAction(tr *sc.Transition) bool {
	for _, c := range tr.When {
		if c.Action != nil || c.Done != nil {
			return true
		}
	}
	return false
}

// NEWS2At is the NEWS2 of the values state st leads to, on oxygen or air.
func (e *Engine) NEWS2At(st *sc.State, onOxygen bool) NEWS2Score {
	var raw [sc.NumVitals]float64
	for v := range raw {
		raw[v] = st.Target(sc.Vital(v))
	}
	return NEWS2(vitalsFrom(&raw, e.sc), e.Scale(), onOxygen)
}

// Text is the change as the review's timeline writes it: "palpitations → vf-arrest: the ectopics
// trigger ventricular fibrillation (the case's script)".
func (c StateChange) Text() string {
	text := fmt.Sprintf("%s → %s: %s", c.From, c.To, c.Reason)
	if w, ok := causeWords[c.Cause]; ok && c.Reason != reasonInjected {
		text += " (" + w + ")"
	}
	return text
}
