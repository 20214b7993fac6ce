package session

import (
	"fmt"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/session/physio"
)

// arrestFacts are the patient's cardiac arrest as the team may speak of it, or nil: the engine's
// record of times, compressions, shocks, drugs and pulse, and never the rhythm.
func arrestFacts(e *physio.Engine) *agents.ArrestFacts {
	a := e.Arrest()
	if a == nil {
		return nil
	}
	now := int64(e.Clock())
	ago := func(t int64) string { return physio.SimTime(float64(now - t)) }
	f := &agents.ArrestFacts{Since: ago(a.Onset), Compressions: "stopped", Shocks: len(a.StepsOf(physio.StepShock)),
		Access: a.Access >= 0, Airway: a.Airway, Pulse: "none"}
	if a.CPR {
		f.Compressions = "going"
	}
	if checks := a.StepsOf(physio.StepCheck); len(checks) > 0 && a.Active() {
		f.SinceCheck = ago(checks[len(checks)-1].T)
	}
	f.Adrenaline, f.Amiodarone = doses(a.StepsOf(physio.StepAdrenaline), ago), doses(a.StepsOf(physio.StepAmiodarone), ago)
	switch {
	case a.ROSC >= 0:
		f.Pulse = "present"
	case a.Stopped >= 0:
		f.Pulse = "resuscitation stopped"
	}
	return f
}

// doses says how many of a drug were given and how long ago the last: "" for none.
func doses(steps []physio.ArrestStep, ago func(int64) string) string {
	if len(steps) == 0 {
		return ""
	}
	return fmt.Sprintf("%d given, the last %s ago", len(steps), ago(steps[len(steps)-1].T))
}
