package memory

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

var headings = map[Category]string{
	StateHistory:       "State",
	VitalsMeasurements: "Vitals (oldest first)",
	PatientDisclosures: "Disclosed by the patient",
	CriticalActions:    "Actions",
	CompoundActions:    "Compound actions",
	Assessments:        "Findings",
	KeyQuotes:          "Quotes",
	SceneEvents:        "Scene",
	Errors:             "Errors",
}

const safetyHeading = "SAFETY, every allergy, contraindication, reaction and current medication disclosed"

// Render writes the selection as compact prompt text: one heading per category that has items,
// one line per item. Safety disclosures come first under their own heading so a treatment turn
// cannot miss them. An empty selection renders as "".
func (s Selection) Render() string {
	if len(s.Items) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Patient memory:\n") // the dynamic context gives the time now
	s.section(&b, safetyHeading, func(x Selected) bool { return x.Protected() })
	for _, c := range Categories {
		s.section(&b, headings[c], func(x Selected) bool { return x.Category == c && !x.Protected() })
	}
	return b.String()
}

func (s Selection) section(b *strings.Builder, heading string, in func(Selected) bool) {
	wrote := false
	for _, x := range s.Items {
		if !in(x) {
			continue
		}
		if !wrote {
			b.WriteString(heading + ":\n")
			wrote = true
		}
		b.WriteString("- " + s.Line(x) + "\n")
	}
}

// Line renders one selected item as the prompt shows it, with its sim time.
func (s Selection) Line(x Selected) string {
	it := x.Item
	if it.Vitals != nil {
		var buf [80]byte
		return string(s.appendReading(buf[:0], it))
	}
	at := s.clock(it.T)
	switch {
	case it.Topic != "":
		return at + " " + string(it.Topic) + ": " + it.Text
	case it.Speaker != "":
		return fmt.Sprintf("%s %s: %q", at, it.Speaker, it.Text)
	}
	return at + " " + it.Text
}

// appendReading writes a reading's line, as Line does, after b: memory writes one for every
// reading it prunes.
func (s Selection) appendReading(b []byte, it Item) []byte {
	return it.Vitals.appendTo(append(appendClock(b, it.T-s.Start), ' '))
}

// clock shows sim time relative to the scenario start.
func (s Selection) clock(t float64) string { return Clock(t - s.Start) }

// Clock writes sim seconds since arrival as prompts, memory and drafts show a moment: T+mm:ss,
// T+h:mm:ss past the hour, and T- before arrival.
func Clock(elapsed float64) string {
	var buf [16]byte
	return string(appendClock(buf[:0], elapsed))
}

// appendClock writes elapsed as Clock does.
func appendClock(b []byte, elapsed float64) []byte {
	sign := byte('+')
	if elapsed < 0 {
		sign, elapsed = '-', -elapsed
	}
	b = append(b, 'T', sign)
	sec := int64(math.Round(elapsed))
	if sec >= 3600 {
		b = append(strconv.AppendInt(b, sec/3600, 10), ':')
		b = append(appendTwoDigits(b, sec/60%60), ':')
		return appendTwoDigits(b, sec%60)
	}
	return appendTwoDigits(append(appendTwoDigits(b, sec/60), ':'), sec%60)
}

// appendTwoDigits writes n as "%02d" does: a leading zero on 0 to 9.
func appendTwoDigits(b []byte, n int64) []byte {
	if n >= 0 && n < 10 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, n, 10)
}
