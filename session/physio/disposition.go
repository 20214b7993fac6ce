package physio

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	sc "github.com/ward-sim/ward/session/scenario"
)

// DiagnosisRecord is one working diagnosis the trainee committed to; a later one revises it.
type DiagnosisRecord struct {
	T                 float64 `json:"t"` // ward time
	Text              string  `json:"text"`
	sc.DiagnosisMatch         // no verdict when the scenario has no diagnosis key
	// SecondOpinion is a model's verdict on a diagnosis the rules found wrong, recorded beside
	// theirs; the score follows the rules.
	SecondOpinion *SecondOpinion `json:"second_opinion,omitempty"`
}

// SecondOpinion is what a model said of a working diagnosis.
type SecondOpinion struct {
	Model   string `json:"model"`
	Verdict string `json:"verdict"` // one of the scenario verdicts, or "" when the model did not answer
	Why     string `json:"why,omitempty"`
}

// DispositionRecord is where the trainee sent the patient, which ends the case.
type DispositionRecord struct {
	T        float64 `json:"t"`
	Place    string  `json:"place"`
	Accepted bool    `json:"accepted"`
}

// ReflectionAnswer is the trainee's answer to reflective question Question (0-based).
type ReflectionAnswer struct {
	Question int     `json:"question"`
	T        float64 `json:"t"`
	Answer   string  `json:"answer"`
}

// ErrClosed is returned for what a closed case can no longer take.
var ErrClosed = errors.New("the case is closed")

// placeAliases are other ways of writing a disposition.
var placeAliases = map[string]string{
	"itu": "icu", "intensive care": "icu", "critical care": "icu", "high dependency": "hdu",
	"cath lab": "cath-lab", "cathlab": "cath-lab", "catheter lab": "cath-lab", "theatres": "theatre",
	"operating theatre": "theatre", "discharge": "home", "admit": "ward", "resuscitation": "resus",
	"major trauma centre": "major-trauma-centre", "mtc": "major-trauma-centre", "trauma centre": "major-trauma-centre",
	"emergency department": "emergency-department", "ed": "emergency-department", "a&e": "emergency-department",
	"a and e": "emergency-department", "obstetric unit": "obstetric-unit", "labour ward": "obstetric-unit",
	"maternity unit": "obstetric-unit", "ecls centre": "ecls-centre", "ecmo centre": "ecls-centre",
	"ecls": "ecls-centre", "ecmo": "ecls-centre",
	// a child's intensive and high-dependency care
	"picu": "icu", "paediatric intensive care": "icu", "pediatric intensive care": "icu", "paediatric icu": "icu",
	"pediatric icu": "icu", "phdu": "hdu", "paediatric hdu": "hdu", "pediatric hdu": "hdu",
	"paediatric high dependency": "hdu",
}

// Place reads a disposition as typed: one of scenario.Dispositions, or a common alias of one.
func Place(typed string) (string, bool) {
	p := strings.Join(strings.Fields(strings.ToLower(typed)), " ")
	if alias, ok := placeAliases[p]; ok {
		p = alias
	}
	return p, slices.Contains(sc.Dispositions, p)
}

// Diagnose records a working diagnosis, matched against the scenario's key.
func (e *Engine) Diagnose(text string) (DiagnosisRecord, error) {
	text = strings.TrimSpace(text)
	switch {
	case e.Closed():
		return DiagnosisRecord{}, ErrClosed
	case text == "":
		return DiagnosisRecord{}, errors.New("a diagnosis needs some words")
	}
	d := DiagnosisRecord{T: float64(e.s.T), Text: text}
	if e.sc.Diagnosis != nil { // a scenario without a key records the diagnosis unjudged
		d.DiagnosisMatch = sc.MatchDifferential(e.sc.Diagnosis, text)
	}
	e.s.Diagnoses = append(e.s.Diagnoses, d)
	return d, nil
}

// RecordSecondOpinion keeps a model's verdict on the latest working diagnosis.
func (e *Engine) RecordSecondOpinion(op SecondOpinion) {
	if n := len(e.s.Diagnoses); n > 0 {
		e.s.Diagnoses[n-1].SecondOpinion = &op
	}
}

// Diagnoses are the working diagnoses in order; the last one stands.
func (e *Engine) Diagnoses() []DiagnosisRecord { return capped(e.s.Diagnoses) }

// Dispose sends the patient somewhere, which ends the case: the engine stops, and only the
// reflective questions are left.
func (e *Engine) Dispose(typed string) (DispositionRecord, error) {
	place, ok := Place(typed)
	switch {
	case e.Closed():
		return DispositionRecord{}, ErrClosed
	case !ok:
		return DispositionRecord{}, fmt.Errorf("%q is not a disposition: one of %s", typed, strings.Join(sc.Dispositions, ", "))
	}
	d := DispositionRecord{T: float64(e.s.T), Place: place}
	if k := e.sc.Disposition; k != nil {
		d.Accepted = slices.Contains(k.Accepted, place)
	}
	e.s.Disposition = &d
	return d, nil
}

// Reflections are the trainee's answers to the reflective questions, in the order given.
func (e *Engine) Reflections() []ReflectionAnswer { return capped(e.s.Reflections) }

// Disposition is where the patient went, if they did.
func (e *Engine) Disposition() (DispositionRecord, bool) {
	if e.s.Disposition == nil {
		return DispositionRecord{}, false
	}
	return *e.s.Disposition, true
}

// Closed reports whether the case has ended with a disposition.
func (e *Engine) Closed() bool { return e.s.Disposition != nil }

// NextQuestion is the first reflective question not yet answered, once the case is closed.
func (e *Engine) NextQuestion() (int, sc.ReflectiveQuestion, bool) {
	n := len(e.s.Reflections)
	if !e.Closed() || n >= len(e.sc.Reflection) {
		return 0, sc.ReflectiveQuestion{}, false
	}
	return n, e.sc.Reflection[n], true
}

// Reflect records the answer to the next reflective question.
func (e *Engine) Reflect(answer string) error {
	i, _, ok := e.NextQuestion()
	answer = strings.TrimSpace(answer)
	switch {
	case !ok:
		return errors.New("no reflective question is waiting")
	case answer == "":
		return errors.New("an answer needs some words")
	}
	e.s.Reflections = append(e.s.Reflections, ReflectionAnswer{Question: i, T: float64(e.s.T), Answer: answer})
	return nil
}
