package scenario

import (
	"regexp"
	"strings"
)

// A finding never states a number the engine owns. The temperature, the blood pressure, a pulse
// or breathing rate, the saturation and the glucose move with the course and with every drug,
// and the trainee reads them from the engine's observations and monitor; a finding written as
// "core temperature 35.2 °C" or "BP 150/98" goes on saying so after the body has moved on. What
// no vital sign holds (a fetal heart rate, a burn's extent, a peak flow) may be a number.

// Measurement is a finding that states a vital sign the engine owns.
type Measurement struct {
	Path    string // where it is written: findings.focused, states.shock.findings.focused
	Finding string
	Number  string // the words that state it: "35.2 °C"
}

// Measurements lists every finding of s, the baseline's and each state's, that states a vital
// sign's value.
func (s *Scenario) Measurements() []Measurement {
	var out []Measurement
	s.eachFinding(func(path, finding string) {
		if n := vitalNumber(finding); n != "" {
			out = append(out, Measurement{Path: path, Finding: finding, Number: n})
		}
	})
	return out
}

// vitalNumbers are the ways a finding states a vital sign: a temperature, a blood pressure, a
// rate a minute, a saturation and a glucose. A rate a minute counts unless it is the fetal heart's.
var vitalNumbers = regexp.MustCompile(`(?i)\d+(?:\.\d+)?\s?°C|\b\d{2,3}/\d{2,3}\b|\d+\s?/\s?min\b|` +
	`(?:saturation|saturating|sats|spo2)\D{0,15}\d+\s?%|glucose\D{0,20}\d+(?:\.\d+)?\s?mmol`)

// vitalNumber is the first words of finding that state a vital sign's value, or "".
func vitalNumber(finding string) string {
	for _, at := range vitalNumbers.FindAllStringIndex(finding, -1) {
		said := finding[at[0]:at[1]]
		if strings.HasSuffix(strings.ToLower(strings.ReplaceAll(said, " ", "")), "/min") &&
			strings.Contains(strings.ToLower(finding[max(0, at[0]-24):at[0]]), "fetal") {
			continue
		}
		return said
	}
	return ""
}
