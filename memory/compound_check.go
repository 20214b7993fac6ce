package memory

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/ward-sim/ward/memory/words"
)

// Missing returns the checklist parts the reply does not seem to address. The check is a keyword
// heuristic per part kind: it catches a forgotten answer, not a wrong one. Parts it cannot check
// (an unnamed question, an unnamed treatment) count as addressed by any non-empty reply.
func Missing(checklist []Part, reply string) []Part {
	words := wordsOf(reply)
	var missing []Part
	for _, p := range checklist {
		if !addressed(normalizePart(p), reply, words) {
			missing = append(missing, p)
		}
	}
	return missing
}

var bloodPressure = regexp.MustCompile(`\d{2,3}\s*/\s*\d{2,3}`)

func addressed(p Part, reply string, words []string) bool {
	switch {
	case p.Kind == PartVitals:
		return bloodPressure.MatchString(reply) ||
			(strings.IndexFunc(reply, unicode.IsDigit) >= 0 && mentions(words, vitalsStems))
	case p.Name == "":
		return strings.TrimSpace(reply) != ""
	case p.Kind == PartQuestion:
		if stems, ok := topicStems[Topic(p.Name)]; ok {
			return mentions(words, stems)
		}
	case p.Kind == PartTreatment:
		if stems, ok := treatmentStems[p.Name]; ok {
			return mentions(words, stems)
		}
	}
	return mentions(words, wordsOf(strings.ReplaceAll(p.Name, "_", " ")))
}

var vitalsStems = []string{"hr", "heart", "pulse", "rr", "resp", "spo2", "sat", "bp", "pressure", "temp", "gcs"}

var topicStems = map[Topic][]string{
	TopicMedications:       {"medic", "meds", "pill", "tablet", "take", "taking", "inhaler", "prescri", "dose"},
	TopicAllergies:         {"allerg", "react", "hives", "rash", "anaphyla"},
	TopicHistory:           {"histor", "diagnos", "condition", "surgery", "operation", "problem", "years"},
	TopicOnset:             {"start", "began", "begin", "ago", "since", "minute", "hour", "morning", "night", "yesterday", "sudden"},
	TopicPain:              {"pain", "hurt", "ache", "sore", "tight", "pressure", "sharp", "dull", "crush"},
	TopicLastMeal:          {"ate", "eat", "meal", "breakfast", "lunch", "dinner", "food", "drink", "snack"},
	TopicEvents:            {"happen", "doing", "felt", "fell", "collapse", "start"},
	TopicContraindications: {"contraind", "take", "taking", "allerg", "react"},
	TopicAdverseReactions:  {"react", "sick", "allerg", "side"},
}

// treatmentStems cover what a patient or a narrator says about a common treatment without
// naming the drug ("the mask helps").
var treatmentStems = map[string][]string{
	"oxygen":        {"oxygen", "o2", "mask", "rebreather", "cannula", "nrb"},
	"epinephrine":   {"epinephrine", "adrenaline", "epi", "epipen", "injection"},
	"salbutamol":    {"salbutamol", "albuterol", "nebuli", "neb", "inhaler"},
	"nitroglycerin": {"gtn", "nitro", "glyceryl", "spray"},
}

// mentions reports whether any word starts with any stem.
func mentions(words, stems []string) bool {
	for _, w := range words {
		for _, s := range stems {
			if strings.HasPrefix(w, s) {
				return true
			}
		}
	}
	return false
}

// wordsOf is every piece of every word of s, lowered: "non-rebreather" counts as non and
// rebreather, so a stem matches either.
func wordsOf(s string) []string {
	var out []string
	for _, t := range words.Split(s) {
		if t.Kind == words.Word {
			out = append(out, t.Pieces()...)
		}
	}
	return out
}
