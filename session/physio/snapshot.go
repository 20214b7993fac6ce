package physio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	sc "github.com/ward-sim/ward/session/scenario"
)

// Snapshot is an engine's complete state. It round-trips through JSON, and
// an engine restored from it continues exactly as the original would.
type Snapshot struct {
	PatientID string `json:"patient_id"`
	Scenario  string `json:"scenario"`
	// Patient is who the case's variants drew at admission; nil: the case as written.
	Patient          *sc.Patient           `json:"patient,omitempty"`
	RNG              uint64                `json:"rng,string"`
	Admitted         int64                 `json:"admitted"` // ward second of arrival
	T                int64                 `json:"t"`        // ward second reached
	State            string                `json:"state"`
	StateSince       int64                 `json:"state_since"`
	Trend            [sc.NumVitals]float64 `json:"trend"`
	Jitter           [sc.NumVitals]float64 `json:"jitter"`
	OnOxygen         bool                  `json:"on_oxygen"`
	Monitored        bool                  `json:"monitored"`
	NextReading      int64                 `json:"next_reading"`
	AllergiesAskedAt int64                 `json:"allergies_asked_at"` // -1 until asked
	LastGlucose      float64               `json:"last_glucose,omitempty"`
	NEWS2AtArrival   int                   `json:"news2_at_arrival"`
	Effects          []ActiveEffect        `json:"effects"`
	// Seen and HeldSince are indexed by the scenario's transition conditions:
	// whether a condition's action has happened (in this state, or ever for
	// "done"), and since when a vital threshold has held (-1: not holding).
	Seen      []bool         `json:"seen"`
	HeldSince []int64        `json:"held_since"`
	Actions   []ActionRecord `json:"actions"`
	Readings  []Reading      `json:"readings"`
	States    []StateChange  `json:"states"`
	Safety    []SafetyRecord `json:"safety"`
	Errors    []ErrorRecord  `json:"critical_errors"`
	// Told are the topics the patient has answered; what they told is known to the trainee.
	Told []string `json:"told,omitempty"`
	// Orders are every medication order checked, given or not, and the fluids and SpO2 targets
	// the nurse refused (no access sited, no hypercapnia documented).
	Orders []OrderRecord `json:"orders,omitempty"`
	// NextObs is when a nurse next observes an unmonitored patient; Limits the alarm limits the
	// trainee set; Latched the limits crossed at the last monitor reading; Escalated the level a
	// nurse last called for; Alerts every alarm and escalation.
	NextObs   int64           `json:"next_obs"`
	Attended  int64           `json:"attended"` // when the trainee last did something for the patient; -1 never
	Limits    []sc.AlarmLimit `json:"alarm_limits,omitempty"`
	Latched   []string        `json:"latched,omitempty"`
	Escalated string          `json:"escalated,omitempty"`
	Alerts    []AlertRecord   `json:"alerts,omitempty"`
	// AccessAt is when vascular access is (or will be) in; -1: none sited.
	AccessAt int64 `json:"access_at"`
	// Scale2: the trainee prescribed a target of 88–92 % for a patient at risk of hypercapnia;
	// NEWS2 is on Scale 2 once it is documented (scale.go).
	Scale2 bool `json:"scale2,omitempty"`
	// Entered is the trend when the current state began, from which its vitals move (felt.go).
	Entered [sc.NumVitals]float64 `json:"entered"`
	// Pending are actions given whose consequences are still to come (course.go).
	Pending []Pending `json:"pending,omitempty"`
	// Diagnoses are the working diagnoses committed to, the last standing; Disposition where the
	// patient went, which closed the case; Reflections the answers to the reflective questions.
	Diagnoses   []DiagnosisRecord  `json:"diagnoses,omitempty"`
	Disposition *DispositionRecord `json:"disposition,omitempty"`
	Reflections []ReflectionAnswer `json:"reflections,omitempty"`
	// Arrest is the cardiac arrest, from the collapse on; Beat is how many beats the monitor
	// has drawn, so the strip scrolls on from where it was.
	Arrest *ArrestRecord `json:"arrest,omitempty"`
	Beat   float64       `json:"beat,omitempty"`
	// Injected are the events the instructor put into the case from the class's board (injected.go).
	Injected []Injected `json:"injected,omitempty"`
}

