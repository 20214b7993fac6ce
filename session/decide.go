package session

import (
	"regexp"

	"github.com/ward-sim/ward/agents/analyzer"
)

// Decision is what the session did with the patient context on one turn.
type Decision string

const (
	DecisionNone           Decision = "NONE"
	DecisionUnchanged      Decision = "UNCHANGED"
	DecisionNewBlank       Decision = "NEW_BLANK"
	DecisionSwitchExisting Decision = "SWITCH_EXISTING"
	DecisionClear          Decision = "CLEAR"
	DecisionRestored       Decision = "RESTORED_FROM_STORAGE"
	DecisionNeedsPatientID Decision = "NEEDS_PATIENT_ID"
)

// contextState is what the registry decision needs to know about the session right now.
type contextState struct {
	active   string
	restored bool // the active patient was revived from the registry this turn
	known    func(id string) bool
	pattern  *regexp.Regexp
}

// resolve turns the analyzer's proposal into a decision. The analyzer only proposes: the ID must
// match the pattern, and the registry alone decides whether it is a new patient or a switch.
func resolve(d analyzer.Decision, st contextState) (Decision, string) {
	switch d.Action {
	case analyzer.ActionClear:
		return DecisionClear, ""
	case analyzer.ActionActivateNew, analyzer.ActionSwitchExisting:
		id, ok := analyzer.NormalizeID(d.PatientID, st.pattern)
		switch {
		case !ok:
			return DecisionNeedsPatientID, ""
		case id == st.active:
			return keep(st), id
		case st.known(id):
			return DecisionSwitchExisting, id
		default:
			return DecisionNewBlank, id
		}
	case analyzer.ActionUnchanged:
		if st.active == "" {
			return DecisionNone, ""
		}
		return keep(st), st.active
	default:
		if st.restored {
			return DecisionRestored, st.active
		}
		return DecisionNone, st.active
	}
}

// keep is the decision for a turn that stays with the active patient.
func keep(st contextState) Decision {
	if st.restored {
		return DecisionRestored
	}
	return DecisionUnchanged
}
