package physio

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	sc "github.com/ward-sim/ward/session/scenario"
)

// An instructor steers a running case from the class's board: a deterioration to a named state
// of the scenario, a result arriving, a relative's call, a patient admitted, or the shift ended.
// The engine keeps each as its own record, apart from what the trainee did, so the After Action
// Review and the debrief say which moments were the instructor's.

// Injected is one event the instructor put into the case, at ward time T.
type Injected struct {
	T    float64 `json:"t"`
	Kind string  `json:"kind"` // one of the Inject kinds
	Text string  `json:"text"` // the state moved to, the result or call's words, the admission's scenario
}

// String is the injection in the review's words: "a deterioration to shocked".
func (in Injected) String() string {
	switch in.Kind {
	case InjectDeterioration:
		return "a deterioration to " + in.Text
	case InjectResult:
		return "a result arriving: " + in.Text
	case InjectCall:
		return fmt.Sprintf("a relative's phone call: %q", in.Text)
	case InjectAdmission:
		return "this admission, with the case " + in.Text
	}
	return "the end of the case, for debrief"
}

// Kinds of Injected.
const (
	InjectDeterioration = "deterioration"
	InjectResult        = "result"
	InjectCall          = "call"
	InjectAdmission     = "admission"
	InjectEnd           = "end"
)

// PlaceEnded is the disposition of a case the instructor ended: it closes the case as a
// disposition does, and scores as none given where the case called for one.
const PlaceEnded = "ended by the instructor"

// reasonInjected is the reason the state history gives for a deterioration the instructor injected.
const reasonInjected = "injected by the instructor"

// Deteriorate moves the patient to the scenario's state named, as the instructor injected it.
// The vitals move from where they are toward the new state's, as they do on any transition.
func (e *Engine) Deteriorate(state string) (Event, error) {
	switch {
	case e.Closed():
		return Event{}, ErrClosed
	case e.sc.State(state) == nil:
		return Event{}, fmt.Errorf("the scenario %s has no state %q: one of %s", e.sc.ID, state, strings.Join(slices.Sorted(maps.Keys(e.sc.States)), ", "))
	case state == e.s.State:
		return Event{}, fmt.Errorf("%s is in state %s already", e.s.PatientID, state)
	}
	out := e.enter(state, reasonInjected, nil)
	return out[0], e.Record(InjectDeterioration, state)
}

// Worsens reports whether moving the patient to state would raise their NEWS2 from where it is
// now, judged on the values the state leads to: the instructor may move a patient to a better
// state as well as a worse one, and the nurse who calls about it must not say the opposite.
func (e *Engine) Worsens(state string) bool {
	st := e.sc.State(state)
	if st == nil {
		return false
	}
	var raw [sc.NumVitals]float64
	for v := range raw {
		raw[v] = st.Target(sc.Vital(v))
	}
	return NEWS2(vitalsFrom(&raw, e.sc), e.Scale(), e.s.OnOxygen).Total > e.TrueNEWS2().Total
}

// Record keeps an event the instructor injected in the case's record. A closed case takes none.
func (e *Engine) Record(kind, text string) error {
	if e.Closed() {
		return ErrClosed
	}
	e.s.Injected = append(e.s.Injected, Injected{T: float64(e.s.T), Kind: kind, Text: text})
	return nil
}

// Injections are the events the instructor injected, oldest first.
func (e *Engine) Injections() []Injected { return capped(e.s.Injected) }

// injectedResults are the results the instructor sent, as the header and the notes list results.
func (e *Engine) injectedResults() []Result {
	var out []Result
	for _, in := range e.s.Injected {
		if in.Kind == InjectResult {
			out = append(out, Result{T: in.T, Name: resultInjected, Value: in.Text})
		}
	}
	return out
}

// resultInjected names a result the instructor sent: the lab's, whatever it measured.
const resultInjected = "result"

// End closes the case as the instructor ended it, for the debrief: the engine stops, as after a
// disposition, and the reflective questions are left.
func (e *Engine) End() error {
	if e.Closed() {
		return ErrClosed
	}
	_ = e.Record(InjectEnd, "") // the case is open: checked above
	e.s.Disposition = &DispositionRecord{T: float64(e.s.T), Place: PlaceEnded}
	return nil
}
