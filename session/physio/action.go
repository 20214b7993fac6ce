package physio

import (
	"strings"

	sc "github.com/ward-sim/ward/session/scenario"
)

// Action is one thing the trainee did, as parsed from text. Zero fields were
// not stated; the parser never fills them in by guessing.
type Action struct {
	Kind     sc.ActionKind `json:"action"`
	Drug     string        `json:"drug,omitempty"`      // canonical catalogue name
	DoseMg   float64       `json:"dose_mg,omitempty"`   // mcg and g converted
	Route    string        `json:"route,omitempty"`     // IM, IV, IO, PO, SL, IN, NEB, SC, PR, BUCCAL
	VolumeML float64       `json:"volume_ml,omitempty"` // fluids, or a drug given by volume
	Device   string        `json:"device,omitempty"`    // oxygen, airway or ventilation device
	FlowLPM  float64       `json:"flow_l_min,omitempty"`
	FiO2     float64       `json:"fio2,omitempty"` // percent, when stated (a 28 % venturi)
	Topic    string        `json:"topic,omitempty"`
	Position string        `json:"position,omitempty"`
}

// IsTreatment reports whether the action does something to the patient, as
// opposed to assessing or asking.
func (a Action) IsTreatment() bool {
	switch a.Kind {
	case sc.KindOxygen, sc.KindStopOxygen, sc.KindMedication, sc.KindIVAccess, sc.KindFluids,
		sc.KindAirway, sc.KindVentilate, sc.KindPosition, sc.KindSplint:
		return true
	}
	return false
}

// IsAssessment reports whether the action measures the patient.
func (a Action) IsAssessment() bool {
	switch a.Kind {
	case sc.KindCheckVitals, sc.KindAttachMonitor, sc.KindGlucoseCheck, sc.KindECG, sc.KindExamine:
		return true
	}
	return false
}

// Parts summarises a message for compound-action handling: whether it holds
// an assessment and a treatment, how many questions it asks and about what.
type Parts struct {
	Vitals    bool     `json:"vitals"`
	Treatment bool     `json:"treatment"`
	Questions int      `json:"questions"`
	Topics    []string `json:"topics,omitempty"`
}

// Count is the number of parts: one for assessment, one for treatment, one
// per question. Three or more make a compound message.
func (p Parts) Count() int {
	n := p.Questions
	if p.Vitals {
		n++
	}
	if p.Treatment {
		n++
	}
	return n
}

// PartsOf summarises text and the actions parsed from it. Each question mark
// counts as a question, and so does each topic asked without one.
func PartsOf(text string, actions []Action) Parts {
	var p Parts
	for _, a := range actions {
		p.Vitals = p.Vitals || a.IsAssessment()
		p.Treatment = p.Treatment || a.IsTreatment()
		if a.Kind == sc.KindAsk {
			p.Topics = append(p.Topics, a.Topic)
		}
	}
	p.Questions = max(strings.Count(text, "?"), len(p.Topics))
	return p
}
