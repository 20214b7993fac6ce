package aar

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ward-sim/ward/session/physio"
	sc "github.com/ward-sim/ward/session/scenario"
)

// Point is one teaching point of the debrief.
type Point struct {
	Kind string   `json:"kind"`
	At   *float64 `json:"at,omitempty"` // seconds since arrival, when the point is about a moment
	Text string   `json:"text"`

	// names are what a debrief must say to name this point: a word from each group.
	names [][]string
}

// Kinds of Point, in the order a debrief takes them. To add a kind of finding, give it a rank
// here (and say in mustName whether a debrief may leave it out), then add a source that turns
// its records into points to debriefSources. A point a debrief must name needs names
// (matchNames, drugNames): the check cannot find a point by words it was never given.
const (
	PointCriticalError = "critical_error"
	PointMissed        = "missed"      // a critical action never done
	PointNearMiss      = "near_miss"   // an order the Pharmacist stopped
	PointDiagnosis     = "diagnosis"   // the working diagnosis, and what pointed to the case's
	PointDisposition   = "disposition" // where the patient went, and where the case called for
	PointReflection    = "reflection"  // a reflective answer against its key points
	PointPlus          = "plus"
	PointDelta         = "delta"
	PointInstructor    = "instructor" // an event the instructor injected (injected.go)
)

var pointRank = map[string]int{PointCriticalError: 0, PointMissed: 1, PointNearMiss: 2, PointDiagnosis: 3,
	PointDisposition: 4, PointReflection: 5, PointPlus: 6, PointDelta: 7, PointInstructor: 8}

// mustName are the kinds no debrief may leave out, however it is written.
var mustName = map[string]bool{PointCriticalError: true, PointMissed: true, PointNearMiss: true}

// debriefSources turn the engine's record into points, each for one part of it.
var debriefSources = []func(*physio.Engine, Report) []Point{
	criticalErrorPoints, criticalActionPoints, rescuePoints, allergyPoints, reassessmentPoints,
	warningPoints, responsePoints, trajectoryPoints, diagnosisPoints, dispositionPoints, reflectionPoints, arrestPoints,
	instructorPoints,
}

func debrief(e *physio.Engine, r Report) []Point {
	var out []Point
	for _, source := range debriefSources {
		out = append(out, source(e, r)...)
	}
	sort.SliceStable(out, func(i, j int) bool { return pointRank[out[i].Kind] < pointRank[out[j].Kind] })
	return out
}

// Unnamed are the points a debrief must name that text leaves out, in debrief order: what ward
// adds from the record when a debrief, however written, would contradict it.
func (r Report) Unnamed(text string) []Point {
	said := normalized(text)
	var out []Point
	for _, p := range r.Debrief {
		if mustName[p.Kind] && !p.namedIn(said) {
			out = append(out, p)
		}
	}
	return out
}

// pointLabel is how a digest line names each kind of point; a debrief's reader parses them.
var pointLabel = map[string]string{PointCriticalError: "Critical error", PointMissed: "Missed critical action",
	PointNearMiss: "Near miss", PointDiagnosis: "Diagnosis", PointDisposition: "Disposition", PointReflection: "Reflection",
	PointPlus: "Plus", PointDelta: "Delta", PointInstructor: "Instructor"}

// Labelled is the point as one line of the review's digest: "Near miss: 00:01 — …".
func (p Point) Labelled() string { return pointLabel[p.Kind] + ": " + p.Line() }

// Line is the point as one line of a debrief, with its time when it has one.
func (p Point) Line() string {
	if p.At == nil {
		return p.Text
	}
	return physio.SimTime(*p.At) + " — " + p.Text
}

func at(e *physio.Engine, t float64) *float64 {
	at := since(e, t)
	return &at
}