// Snapshot returns a copy of the engine's state that shares nothing with it.
func (e *Engine) Snapshot() Snapshot { return e.s.clone() }

// EncodeJSON is json.Marshal of the engine's Snapshot, written by hand from the state where it
// lies (encode.go): a turn stores every engine that changed. A state encoding/json refuses (a
// NaN) gets encoding/json's own error.
func (e *Engine) EncodeJSON() ([]byte, error) {
	scratch := encodings.Get().(*[]byte)
	defer encodings.Put(scratch)
	out, ok := snapshotJSON((*scratch)[:0], &e.s)
	*scratch = out
	if !ok {
		return json.Marshal(&e.s)
	}
	return bytes.Clone(out), nil
}

// encodings are buffers to encode snapshots in, each as large as the largest it held: the
// encoding is copied out at its length, as encoding/json does, so a document the store holds
// until its commit takes no more memory than it needs, and growing the buffer is paid once.
var encodings = sync.Pool{New: func() any { return new([]byte) }}

// Restore rebuilds an engine from a snapshot of scenario s, as the patient drawn at admission.
func Restore(snap Snapshot, s *sc.Scenario) (*Engine, error) {
	if snap.Scenario != s.ID {
		return nil, fmt.Errorf("snapshot of %s is for scenario %q, not %q", snap.PatientID, snap.Scenario, s.ID)
	}
	s = s.As(snap.Patient)
	st := s.State(snap.State)
	if st == nil {
		return nil, fmt.Errorf("snapshot of %s is in state %q, which scenario %q does not have", snap.PatientID, snap.State, s.ID)
	}
	if len(snap.Seen) != s.NumConditions() || len(snap.HeldSince) != s.NumConditions() {
		return nil, fmt.Errorf("snapshot of %s does not fit scenario %q (its transitions changed)", snap.PatientID, s.ID)
	}
	return &Engine{s: snap.clone(), sc: s, cur: st}, nil
}

func (s Snapshot) clone() Snapshot {
	s.Patient = clonePtr(s.Patient) // its allergy, medication and jitter are never changed after the draw
	s.Effects = slices.Clone(s.Effects)
	s.Seen = slices.Clone(s.Seen)
	s.HeldSince = slices.Clone(s.HeldSince)
	s.Actions = slices.Clone(s.Actions)
	s.Readings = slices.Clone(s.Readings)
	s.States = slices.Clone(s.States)
	s.Safety = slices.Clone(s.Safety)
	s.Errors = slices.Clone(s.Errors)
	s.Told = slices.Clone(s.Told)
	s.Orders = slices.Clone(s.Orders)
	s.Pending = slices.Clone(s.Pending)
	s.Limits = slices.Clone(s.Limits)
	s.Latched = slices.Clone(s.Latched)
	s.Alerts = slices.Clone(s.Alerts)
	s.Diagnoses = slices.Clone(s.Diagnoses)
	for i, d := range s.Diagnoses {
		s.Diagnoses[i].SecondOpinion = clonePtr(d.SecondOpinion)
	}
	s.Disposition = clonePtr(s.Disposition)
	s.Reflections = slices.Clone(s.Reflections)
	s.Injected = slices.Clone(s.Injected)
	s.Arrest = s.Arrest.clone()
	for i, a := range s.Alerts { // the times acknowledged and reviewed are shared pointers
		s.Alerts[i].Acknowledged, s.Alerts[i].Reviewed = clonePtr(a.Acknowledged), clonePtr(a.Reviewed)
	}
	return s
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
