// Package physio is ward's deterministic physiology: one Engine per patient
// on a shared Ward clock, the action parser, drug-class safety checks, NEWS2
// and the After Action Review. It owns every number the trainee sees.
package physio

import (
	"math"

	sc "github.com/ward-sim/ward/session/scenario"
)

// Vitals is one set of observations, rounded as a monitor would show them.
// EtCO2, glucose (mmol/L), wheeze (0–3) and pain (0–10) are zero when not
// measured or not relevant to the scenario.
type Vitals struct {
	HR       int     `json:"hr"`
	RR       int     `json:"rr"`
	SpO2     int     `json:"spo2"`
	SBP      int     `json:"sbp"`
	DBP      int     `json:"dbp"`
	TempC    float64 `json:"temp_c"`
	GCS      int     `json:"gcs"`
	AVPU     string  `json:"avpu"`
	OnOxygen bool    `json:"on_oxygen"`
	EtCO2    int     `json:"etco2,omitempty"`
	Glucose  float64 `json:"glucose,omitempty"`
	Wheeze   int     `json:"wheeze,omitempty"`
	Pain     int     `json:"pain,omitempty"`
	Rhythm   string  `json:"rhythm,omitempty"`
	// NoOutput: the heart has none (a cardiac arrest), so the zero pulse, blood pressure and
	// saturation are measured, not missing.
	NoOutput bool `json:"no_output,omitempty"`
}

// vitalsFrom rounds raw values into Vitals. EtCO2, wheeze and pain are
// included only when the scenario tracks them; glucose only when measured.
func vitalsFrom(raw *[sc.NumVitals]float64, s *sc.Scenario) Vitals {
	v := Vitals{
		HR:    roundInt(raw[sc.HR]),
		RR:    roundInt(raw[sc.RR]),
		SpO2:  roundInt(raw[sc.SpO2]),
		SBP:   roundInt(raw[sc.SBP]),
		DBP:   roundInt(raw[sc.DBP]),
		TempC: math.Round(raw[sc.TempC]*10) / 10,
		GCS:   roundInt(raw[sc.GCS]),
	}
	v.AVPU = AVPUFromGCS(v.GCS)
	if s.Tracks(sc.EtCO2) {
		v.EtCO2 = roundInt(raw[sc.EtCO2])
	}
	if s.Tracks(sc.Wheeze) {
		v.Wheeze = roundInt(raw[sc.Wheeze])
	}
	if s.Tracks(sc.Pain) {
		v.Pain = roundInt(raw[sc.Pain])
	}
	return v
}

func roundInt(x float64) int { return int(math.Round(x)) }

// AVPUFromGCS maps a Glasgow Coma Score to ACVPU: 13–14 is new confusion (C),
// and each band below responds to less.
func AVPUFromGCS(gcs int) string {
	switch {
	case gcs >= 15:
		return "A"
	case gcs >= 13:
		return "C"
	case gcs >= 10:
		return "V"
	case gcs >= 6:
		return "P"
	default:
		return "U"
	}
}

// Speech is what a patient can say at their level of consciousness: the bound on every word the
// Patient says, whoever writes it.
type Speech string

const (
	SpeechTalks    Speech = "talks"    // alert: answers in sentences
	SpeechConfused Speech = "confused" // new confusion: talks, but muddled
	SpeechWords    Speech = "words"    // responds to voice: a word or two, or groans
	SpeechSounds   Speech = "sounds"   // responds to pain only: moans, withdraws; no words
	SpeechNone     Speech = "none"     // unresponsive: says nothing
)

// Speech is what the patient can say now, from their true GCS.
func (e *Engine) Speech() Speech { return SpeechAt(e.TrueVitals().GCS) }

// SpeechAt is what a patient with this GCS can say, by its ACVPU level.
func SpeechAt(gcs int) Speech {
	switch AVPUFromGCS(gcs) {
	case "A":
		return SpeechTalks
	case "C":
		return SpeechConfused
	case "V":
		return SpeechWords
	case "P":
		return SpeechSounds
	}
	return SpeechNone
}

// GivesHistory reports whether a patient who can say this much can answer questions: one who
// manages only words, sounds or nothing cannot.
func (s Speech) GivesHistory() bool { return s == SpeechTalks || s == SpeechConfused }

// Response is what the trainee sees of a patient who cannot talk, in the third person; "" for
// one who can.
func (s Speech) Response() string {
	switch s {
	case SpeechWords:
		return "opens their eyes to voice; mumbles a word or two, no sentences"
	case SpeechSounds:
		return "no words; moans and pulls away from a painful stimulus"
	case SpeechNone:
		return "no response to voice or to pain"
	}
	return ""
}
