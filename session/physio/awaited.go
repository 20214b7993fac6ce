package physio

import (
	"regexp"
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

// lookedSince reports whether the trainee took observations or examined the patient at or after
// ward time t.
func (e *Engine) lookedSince(t float64) bool {
	for _, a := range e.s.Actions {
		if a.T >= t && (a.Kind == sc.KindCheckVitals || a.Kind == sc.KindExamine || a.Kind == sc.KindPupils) {
			return true
		}
	}
	return false
}
