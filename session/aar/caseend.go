package aar

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ward-sim/ward/session/physio"
	sc "github.com/ward-sim/ward/session/scenario"
)

// diagnosisPoints say what the trainee diagnosed and when, each revision included, and what
// the findings pointed to.
func diagnosisPoints(e *physio.Engine, r Report) []Point {
	if r.CaseDiagnosis == "" {
		return nil
	}
	var chose []string
	for i, d := range r.Diagnoses {
		verb := "working diagnosis"
		if i > 0 {
			verb = "revised to"
		}
		chose = append(chose, fmt.Sprintf("%s %q at %s (%s)", verb, d.Text, physio.SimTime(since(e, d.T)), verdictWords(d)))
	}
	text := "No working diagnosis was given"
	if len(chose) > 0 {
		text = strings.Join(chose, ", ")
	}
	text += "; the case was " + r.CaseDiagnosis
	if len(r.Pointers) > 0 {
		text += ", and the findings pointed to it: " + strings.Join(r.Pointers, "; ")
	}
	return []Point{{Kind: PointDiagnosis, Text: text}}
}

// verdictWords says how a working diagnosis compares with the case, and what a model said.
func verdictWords(d physio.DiagnosisRecord) string {
	w := map[string]string{sc.VerdictAccepted: "right", sc.VerdictDifferential: "a differential worth holding, not this case",
		sc.VerdictWrong: "not this case"}[d.Verdict]
	if d.Verdict == sc.VerdictAccepted && d.Rank > 1 {
		w = fmt.Sprintf("right, in place %d of the differential: commit to it first next time", d.Rank)
	}
	if op := d.SecondOpinion; op != nil && op.Verdict != "" {
		w += fmt.Sprintf("; %s's second opinion: %s", op.Model, op.Verdict)
	}
	return w
}

// dispositionPoints say where the patient went and where the case called for.
func dispositionPoints(e *physio.Engine, r Report) []Point {
	if len(r.CaseDisposition) == 0 {
		return nil
	}
	called := fmt.Sprintf("the case called for %s: %s", strings.Join(r.CaseDisposition, " or "), r.DispositionReason)
	d := r.Disposition
	switch {
	case d == nil:
		return []Point{{Kind: PointDisposition, Text: "No disposition was given; " + called}}
	case d.Place == physio.PlaceEnded:
		return []Point{{Kind: PointDisposition, At: at(e, d.T), Text: "The instructor ended the case before a disposition; " + called}}
	case d.Accepted:
		return []Point{{Kind: PointDisposition, At: at(e, d.T), Text: fmt.Sprintf("Sent to %s, rightly: %s", d.Place, r.DispositionReason)}}
	}
	return []Point{{Kind: PointDisposition, At: at(e, d.T), Text: fmt.Sprintf("Sent to %s; %s", d.Place, called)}}
}

// reflectionPoints compare each reflective answer with the question's key points; a question
// left unanswered says so, with what a good answer names.
func reflectionPoints(e *physio.Engine, r Report) []Point {
	var out []Point
	for _, o := range r.Reflections {
		text := fmt.Sprintf("%q — answered %q", o.Question, o.Answer)
		if len(o.Named) > 0 {
			text += "; it named " + strings.Join(o.Named, ", ")
		}
		if len(o.Missed) > 0 {
			text += "; it did not name " + strings.Join(o.Missed, ", ")
		}
		out = append(out, Point{Kind: PointReflection, Text: text})
	}
	if !e.Closed() {
		return out // the questions come after the case; their key points would give the answers away
	}
	for _, q := range e.Scenario().Reflection[len(r.Reflections):] {
		out = append(out, Point{Kind: PointReflection, Text: fmt.Sprintf("%q — not answered; a good answer names %s", q.Question, strings.Join(q.KeyPoints, ", "))})
	}
	return out
}

// ReflectionOutcome is a reflective question, the trainee's answer and which of the key points
// it named.
type ReflectionOutcome struct {
	Number   int      `json:"number"` // the question's place in the case's list, from 1
	T        float64  `json:"t"`      // ward time of the answer
	Question string   `json:"question"`
	Answer   string   `json:"answer"`
	Named    []string `json:"named"`
	Missed   []string `json:"missed"`
}

// reflections compares each answer with its question's key points.
func reflections(e *physio.Engine) []ReflectionOutcome {
	var out []ReflectionOutcome
	for _, a := range e.Reflections() {
		q := e.Scenario().Reflection[a.Question]
		o := ReflectionOutcome{Number: a.Question + 1, T: a.T, Question: q.Question, Answer: a.Answer, Named: []string{}, Missed: []string{}}
		for _, kp := range q.KeyPoints {
			if sc.KeyPointNamed(a.Answer, kp) {
				o.Named = append(o.Named, kp)
			} else {
				o.Missed = append(o.Missed, kp)
			}
		}
		out = append(out, o)
	}
	return out
}

// caseEnd fills the report's diagnosis, disposition and reflection from the record and the key.
func caseEnd(e *physio.Engine, r *Report) {
	r.Diagnoses = append([]physio.DiagnosisRecord{}, e.Diagnoses()...)
	if k := e.Scenario().Diagnosis; k != nil {
		r.CaseDiagnosis = k.Accepted[0]
		r.Pointers = pointers(e)
	}
	if d, ok := e.Disposition(); ok {
		r.Disposition = &d
	}
	if k := e.Scenario().Disposition; k != nil {
		r.CaseDisposition, r.DispositionReason = k.Accepted, k.Reason
	}
	r.Reflections = reflections(e)
}

// maxPointers bounds what the debrief lists the diagnosis by.
const maxPointers = 6

// pointers are what pointed to the diagnosis: the signs on arrival, then the results the trainee
// took (each test once, as first taken).
func pointers(e *physio.Engine) []string {
	out := slices.Clone(e.Scenario().State(e.Scenario().InitialState).Signs)
	seen := map[string]bool{}
	for _, res := range e.Results() {
		if !seen[res.Name] {
			seen[res.Name] = true
			out = append(out, res.String())
		}
	}
	return out[:min(len(out), maxPointers)]
}
