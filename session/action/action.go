package action

import sc "github.com/ward-sim/ward/session/scenario"

// Action is one thing the trainee did, as parsed from text. Zero fields were
// not stated; the parser never fills them in by guessing.
type Action struct {
	Kind sc.ActionKind `json:"action"`
	Drug string        `json:"drug,omitempty"` // canonical catalogue name
	// Dose is the dose as written: an amount, a volume, a strength or all three ("0.5 mL of 1 in
	// 1000"). DoseMg is the same dose in mg, where it is a mass: as written until the engine has
	// checked the order, then as the formulary converts it.
	Dose     sc.Dose `json:"dose,omitzero"`
	DoseMg   float64 `json:"dose_mg,omitempty"`
	Route    string  `json:"route,omitempty"`     // IM, IV, IO, PO, SL, IN, NEB, SC, PR, BUCCAL, INH
	VolumeML float64 `json:"volume_ml,omitempty"` // fluids, or a drug given by volume
	// Override repeats a medication order the Pharmacist stopped, on purpose: it is given.
	Override bool    `json:"override,omitempty"`
	Device   string  `json:"device,omitempty"` // oxygen, airway or ventilation device
	FlowLPM  float64 `json:"flow_l_min,omitempty"`
	FiO2     float64 `json:"fio2,omitempty"` // percent, when stated (a 28 % venturi)
	Topic    string  `json:"topic,omitempty"`
	Test     string  `json:"test,omitempty"` // the investigation ordered (sc.Tests)
	Position string  `json:"position,omitempty"`
	Region   string  `json:"region,omitempty"` // what an examination examined (sc.Regions)
	Gas      string  `json:"gas,omitempty"`    // what drives a nebuliser: oxygen or air, when stated
	Team     string  `json:"team,omitempty"`   // the team a referral calls (sc.Teams)
	// Target is a prescribed SpO2 range, lowest and highest percent.
	Target [2]float64 `json:"target,omitzero"`
	// A cardiac arrest's actions: a shock's energy, the rhythm the trainee named, the rate and
	// quality of compressions as stated, a reversible cause considered or treated.
	EnergyJ float64 `json:"energy_j,omitempty"`
	Rhythm  string  `json:"rhythm,omitempty"`
	Rate    int     `json:"rate,omitempty"`
	Quality string  `json:"quality,omitempty"` // QualityPoor, or empty
	Cause   string  `json:"cause,omitempty"`
	// Side is the side a one-sided procedure was done on, or a limb examined on ("left" or
	// "right"), when stated; Limb is which limb an examination named ("arm" or "leg").
	Side string `json:"side,omitempty"`
	Limb string `json:"limb,omitempty"`
}

// QualityPoor marks compressions stated too slow, too fast or too shallow.
const QualityPoor = "poor"

// IsTreatment reports whether the action does something to the patient, as
// opposed to assessing or asking.
func (a Action) IsTreatment() bool {
	switch a.Kind {
	case sc.KindOxygen, sc.KindStopOxygen, sc.KindMedication, sc.KindIVAccess, sc.KindFluids,
		sc.KindAirway, sc.KindVentilate, sc.KindPosition, sc.KindSplint, sc.KindRefer, sc.KindVagal, sc.KindCardioversion,
		sc.KindPacing, sc.KindCPR, sc.KindShock, sc.KindTreatCause, sc.KindHaemorrhageControl, sc.KindFeed:
		return true
	}
	return false
}

// IsAssessment reports whether the action measures the patient.
func (a Action) IsAssessment() bool {
	switch a.Kind {
	case sc.KindCheckVitals, sc.KindAttachMonitor, sc.KindGlucoseCheck, sc.KindECG, sc.KindExamine, sc.KindPupils,
		sc.KindTest, sc.KindRhythmCheck, sc.KindPulseCheck:
		return true
	}
	return false
}

// WrittenDose is the order's dose as written; an action built with only DoseMg or VolumeML (a test's,
// or one stored before doses were kept) is read as that many mg or mL.
func (a Action) WrittenDose() sc.Dose {
	switch {
	case !a.Dose.IsZero():
		return a.Dose
	case a.DoseMg > 0:
		return sc.Dose{Amount: a.DoseMg, Unit: sc.Milligrams, VolumeML: a.VolumeML}
	}
	return sc.Dose{VolumeML: a.VolumeML}
}