// criticalErrorPoints are the critical errors, each once however often it was made, with its
// count and times.
func criticalErrorPoints(e *physio.Engine, r Report) []Point {
	var out []Point
	for _, g := range errorGroups(e, r.CriticalErrors) {
		text := g.Description
		if len(g.at) > 1 {
			text += fmt.Sprintf(" (×%d, at %s)", len(g.at), g.times())
		}
		out = append(out, Point{Kind: PointCriticalError, At: at(e, g.first.T), Text: text, names: errorNames(e, g.first)})
	}
	return out
}

// errorGroup is one critical error and every time it was made.
type errorGroup struct {
	first physio.ErrorRecord
	at    []float64 // seconds since arrival
	physio.ErrorRecord
}

func errorGroups(e *physio.Engine, errs []physio.ErrorRecord) []errorGroup {
	var out []errorGroup
	for _, er := range errs {
		i := slices.IndexFunc(out, func(g errorGroup) bool { return g.first.ID == er.ID && g.first.Description == er.Description })
		if i < 0 {
			out = append(out, errorGroup{first: er, ErrorRecord: er})
			i = len(out) - 1
		}
		out[i].at = append(out[i].at, since(e, er.T))
	}
	return out
}

// count is " (×2)" for an error made twice, and nothing for one made once.
func (g errorGroup) count() string {
	if len(g.at) < 2 {
		return ""
	}
	return fmt.Sprintf(" (×%d)", len(g.at))
}

func (g errorGroup) times() string {
	ts := make([]string, len(g.at))
	for i, t := range g.at {
		ts[i] = physio.SimTime(t)
	}
	return strings.Join(ts, ", ")
}

// errorNames are the words that name a critical error: its scenario match's, or the drug a
// hard stop was given against (recorded as rule:drug).
func errorNames(e *physio.Engine, er physio.ErrorRecord) [][]string {
	for _, ce := range e.Scenario().CriticalErrors {
		if ce.ID == er.ID {
			return matchNames(ce.Match)
		}
	}
	if _, drug, ok := strings.Cut(er.ID, ":"); ok {
		return [][]string{drugNames(drug)}
	}
	if er.ID == physio.ShockNotShockable {
		return [][]string{kindWords[sc.KindShock]}
	}
	return nil
}

func criticalActionPoints(e *physio.Engine, r Report) []Point {
	var out []Point
	for _, o := range r.CriticalActions {
		p := Point{Kind: PointMissed, Text: fmt.Sprintf("%s — not done (%s)", o.Description, o.Rule), names: matchNames(o.match)}
		switch {
		case o.Moot:
			continue
		case !o.Done:
			// what was missed is the first thing to change next time
			out = append(out, Point{Kind: PointDelta, Text: fmt.Sprintf("Next time: %s (%s)", o.Description, o.Rule)})
		case o.Met:
			p.Kind, p.At = PointPlus, o.At
			p.Text = fmt.Sprintf("%s — done at %s (%s)", o.Description, timeOf(o.At), o.Rule)
		case o.Done:
			p.Kind, p.At = PointDelta, o.At
			p.Text = fmt.Sprintf("%s — done at %s, but the target was %s", o.Description, timeOf(o.At), o.Rule)
		}
		out = append(out, p)
	}
	return out
}

func timeOf(at *float64) string { return physio.SimTime(*at) }

// rescuePoints credit each emergency treatment the case called for, the first time it was given
// in a state that called for it; a drug the arrest review faults (early, late, the wrong dose)
// is not also praised here.
func rescuePoints(e *physio.Engine, r Report) []Point {
	var out []Point
	for _, rs := range e.Scenario().Rescue {
		for _, a := range e.Actions() {
			if !rescues(e, rs, a) || r.Arrest.faults(since(e, a.T)) {
				continue
			}
			how := "the right emergency treatment, which needs no allergy history first"
			if a.GCS > 0 && !physio.SpeechAt(a.GCS).GivesHistory() {
				how = fmt.Sprintf("given to a patient who could not give a history (GCS %d), rightly without waiting for one", a.GCS)
			}
			out = append(out, Point{Kind: PointPlus, At: at(e, a.T), Text: rs.Description + " — " + how})
			break
		}
	}
	return out
}

