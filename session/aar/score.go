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
			l.Points, l.Why, l.NotApplicable = o.Points, "does not apply: "+o.MootWhy, true
		case o.Met:
			l.Points, l.Why = o.Points, "met at "+timeOf(o.At)
		case o.Done:
			l.Why = fmt.Sprintf("done at %s; the target was %s", timeOf(o.At), o.Rule)
		}
		lines = append(lines, l)
	}
	trajectory := trajectoryLine(e, r, w.Trajectory)
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
	for _, l := range []ScoreLine{trajectory, first, again, reflectionLine(e, r, w.Reflection)} {
		if l.Max > 0 { // an item the case gives no weight is not what it judges
			lines = append(lines, l)
		}
	}
	for _, g := range errorGroups(e, r.CriticalErrors) {
		lines = append(lines, ScoreLine{Item: "critical error: " + g.Description + g.count(), Points: -penalty(e, g.first) * len(g.at),
			Why: "at " + g.times()})
	}
	for _, sw := range r.SafetyWarnings {
		lines = append(lines, ScoreLine{Item: "safety warning on " + sw.Drug, Points: -w.Warning, Why: "at " + physio.SimTime(since(e, sw.T))})
	}
	lines = append(lines, responseLines(e, r)...)
	lines = append(lines, arrestLines(e, r)...)
	actions, reachable := 0, sc.ScoreMax
	for _, l := range lines {
		if l.NotApplicable {
			reachable -= l.Max
			continue
		}
		actions += l.Points
	}
	actions = min(max(actions, 0), reachable)
	split := e.Scenario().Weights()
	why := fmt.Sprintf("%d of %d for the actions below", actions, sc.ScoreMax)
	if reachable < sc.ScoreMax { // out of what could happen: an item whose condition never occurred is left out
		why = fmt.Sprintf("%d of the %d that applied, for the actions below", actions, reachable)
		actions = (actions*sc.ScoreMax + reachable/2) / max(reachable, 1)
	}
	parts := []ScorePart{{Name: PartActions, Points: (actions*split.Actions + sc.ScoreMax/2) / sc.ScoreMax, Max: split.Actions, Why: why}}
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
	switch {
	case last.Verdict == sc.VerdictAccepted && last.Rank > 1:
		num, den := sc.DiagnosisCredit(last.Rank)
		p.Points = (weight*num + den/2) / den
		p.Why = fmt.Sprintf("%q names %s in place %d of its differential: %d/%d of the weight (the reciprocal of the place, none below the third)",
			last.Text, r.CaseDiagnosis, last.Rank, num, den)
	case last.Verdict == sc.VerdictAccepted:
		p.Points, p.Why = weight, fmt.Sprintf("%q is %s", last.Text, r.CaseDiagnosis)
	case last.Verdict == sc.VerdictDifferential:
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

// trajectoryLine gives the full weight when the NEWS2 the trajectory is judged on fell, half
// when it held, none when it rose or was not measured twice (trajectory.go).
func trajectoryLine(e *physio.Engine, r Report, weight int) ScoreLine {
	t := r.Trajectory
	l := ScoreLine{Item: "patient trajectory (NEWS2, first to last measured)", Max: weight, Why: t.String()}
	if t.Since != nil {
		l.Item = "patient trajectory (NEWS2, from a change the trainee did not cause to the last measured)"
	}
	switch {
	case !t.Judged:
		if t.From != nil {
			l.Why = "not measured twice: " + l.Why
		}
	case t.Improved():
		l.Points = weight
	case !t.Worsened():
		l.Points = weight / 2
	}
	return l
}

// reflectionLine weighs the reasons the trainee gave after the case: the share of the reflective
// questions' key points their answers named (an unanswered question names none).
func reflectionLine(e *physio.Engine, r Report, weight int) ScoreLine {
	named, all := 0, 0
	for _, q := range e.Scenario().Reflection {
		all += len(q.KeyPoints)
	}
	for _, o := range r.Reflections {
		named += len(o.Named)
	}
	l := ScoreLine{Item: "the reasons, in the reflective answers", Max: weight, Why: fmt.Sprintf("%d of %d key points named", named, all)}
	if all > 0 {
		l.Points = weight * named / all
	}
	return l
}

// judgedOn says what the case's score weighs, from its scoring: each critical action, each
// weighted item, the parts the diagnosis and disposition take, and what costs points.
func judgedOn(e *physio.Engine) []string {
	w, split := e.Scenario().Scoring, e.Scenario().Weights()
	share := func(n int) string { return fmt.Sprintf("%d of the actions' %d", n, sc.ScoreMax) }
	var out []string
	for _, ca := range e.Scenario().CriticalActions {
		out = append(out, fmt.Sprintf("%s (%s)", ca.Description, share(ca.Points)))
	}
	if w.Trajectory > 0 {
		out = append(out, fmt.Sprintf("the patient's NEWS2 trajectory, from the first measured or from a change you did not cause (%s)", share(w.Trajectory)))
	}
	if w.AllergiesFirst > 0 {
		out = append(out, fmt.Sprintf("allergies asked before any medication that could wait (%s)", share(w.AllergiesFirst)))
	}
	if w.Reassessment > 0 {
		out = append(out, fmt.Sprintf("reassessment after treatment (%s)", share(w.Reassessment)))
	}
	if w.Reflection > 0 {
		var qs []string
		for _, q := range e.Scenario().Reflection {
			qs = append(qs, q.Question)
		}
		out = append(out, fmt.Sprintf("your reasons, in the reflective answers: %s (%s)", strings.Join(qs, " "), share(w.Reflection)))
	}
	if split.Diagnosis > 0 {
		out = append(out, fmt.Sprintf("the working diagnosis (%d of %d)", split.Diagnosis, sc.ScoreMax))
	}
	if split.Disposition > 0 {
		out = append(out, fmt.Sprintf("the disposition (%d of %d)", split.Disposition, sc.ScoreMax))
	}
	return append(out, "less points for critical errors, safety warnings, alerts not reviewed in time and doses out of range")
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
		case l.NotApplicable:
		case l.Max > 0:
			items = append(items, fmt.Sprintf("%s %d/%d (%s)", l.Item, l.Points, l.Max, l.Why))
		case l.Points != 0:
			items = append(items, fmt.Sprintf("%s %d (%s)", l.Item, l.Points, l.Why))
		}
	}
	return fmt.Sprintf("Score %d / %d: %s. Actions: %s.", s.Total, s.Max, strings.Join(parts, "; "), strings.Join(items, "; "))
}
