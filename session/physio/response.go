package physio

import (
	"fmt"
	"strings"
)

// Response is the debrief of how the trainee answered the ward: each alarm and escalation with
// the time to their review of the patient, the orders the Pharmacist stopped (near misses) and
// the doses given outside the usual range. Overridden stops are critical errors and are in the
// engine's error log already.
type Response struct {
	Alerts     []AlertOutcome `json:"alerts"`
	NearMisses []OrderRecord  `json:"near_misses"`
	OutOfRange []OrderRecord  `json:"doses_out_of_range"`
	// Lines say each of the above in a sentence, in time order within each kind.
	Lines []string `json:"lines"`
	// Score is the part of the debrief score these earn: Alerts answered in time, less doses out
	// of range.
	Score []ScoreLine `json:"score"`
}

// AlertOutcome is an alert and how long the trainee took to review the patient after it.
type AlertOutcome struct {
	AlertRecord
	ReviewedAfter *float64 `json:"reviewed_after,omitempty"` // seconds from raised to reviewed
}

// Review targets: RCP 2017 asks for an emergency assessment at once and an urgent review soon;
// a review within reviewPrompt is on time, within reviewLate half credit.
const (
	reviewPrompt = 5 * 60
	reviewLate   = 10 * 60
)

// Points for the response: 10 for answering every alert on time; 5 off for each dose given
// out of range.
const (
	responsePoints   = 10
	outOfRangePoints = -5
)

// Response reviews the trainee's answer to this patient's alerts and orders.
func (e *Engine) Response() Response {
	r := Response{Alerts: []AlertOutcome{}, NearMisses: []OrderRecord{}, OutOfRange: []OrderRecord{}}
	credit := 0.0
	for _, a := range e.s.Alerts {
		o := AlertOutcome{AlertRecord: a}
		what := fmt.Sprintf("%s at %s (%s)", alertName(a), SimTime(e.since(a.Raised)), strings.Join(alertWhy(a), ", "))
		if a.Reviewed == nil {
			r.Lines = append(r.Lines, what+": the patient was not reviewed")
		} else {
			after := *a.Reviewed - a.Raised
			o.ReviewedAfter = &after
			r.Lines = append(r.Lines, fmt.Sprintf("%s: reviewed %s later", what, SimTime(after)))
			switch {
			case after <= reviewPrompt:
				credit++
			case after <= reviewLate:
				credit += 0.5
			}
		}
		r.Alerts = append(r.Alerts, o)
	}
	for i, o := range e.s.Orders {
		switch {
		case o.Stopped() && !e.overriddenLater(i):
			r.NearMisses = append(r.NearMisses, o)
			r.Lines = append(r.Lines, fmt.Sprintf("Near miss at %s: the Pharmacist stopped %s — %s",
				SimTime(e.since(o.T)), o.Text(), o.Reason()))
		case o.OutOfRange():
			r.OutOfRange = append(r.OutOfRange, o)
			r.Lines = append(r.Lines, fmt.Sprintf("Dose out of range at %s: %s given — %s",
				SimTime(e.since(o.T)), o.Text(), o.Reason()))
		}
	}
	if n := len(r.Alerts); n > 0 {
		r.Score = append(r.Score, ScoreLine{Item: fmt.Sprintf("alarms and escalations answered in time (%d)", n),
			Points: int(responsePoints * credit / float64(n)), Max: responsePoints})
	}
	if n := len(r.OutOfRange); n > 0 {
		r.Score = append(r.Score, ScoreLine{Item: fmt.Sprintf("doses out of range (%d)", n), Points: outOfRangePoints * n})
	}
	return r
}

// overriddenLater reports whether the trainee gave the drug of stopped order i later on their
// override: the near miss became an error, which the error log holds.
func (e *Engine) overriddenLater(i int) bool {
	for _, o := range e.s.Orders[i+1:] {
		if o.Drug == e.s.Orders[i].Drug && o.Override && o.Given {
			return true
		}
	}
	return false
}

func alertName(a AlertRecord) string {
	if a.Kind == AlertAlarm {
		return "Monitor alarm"
	}
	return "Nurse escalation (" + a.Level + ")"
}

func alertWhy(a AlertRecord) []string {
	if len(a.Crossed) > 0 {
		return a.Crossed
	}
	return []string{fmt.Sprintf("NEWS2 %d", a.NEWS2)}
}
