package session

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/ward-sim/ward/agents/analyzer"
	"github.com/ward-sim/ward/session/physio"
)

// summary is what the roster shows of a patient: the state, the last two measured NEWS2 and the
// most urgent alarm or escalation waiting on them. It is kept in the registry's facts, so a
// resumed shift draws its roster without decoding any patient, and the roster tells what is known
// even of a patient nobody has looked at since, alarms included.
type summary struct {
	State   string
	Known   bool // a reading was scored
	NEWS2   int
	Band    string
	Scale   int     // the SpO2 scale it was scored on; 0 in a summary stored before scales
	At      float64 // sim seconds of the last reading
	HasPrev bool
	Prev    int // the reading's before it
	// Alert is the level of the most urgent open alarm or escalation ("" for none), AlertText
	// what the monitor or nurse said, AlertAt when it was raised.
	Alert     string
	AlertText string
	AlertAt   float64
	// Disposition is where the patient went when the case ended ("" while it goes on).
	Disposition string
}

// Keys of the summary in a registry entry's facts.
const (
	factState     = "state"
	factNEWS2     = "news2"
	factBand      = "news2_band"
	factNEWS2At   = "news2_at"
	factNEWS2Prev = "news2_prev"
	factScale     = "news2_scale"
	factAlert     = "alert"
	factAlertText = "alert_text"
	factAlertAt   = "alert_at"
	factDispo     = "disposition"
)

func summaryOf(e *physio.Engine) summary {
	sm := summary{State: e.State()}
	readings := e.Readings()
	if n := len(readings); n > 0 {
		last := readings[n-1]
		score := last.Score()
		sm.Known, sm.NEWS2, sm.Band, sm.Scale, sm.At = true, last.NEWS2, score.Band, score.Scale, last.T
		if n > 1 {
			sm.HasPrev, sm.Prev = true, readings[n-2].NEWS2
		}
	}
	if d, ok := e.Disposition(); ok {
		sm.Disposition = d.Place
		return sm // a patient who has left the ward has no alarm waiting on the trainee
	}
	if a, ok := e.Waiting(); ok {
		sm.Alert, sm.AlertText, sm.AlertAt = a.Level, a.Text, a.Raised
	}
	return sm
}

// summaryFrom reads a summary back from facts, where numbers come back from JSON as float64.
func summaryFrom(facts map[string]any) summary {
	sm := summary{}
	sm.State, _ = facts[factState].(string)
	if v, ok := number(facts[factNEWS2]); ok {
		sm.Known, sm.NEWS2 = true, int(v)
	}
	sm.Band, _ = facts[factBand].(string)
	if v, ok := number(facts[factScale]); ok {
		sm.Scale = int(v)
	}
	sm.At, _ = number(facts[factNEWS2At])
	if v, ok := number(facts[factNEWS2Prev]); ok {
		sm.HasPrev, sm.Prev = true, int(v)
	}
	sm.Alert, _ = facts[factAlert].(string)
	sm.AlertText, _ = facts[factAlertText].(string)
	sm.AlertAt, _ = number(facts[factAlertAt])
	sm.Disposition, _ = facts[factDispo].(string)
	return sm
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	}
	return 0, false
}

func (sm summary) put(facts map[string]any) {
	facts[factState] = sm.State
	for _, k := range []string{factNEWS2, factBand, factScale, factNEWS2At, factNEWS2Prev, factAlert, factAlertText, factAlertAt} {
		delete(facts, k)
	}
	if sm.Known {
		facts[factNEWS2], facts[factBand], facts[factScale], facts[factNEWS2At] = sm.NEWS2, sm.Band, sm.Scale, sm.At
	}
	if sm.HasPrev {
		facts[factNEWS2Prev] = sm.Prev
	}
	if sm.Alert != "" {
		facts[factAlert], facts[factAlertText], facts[factAlertAt] = sm.Alert, sm.AlertText, sm.AlertAt
	}
	if sm.Disposition != "" {
		facts[factDispo] = sm.Disposition
	}
}

// Overdue reports whether the last reading is older, at clock, than the interval its NEWS2
// calls for: the roster's number may no longer be true.
func (sm summary) Overdue(clock float64) bool {
	return sm.Known && clock-sm.At > physio.ObsInterval(sm.NEWS2, sm.Band)
}

// rosterAnswer names every patient on the roster, as the trainee knows them and in order of
// arrival, and no other ID, not even an example: the registry, not the conversation, says who
// exists.
func (s *Session) rosterAnswer() string {
	if len(s.roster) == 0 {
		return fmt.Sprintf("No patients on the roster yet. Start by naming one, with an ID that matches %s.", s.cfg.Pattern)
	}
	var named []string
	active := "None is active."
	for _, p := range s.namedPatients() {
		if place := summaryFrom(s.reg.Patients[p.ID].Facts).Disposition; place != "" {
			named = append(named, patientLabel(p)+" (gone to "+place+")")
			continue
		}
		named = append(named, patientLabel(p))
		if p.ID == s.active {
			active = patientLabel(p) + " is active."
		}
	}
	count := "1 patient"
	if len(named) > 1 {
		count = fmt.Sprintf("%d patients", len(named))
	}
	return fmt.Sprintf("%s on the roster, in order of arrival: %s. %s", count, strings.Join(named, ", "), active)
}

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