// rescues reports whether a was the rescue treatment rs, given in one of its states.
func rescues(e *physio.Engine, rs sc.Rescue, a physio.ActionRecord) bool {
	return !a.WrongSide && physio.Matches(rs.Match, a.Action) && rs.States.Has(e.StateAt(a.T).Name())
}

// isRescue reports whether a was any of the case's rescue treatments, or anything given in a
// cardiac arrest, which do not wait for an allergy history.
func isRescue(e *physio.Engine, a physio.ActionRecord) bool {
	return slices.ContainsFunc(e.Scenario().Rescue, func(rs sc.Rescue) bool { return rescues(e, rs, a) }) ||
		e.ArrestedAt(int64(a.T))
}

// allergyPoints fault each medication given before anyone asked about allergies, unless it was
// a rescue treatment.
func allergyPoints(e *physio.Engine, _ Report) []Point {
	var out []Point
	for _, a := range e.Actions() {
		if a.Kind == sc.KindMedication && !a.AllergiesAsked && !isRescue(e, a) {
			out = append(out, Point{Kind: PointDelta, At: at(e, a.T), Text: sc.DrugLabel(a.Drug) + " given before asking about allergies"})
		}
	}
	if met, applies := allergiesFirst(e); met && applies {
		out = append(out, Point{Kind: PointPlus, Text: "Asked about allergies before giving any medication that could wait"})
	}
	return out
}

func reassessmentPoints(e *physio.Engine, _ Report) []Point {
	if e.Scenario().Scoring.Reassessment == 0 {
		return nil // not what the case judges
	}
	if reassessed(e) {
		return []Point{{Kind: PointPlus, Text: "Reassessed the vital signs after treatment"}}
	}
	return []Point{{Kind: PointDelta, Text: "No vital signs were measured after treatment"}}
}

func warningPoints(e *physio.Engine, r Report) []Point {
	var out []Point
	for _, w := range r.SafetyWarnings {
		out = append(out, Point{Kind: PointDelta, At: at(e, w.T), Text: fmt.Sprintf("Safety warning on %s: %s", w.Drug, w.Reason)})
	}
	return out
}

// trajectoryPoints say how the patient fared over the stretch the trainee is judged on; a case
// that does not weigh the trajectory (an arrest whose lesson is the decision to stop) says nothing.
func trajectoryPoints(e *physio.Engine, r Report) []Point {
	t := r.Trajectory
	switch {
	case e.Scenario().Scoring.Trajectory == 0:
		return nil
	case t.From == nil && t.Since == nil:
		return []Point{{Kind: PointDelta, Text: "No observations were measured, so nobody knew how sick the patient was"}}
	case t.From == nil:
		return []Point{{Kind: PointDelta, Text: "No observations were measured after " + t.sinceText() + ", so nobody knew how sick the patient was"}}
	case !t.Judged:
		return []Point{{Kind: PointDelta, Text: fmt.Sprintf("Observations were measured only once (%s), so the trend was never seen", t.From.Text)}}
	case t.Improved():
		return []Point{{Kind: PointPlus, Text: "The patient improved: " + t.String()}}
	case t.Worsened():
		return []Point{{Kind: PointDelta, Text: "The patient deteriorated: " + t.String()}}
	}
	return []Point{{Kind: PointDelta, Text: "The patient did not improve: " + t.String()}}
}

// instructorPoints say what the instructor injected and when, so the debrief reads the case
// with them in mind.
func instructorPoints(e *physio.Engine, _ Report) []Point {
	var out []Point
	for _, in := range e.Injections() {
		out = append(out, Point{Kind: PointInstructor, At: at(e, in.T), Text: "the instructor injected " + in.String()})
	}
	return out
}
