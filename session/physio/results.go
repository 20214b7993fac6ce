package physio

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	sc "github.com/ward-sim/ward/session/scenario"
)

// Result is what a measurement or a look the trainee asked for found, beyond the vital signs:
// a capillary glucose, a 12-lead ECG, the pupils. The engine reports it from its own record, so
// the Monitor, the header and the notes say the same thing.
type Result struct {
	T     float64 `json:"t"`     // ward time it was taken
	Name  string  `json:"name"`  // "capillary glucose", "12-lead ECG", "pupils"
	Value string  `json:"value"` // "2.1 mmol/L", "sinus rhythm; ST elevation in II, III and aVF", "pinpoint"
	// Exam marks a finding of the trainee's own examination, which the nurse reads out, not the
	// monitor.
	Exam bool `json:"exam,omitempty"`
}

// String is the result as one line of a note: "capillary glucose 2.1 mmol/L".
func (r Result) String() string { return r.Name + " " + r.Value }

// ResultOf is what the action a found, if it is a measurement with a result.
func (e *Engine) ResultOf(a ActionRecord) (Result, bool) {
	st := e.StateAt(a.T)
	switch a.Kind {
	case sc.KindGlucoseCheck:
		return Result{T: a.T, Name: "capillary glucose", Value: fmt.Sprintf("%g mmol/L", a.Glucose)}, true
	case sc.KindECG: // a 12-lead takes a while to record: it shows what a change in its second made
		st := e.StateAt(a.T + 0.5)
		return Result{T: a.T, Name: sc.Tests[testECG], Value: ecgOf(st)}, ecgOf(st) != ""
	case sc.KindPupils, sc.KindExamine:
		region := cmp.Or(a.Region, "pupils")
		name := sc.RegionNames[region]
		if region == "limbs" && a.Side != "" { // "left leg (neurovascular)"
			name = a.Side + " " + cmp.Or(a.Limb, "limbs") + " (neurovascular)"
		}
		return Result{T: a.T, Name: name, Value: cmp.Or(a.Found, st.Finding(region)), Exam: true}, true
	case sc.KindTest:
		if a.Test == testWeight {
			return Result{T: a.T, Name: sc.Tests[testWeight], Value: e.weightText()}, true
		}
		return Result{T: a.T, Name: sc.Tests[a.Test], Value: cmp.Or(st.Results[a.Test], noResult)}, true
	}
	return e.arrestResult(a)
}

// testECG is the result a state gives for its 12-lead ECG beyond the rhythm.
const testECG = "ecg"

// testWeight is the patient's weight, the one measurement the case's demographics answer.
const testWeight = "weight"

// weightText is the patient's weight as the nurse gives it, or what a dose by weight is worked out
// from when the case records none (sc.DoseContext.Weight).
func (e *Engine) weightText() string {
	if w := e.sc.Demographics.WeightKg; w > 0 {
		return strconv.FormatFloat(w, 'f', -1, 64) + " kg"
	}
	return fmt.Sprintf("not recorded: doses per kg are worked out from %g kg", float64(sc.ReferenceWeightKg))
}

// ecgOf is what a 12-lead ECG shows in st: the state's own reading of it when it gives one
// (rate, rhythm in words, intervals, ST and T changes: the trainee names the rhythm), else the
// state's rhythm.
func ecgOf(st *sc.State) string { return cmp.Or(st.Results[testECG], st.Rhythm) }

// noResult is what a test the scenario gives no result for finds: it is done, and nothing in it
// changes the case.
const noResult = "done; nothing in it changes what to do now"

// Results are every result so far, oldest first: those of the trainee's actions, and any the
// instructor sent (injected.go).
func (e *Engine) Results() []Result {
	var out []Result
	for _, a := range e.s.Actions {
		if r, ok := e.ResultOf(a); ok {
			out = append(out, r)
		}
	}
	if sent := e.injectedResults(); len(sent) > 0 {
		out = append(out, sent...)
		slices.SortStableFunc(out, func(a, b Result) int { return cmp.Compare(a.T, b.T) })
	}
	return out
}

// StateAt is the scenario state the patient was in at ward time t: actions in a second come
// before the state change they cause, so a change at t counts from the next second.
func (e *Engine) StateAt(t float64) *sc.State {
	name := e.s.States[0].To
	for _, c := range e.s.States[1:] {
		if c.T >= t {
			break
		}
		name = c.To
	}
	return e.sc.State(name)
}
