package agents

import (
	"slices"
	"strings"

	"github.com/ward-sim/ward/memory/knowledge"
	"github.com/ward-sim/ward/memory/words"
)

// A team question is a message meant for the team rather than the patient:
// asking for direction, teaching, feedback or a reference fact, or asking
// about the patient in the third person. Everything else the trainee types
// is bedside talk or an action, which the Patient answers. The match is on
// whole words, because this runs on every message.
var (
	// teamPhrases anywhere in the message.
	teamPhrases = slices.Concat(
		wordCombos([]string{"what", "what's", "what is"}, []string{"next", "now"}),
		wordCombos([]string{"what"}, []string{"should", "do", "would", "can", "must"}, []string{"i", "we"}, []string{"do"}),
		wordCombos([]string{"how"}, []string{"am i", "are we"}, []string{"doing"}),
		wordCombos([]string{"how did"}, []string{"i", "we"}, []string{"do"}),
		wordCombos([]string{"what's the", "what is the", "what are the"},
			[]string{"dose", "doses", "dosing", "differential", "diagnosis", "plan", "news", "news2", "score"}),
		wordCombos([]string{"is it", "is that", "is this"}, []string{"safe"}),
		[]string{
			"next step", "next steps", "am i missing", "help me", "safe to give",
			"hint", "hints", "suggestion", "suggestions", "feedback", "debrief",
			"interact", "interaction", "interactions", "contraindicated", "contraindication", "contraindications",
		},
	)
	// teamOpenings at the start of the message.
	teamOpenings = slices.Concat(
		wordCombos([]string{"should", "shall"}, []string{"i", "we"}),
		wordCombos([]string{"", "please"}, []string{"explain", "teach me", "remind me", "walk me through"}),
	)
	// "why is her SpO2 falling": why, a verb, then someone other than "you".
	whyVerbs    = []string{"is", "are", "was", "were", "does", "did", "has", "have", "would"}
	whySubjects = []string{"she", "he", "they", "her", "his", "their", "the", "this", "that", "my"}
	// thirdPerson words make a question about the patient, not to them.
	thirdPerson = []string{"she", "he", "her", "his", "him", "pt", "the patient", "this patient"}
)

func isTeamQuestion(text string) bool {
	said := words.Lower(words.Split(text))
	padded := words.Padded(said)
	switch {
	case words.HasPhrase(padded, teamPhrases), words.StartsWithPhrase(padded, teamOpenings):
		return true
	case asksWhyAboutSomeone(said), asksWhatMeans(padded), knowledge.IsProtocolQuestion(text):
		return true
	}
	return strings.HasSuffix(strings.TrimSpace(text), "?") && words.HasPhrase(padded, thirdPerson)
}

func asksWhyAboutSomeone(ws []string) bool {
	for i := 0; i+2 < len(ws); i++ {
		if ws[i] == "why" && slices.Contains(whyVerbs, ws[i+1]) && slices.Contains(whySubjects, ws[i+2]) {
			return true
		}
	}
	return false
}

// asksWhatMeans: "what does NEWS2 of 7 mean".
func asksWhatMeans(padded string) bool {
	i := strings.Index(padded, " what does ")
	return i >= 0 && strings.Contains(padded[i:], " mean ")
}

// wordCombos joins one choice from each part with spaces, skipping empty
// choices, so the phrase lists stay short to read.
func wordCombos(parts ...[]string) []string {
	combos := []string{""}
	for _, part := range parts {
		var next []string
		for _, c := range combos {
			for _, p := range part {
				next = append(next, strings.TrimSpace(c+" "+p))
			}
		}
		combos = next
	}
	return combos
}
