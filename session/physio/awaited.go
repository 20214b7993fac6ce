package physio

import (
	"regexp"
	"slices"
	"strings"

	sc "github.com/ward-sim/ward/session/scenario"
)

// Awaited is what the record says is still to come for a patient: a test's result not back yet,
// or the review of a drug's effect. A handoff hands these on (session/handoff.go).
type Awaited struct {
	T    float64 // ward time the test was sent or the drug given
	What string  // "bloods", "salbutamol 5 mg NEB"
	// Result is what the test's result says so far ("sent to the lab; back in about an hour");
	// empty for a review.
	Result string
	// Due is when the drug has had time to act, its peak (the formulary's course, BNF): the time
	// its response is reviewed. Zero for a result. Overdue: the time has passed and the trainee
	// has not looked since (observations or an examination of their own).
	Due     float64
	Overdue bool
}

// sentAway is a result that says the sample went to the lab, as the library writes one whose
// answer comes later ("sent to the lab; back in about an hour", "group and save sent").
var sentAway = regexp.MustCompile(`\bsent\b`)

// awaitedResult reports whether a test's result is not back: the library says it was sent, or it
// is a blood culture, which takes a day or more to grow (NICE NG51 takes them before the
// antibiotic; it never waits for their growth).
func awaitedResult(test, result string) bool {
	return test == "blood_cultures" || sentAway.MatchString(strings.ToLower(result))
}

// Awaited are the results not yet back and the drug reviews not yet done, oldest first, read
// from the record: the tests the trainee sent, the drugs given and their courses, and the looks
// taken since.
func (e *Engine) Awaited() []Awaited {
	var out []Awaited
	for _, a := range e.s.Actions {
		switch a.Kind {
		case sc.KindTest:
			if r, ok := e.ResultOf(a); ok && awaitedResult(a.Test, r.Value) {
				out = append(out, Awaited{T: a.T, What: r.Name, Result: r.Value})
			}
		case sc.KindMedication:
			tm, ok := sc.TimingOf(a.Drug, a.Route)
			if !ok {
				continue
			}
			due := a.T + float64(tm.Peak)
			if now := float64(e.s.T); due > now || !e.lookedSince(due) {
				what := strings.TrimPrefix(a.String(), "medication ")
				out = append(out, Awaited{T: a.T, What: what, Due: due, Overdue: due <= now})
			}
		}
	}
	return out
}

// looks are the trainee's own looks at the patient: observations, an examination, and in an
// arrest the checks of pulse and rhythm.
var looks = []sc.ActionKind{sc.KindCheckVitals, sc.KindExamine, sc.KindPupils, sc.KindPulseCheck, sc.KindRhythmCheck}

// lookedSince reports whether the trainee looked at the patient at or after ward time t.
func (e *Engine) lookedSince(t float64) bool {
	return slices.ContainsFunc(e.s.Actions, func(a ActionRecord) bool { return a.T >= t && slices.Contains(looks, a.Kind) })
}
