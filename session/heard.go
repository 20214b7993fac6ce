package session

import (
	"slices"
	"strings"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/memory/words"
)

// arrivalCue is what the Patient hears when the trainee's line only took them to the patient:
// someone comes to the bedside, and nothing was said to the patient yet.
const arrivalCue = "(The trainee comes to your bedside.)"

// movingWords are what a line that only goes to a patient is made of, besides the patient's ID,
// name and bed: "review patient_1", "go back to the first one", "switch to Mr Chen in bed 4".
var movingWords = []string{
	"review", "reviewing", "see", "seeing", "switch", "switching", "go", "going", "back", "over", "to", "onto",
	"visit", "attend", "admit", "admitting", "move", "moving", "on", "let's", "lets", "let", "us", "now", "next",
	"then", "and", "ok", "okay", "right", "please", "i", "i'll", "ill", "will", "the", "a", "an", "patient", "pt",
	"bed", "one", "other", "first", "second", "third", "last", "new", "mr", "mrs", "ms", "miss", "dr", "in", "with",
}

// heardBy is the trainee's line as agent a hears it. The Patient of a line that only moved the
// trainee to them hears the arrival, not the command: a model would answer "review patient_1"
// in character.
func (s *Session) heardBy(a agents.Agent, t *turn) string {
	moved := t.decision == DecisionNewBlank || t.decision == DecisionSwitchExisting
	if a.Name != agents.AgentPatient || !moved || !s.onlyMovesTo(s.active, t.input) {
		return t.input
	}
	return arrivalCue
}

// onlyMovesTo reports whether text holds nothing but the way to patient id: moving words,
// numbers, the patient's ID and the words of their name and bed.
func (s *Session) onlyMovesTo(id, text string) bool {
	facts := s.reg.Patients[id].Facts
	name, _ := facts["name"].(string)
	bed, _ := facts["bed"].(string)
	theirs := words.Lower(words.Split(name + " " + bed))
	for _, w := range words.Lower(words.Split(text)) {
		w = strings.Trim(w, ".,;:!?'\"")
		switch {
		case w == "", slices.Contains(movingWords, w), slices.Contains(theirs, w), isNumber(w), s.cfg.Pattern.MatchString(w):
		default:
			return false
		}
	}
	return true
}

func isNumber(w string) bool {
	return strings.Trim(w, "0123456789") == ""
}
