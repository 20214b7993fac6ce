package aar

import (
	"fmt"
	"strings"

	"github.com/ward-sim/ward/session/physio"
)

// How the trainee answered the ward is part of the review: each alarm and escalation with the
// time to their review of the patient, the orders the Pharmacist stopped (near misses) and the
// doses given outside the usual range. Overridden stops are critical errors, in the error log.

// AlertOutcome is an alert and how long the trainee took to review the patient after it.
type AlertOutcome struct {
	physio.AlertRecord
	ReviewedAfter *float64 `json:"reviewed_after,omitempty"` // seconds from raised to reviewed
}

// reviewPrompt is the review target: RCP 2017 asks for an emergency assessment at once and an
// urgent review soon, and five sim minutes is a ward hour at the nurse's pace.
const reviewPrompt = 5 * 60

// Penalties that keep the score within the scenario's 100: an alert left longer than
// reviewPrompt, and a dose given out of the usual range.
const (
	lateReviewPenalty = 5
	outOfRangePenalty = 5
)

// alertOutcomes are the patient's alarms and escalations with their review times.
func alertOutcomes(e *physio.Engine) []AlertOutcome {
	out := []AlertOutcome{}
	for _, a := range e.Alerts() {
		o := AlertOutcome{AlertRecord: a}
		if a.Reviewed != nil {
			after := *a.Reviewed - a.Raised
			o.ReviewedAfter = &after
		}
		out = append(out, o)
	}
	return out
}

// inTime reports whether the patient was reviewed within the target after the alert.
func (o AlertOutcome) inTime() bool {
	return o.ReviewedAfter != nil && *o.ReviewedAfter <= reviewPrompt
}

// nearMisses are the orders the Pharmacist stopped and the trainee did not give later on an
// override; outOfRange the doses given outside the usual range.
func nearMissesAndOutOfRange(e *physio.Engine) (nearMisses, outOfRange []physio.OrderRecord) {
	nearMisses, outOfRange = []physio.OrderRecord{}, []physio.OrderRecord{}
	for i, o := range e.Orders() {
		switch {
		case o.Stopped() && !overriddenLater(e, i):
			nearMisses = append(nearMisses, o)
		case o.OutOfRange():
			outOfRange = append(outOfRange, o)
		}
	}
	return nearMisses, outOfRange
}

// overriddenLater reports whether the trainee gave the drug of stopped order i later on their
// override: the near miss became an error, which the error log holds.
func overriddenLater(e *physio.Engine, i int) bool {
	for _, o := range e.Orders()[i+1:] {
		if o.Drug == e.Orders()[i].Drug && o.Override && o.Given {
			return true
		}
	}
	return false
}

// responsePoints are the debrief's points on the response: an alert answered in time is a plus,
// one answered late or never a delta; a near miss must be named; a dose out of range is a delta.
func responsePoints(e *physio.Engine, r Report) []Point {
	var out []Point
	for _, o := range r.Alerts {
		what := fmt.Sprintf("%s (%s)", alertName(o.AlertRecord), strings.Join(alertWhy(o.AlertRecord), ", "))
		p := Point{Kind: PointDelta, At: at(e, o.Raised), Text: what + ": the patient was not reviewed"}
		if o.ReviewedAfter != nil {
			p.Text = fmt.Sprintf("%s: reviewed %s later", what, physio.SimTime(*o.ReviewedAfter))
			if o.inTime() {
				p.Kind = PointPlus
			}
		}
		out = append(out, p)
	}
	for _, o := range r.NearMisses {
		out = append(out, Point{Kind: PointNearMiss, At: at(e, o.T), names: [][]string{drugNames(o.Drug)},
			Text: fmt.Sprintf("the Pharmacist stopped %s — %s", o.Text(), o.Reason())})
	}
	for _, o := range r.OutOfRange {
		out = append(out, Point{Kind: PointDelta, At: at(e, o.T),
			Text: fmt.Sprintf("Dose out of range: %s given — %s", o.Text(), o.Reason())})
	}
	return out
}

// responseLines are the score's penalties for the response.
func responseLines(e *physio.Engine, r Report) []ScoreLine {
	var out []ScoreLine
	for _, o := range r.Alerts {
		if !o.inTime() {
			out = append(out, ScoreLine{Item: "alert not reviewed in time: " + alertName(o.AlertRecord),
				Points: -lateReviewPenalty, Why: "raised at " + physio.SimTime(since(e, o.Raised))})
		}
	}
	for _, o := range r.OutOfRange {
		out = append(out, ScoreLine{Item: "dose out of range: " + o.Text(), Points: -outOfRangePenalty,
			Why: "at " + physio.SimTime(since(e, o.T))})
	}
	return out
}

func alertName(a physio.AlertRecord) string {
	if a.Kind == physio.AlertAlarm {
		return "Monitor alarm"
	}
	return "Nurse escalation (" + a.Level + ")"
}

func alertWhy(a physio.AlertRecord) []string {
	if len(a.Crossed) > 0 {
		return a.Crossed
	}
	return []string{fmt.Sprintf("NEWS2 %d", a.NEWS2)}
}
