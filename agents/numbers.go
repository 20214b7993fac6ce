package agents

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A model may quote a clinical number only when its prompt gave it: the engine's facts, what was
// said in the conversation, the trainee's own words. GivenNumbers collects those; Invented finds
// the clinical numbers of a reply that are not among them. A number is clinical when a unit
// follows it or a vital sign, score, dose or result names it just before: "212" in "my heart
// rate is 212", "61 %", "10 mg". Other numbers ("two days", "since I was 8") are speech.

var anyNumber = regexp.MustCompile(`\d+(?:\.\d+)?`)

// clinical matches a number with what makes it clinical: a name before it (group 1) or a unit
// after it (group 3). Group 2 is the number.
var clinical = regexp.MustCompile(`(?i)(\b(?:heart ?rate|pulse|hr|bp|blood pressure|pressure|systolic|diastolic|sats?|saturations?|spo2|sp02|o2|oxygen|temp(?:erature)?|resp(?:iratory)? ?rate|rr|breathing rate|news2?|score|gcs|glucose|bm|sugar|cbg|ketones?|lactate|potassium|sodium|troponin|haemoglobin|hemoglobin|hb|ph|po2|pco2|pao2|paco2|bicarb(?:onate)?|creatinine|crp|wcc|white cells?|platelets|inr|dose|peak flow|pefr|etco2|capnography|rate|reading|level)\b[^\d.\n]{0,24})?` +
	`(\d+(?:\.\d+)?)(\s*(?:%|per ?cent|mm ?hg|bpm|beats|breaths|/ ?min|per minute|mg|mcg|micrograms?|milligrams?|grams?|g\b|ml|millilit(?:re|er)s?|units?|mmol|°|degrees|kg|l/min|litres?|liters?|kpa|ng/l|/ ?\d+))?`)

// GivenNumbers are the numbers a prompt gives its agent: every number in its facts lines and the
// conversation, and none from the agent's own instructions.
func GivenNumbers(p Prompt) map[string]bool {
	given := map[string]bool{}
	add := func(text string) {
		for _, n := range anyNumber.FindAllString(text, -1) {
			given[Canonical(n)] = true
		}
	}
	for _, line := range strings.Split(p.Static, "\n") {
		if strings.HasPrefix(line, PersonaHeading) {
			add(line)
		}
	}
	for name, text := range p.Texts() {
		if name != SectionStatic {
			add(text)
		}
	}
	return given
}

// Invented are the clinical numbers of reply that given lacks, each once, in order.
func Invented(reply string, given map[string]bool) []string {
	var out []string
	for _, m := range clinical.FindAllStringSubmatch(reply, -1) {
		unit := strings.TrimSpace(m[3])
		if m[1] == "" && (unit == "" || strings.HasPrefix(unit, "/") && !strings.Contains(unit, "min")) {
			continue // no name and no unit, or a bare ratio ("8/10" for pain): speech, not a reading
		}
		for _, n := range anyNumber.FindAllString(m[2]+m[3], -1) { // "120/80" is two numbers
			if !given[Canonical(n)] && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// Canonical writes a number one way, so "02", "2" and "2.0" are the same number.
func Canonical(n string) string {
	v, err := strconv.ParseFloat(n, 64)
	if err != nil {
		return n
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
