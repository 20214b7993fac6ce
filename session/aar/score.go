package aar

import (
	"fmt"
	"strings"

	"github.com/ward-sim/ward/session/physio"
	sc "github.com/ward-sim/ward/session/scenario"
)

// score adds up the weights the scenario gives: each critical action met, the NEWS2 trajectory,
// allergies asked first and reassessment; less its penalty for each critical error and safety
// warning, and a fixed one for each alert not reviewed in time and dose out of range; within 0
// and the scenario's maximum. Every line says why it scored what it did.
func score(e *physio.Engine, r Report) Score {
	w := e.Scenario().Scoring
	var lines []ScoreLine
	for _, o := range r.CriticalActions {
		l := ScoreLine{Item: o.Description, Max: o.Points, Why: "not done"}
		switch {
		case o.Moot:
			l.Points, l.Why = o.Points, "does not apply: "+strings.TrimPrefix(o.Rule, "before ")+" was not done"
		case o.Met:
			l.Points, l.Why = o.Points, "met at "+timeOf(o.At)
		case o.Done:
			l.Why = fmt.Sprintf("done at %s; the target was %s", timeOf(o.At), o.Rule)
		}
		lines = append(lines, l)
	}
	lines = append(lines, trajectoryLine(e, r, w.Trajectory))
	first := ScoreLine{Item: "allergies asked before any medication that could wait", Max: w.AllergiesFirst, Why: "no"}
	switch met, applies := allergiesFirst(e); {
	case !applies:
		first.Points, first.Why = w.AllergiesFirst, "does not apply: no medication that could wait was given"
	case met:
		first.Points, first.Why = w.AllergiesFirst, "yes"
	}
	again := ScoreLine{Item: "reassessed after treatment", Max: w.Reassessment, Why: "no"}
	if reassessed(e) {
		again.Points, again.Why = w.Reassessment, "yes"
	}
	lines = append(lines, first, again)
	for _, g := range errorGroups(e, r.CriticalErrors) {
		lines = append(lines, ScoreLine{Item: "critical error: " + g.Description + g.count(), Points: -penalty(e, g.first) * len(g.at),
			Why: "at " + g.times()})
	}
	for _, sw := range r.SafetyWarnings {
		lines = append(lines, ScoreLine{Item: "safety warning on " + sw.Drug, Points: -w.Warning, Why: "at " + physio.SimTime(since(e, sw.T))})
	}
	lines = append(lines, responseLines(e, r)...)
	lines = append(lines, arrestLines(e, r)...)
	actions := 0
	for _, l := range lines {
		actions += l.Points
	}
	actions = min(max(actions, 0), sc.ScoreMax)
	split := e.Scenario().Weights()
	parts := []ScorePart{{Name: PartActions, Points: (actions*split.Actions + sc.ScoreMax/2) / sc.ScoreMax, Max: split.Actions,
		Why: fmt.Sprintf("%d of %d for the actions below", actions, sc.ScoreMax)}}
	if split.Diagnosis > 0 {
		parts = append(parts, diagnosisPart(r, split.Diagnosis))
	}
	if split.Disposition > 0 {
		parts = append(parts, dispositionPart(r, split.Disposition))
	}
	total := 0
	for _, p := range parts {
		total += p.Points
	}
	return Score{Total: total, Max: sc.ScoreMax, Parts: parts, Breakdown: lines}
}

// Parts of the score.
const (
	PartActions     = "actions"
	PartDiagnosis   = "diagnosis"
	PartDisposition = "disposition"
)

// diagnosisPart gives the whole weight when the last working diagnosis is the case's.
func diagnosisPart(r Report, weight int) ScorePart {
	p := ScorePart{Name: PartDiagnosis, Max: weight, Why: "no working diagnosis given"}
	n := len(r.Diagnoses)
	if n == 0 {
		return p
	}
	last := r.Diagnoses[n-1]
	switch last.Verdict {
	case sc.VerdictAccepted:
		p.Points, p.Why = weight, fmt.Sprintf("%q is %s", last.Text, r.CaseDiagnosis)
	case sc.VerdictDifferential:
		p.Why = fmt.Sprintf("%q is a differential (%s); the case was %s", last.Text, last.Term, r.CaseDiagnosis)
	default:
		p.Why = fmt.Sprintf("%q is not %s", last.Text, r.CaseDiagnosis)
	}
	return p
}

// dispositionPart gives the whole weight when the patient went where the key says.
func dispositionPart(r Report, weight int) ScorePart {
	p := ScorePart{Name: PartDisposition, Max: weight, Why: "no disposition given"}
	switch d := r.Disposition; {
	case d == nil:
	case d.Accepted:
		p.Points, p.Why = weight, d.Place
	default:
		p.Why = fmt.Sprintf("%s; the case called for %s", d.Place, strings.Join(r.CaseDisposition, " or "))
	}
	return p
}

// trajectoryLine gives the full weight when the last measured NEWS2 is below the first, half
// when it is the same, none when it rose or was measured less than twice.
func trajectoryLine(e *physio.Engine, r Report, weight int) ScoreLine {
	l := ScoreLine{Item: "patient trajectory (NEWS2, first to last measured)", Max: weight, Why: "not measured twice"}
	first, last := r.NEWS2AtArrival, r.NEWS2Now
	if len(e.Readings()) < 2 {
		return l
	}
	l.Why = first.Text + " → " + last.Text
	switch {
	case last.Total < first.Total:
		l.Points = weight
	case last.Total == first.Total:
		l.Points = weight / 2
	}
	return l
}

// penalty is what a critical error costs: the scenario's figure for its own critical errors,
// the hard-stop figure for a drug given against a hard stop.
func penalty(e *physio.Engine, er physio.ErrorRecord) int {
	for _, ce := range e.Scenario().CriticalErrors {
		if ce.ID == er.ID {
			return ce.Penalty
		}
	}
	return e.Scenario().Scoring.HardStop
}

// allergiesFirst: every medication that could wait (all but the case's rescue treatments) came
// after asking about allergies. It applies only when such a medication was given.
func allergiesFirst(e *physio.Engine) (met, applies bool) {
	met = true
	for _, a := range e.Actions() {
		if a.Kind == sc.KindMedication && !isRescue(e, a) {
			applies = true
			met = met && a.AllergiesAsked
		}
	}
	return met, applies
}

// reassessed: the trainee measured vitals after the first treatment; a nurse's routine
// observation is not their reassessment.
func reassessed(e *physio.Engine) bool {
	for _, a := range e.Actions() {
		if a.IsTreatment() {
			for _, rd := range e.Readings() {
				if rd.T > a.T && rd.Source != physio.ReadByNurse {
					return true
				}
			}
			return e.Monitored()
		}
	}
	return false
}

// HowScored is the score with how it was reached: each part, then each item of the actions.
func (s Score) HowScored() string {
	var parts, items []string
	for _, p := range s.Parts {
		parts = append(parts, fmt.Sprintf("%s %d/%d (%s)", p.Name, p.Points, p.Max, p.Why))
	}
	for _, l := range s.Breakdown {
		switch {
		case l.Max > 0:
			items = append(items, fmt.Sprintf("%s %d/%d (%s)", l.Item, l.Points, l.Max, l.Why))
		case l.Points != 0:
			items = append(items, fmt.Sprintf("%s %d (%s)", l.Item, l.Points, l.Why))
		}
	}
	return fmt.Sprintf("Score %d / %d: %s. Actions: %s.", s.Total, s.Max, strings.Join(parts, "; "), strings.Join(items, "; "))
}
