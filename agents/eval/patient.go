package eval

import (
	"context"
	_ "embed"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
)

// EvalPatient plays every patient script and judges each reply of the played patient to a line
// the trainee typed (slash commands aside): it stays in character, quotes no number the engine
// did not give, and says no more than the patient's consciousness allows. Each such line is a
// case, in the category of the patient's consciousness (AVPU) at the time.
func EvalPatient(ctx context.Context, b llm.Backend, play Player) Report {
	r := Report{Suite: "patient", Backend: b.Name(), Model: b.Model()}
	for _, s := range patientScripts() {
		played, err := play(ctx, s)
		if err != nil {
			r.Record(s.Name, "setup", "the script could not be played: "+err.Error(), "")
			continue
		}
		for _, t := range played.Turns {
			if strings.HasPrefix(t.Line, "/") {
				continue
			}
			said := replies(t.Calls, agents.AgentPatient)
			r.Record(s.Name+": "+t.Line, consciousness[t.AVPU], judgePatient(t, said), strings.Join(said, "\n\n"))
		}
	}
	return r
}

//go:embed cases/patient.yaml
var patientScriptsYAML []byte

var patientScripts = sync.OnceValue(func() []Script { return mustCases[Script](patientScriptsYAML) })

// consciousness names each ACVPU level as a category.
var consciousness = map[string]string{"A": "alert", "C": "confused", "V": "voice", "P": "pain", "U": "unresponsive"}

// judgePatient says what is wrong with the Patient's replies in one turn, "" when nothing is.
func judgePatient(t PlayedTurn, said []string) string {
	if len(said) == 0 {
		return "the Patient did not answer"
	}
	allowed := givenNumbers(t.Calls, agents.AgentPatient)
	var reasons []string
	for _, reply := range said {
		reasons = append(reasons, inCharacter(reply)...)
		reasons = append(reasons, unsourcedNumbers(reply, allowed)...)
		reasons = append(reasons, beyondConsciousness(reply, t.AVPU)...)
	}
	return strings.Join(slices.Compact(reasons), "; ")
}

// outOfCharacter are words a patient has no reason to say: the machinery behind the role.
var outOfCharacter = regexp.MustCompile(`(?i)\b(as an ai|language model|simulation|scenario|prompt|json|engine facts|patient facts|entities_to_update)\b`)

func inCharacter(reply string) []string {
	switch {
	case reply == "":
		return []string{"an empty reply"}
	case strings.HasPrefix(reply, "{"):
		return []string{"the reply is the output format, not speech"}
	}
	if m := outOfCharacter.FindString(reply); m != "" {
		return []string{fmt.Sprintf("steps out of character (%q)", m)}
	}
	return nil
}

var number = regexp.MustCompile(`\d+(?:\.\d+)?`)

// givenNumbers are the numbers an agent (any agent, for "") could have taken from somewhere: the
// facts lines the engine wrote into its prompt, the engine's tool results, and the conversation
// (what the trainee said, and what was said before).
func givenNumbers(calls []llm.TraceRecord, agent string) map[string]bool {
	allowed := map[string]bool{}
	add := func(text string) {
		for _, n := range number.FindAllString(text, -1) {
			allowed[agents.Canonical(n)] = true
		}
	}
	for _, c := range calls {
		if agent != "" && c.Agent != agent {
			continue
		}
		for _, m := range c.Messages {
			if m.Role != memory.RoleSystem {
				add(m.Content)
				continue
			}
			for _, line := range strings.Split(m.Content, "\n") {
				if strings.HasPrefix(line, "Patient facts: ") || strings.HasPrefix(line, "Engine facts: ") {
					add(line)
				}
			}
		}
	}
	return allowed
}

func unsourcedNumbers(reply string, allowed map[string]bool) []string {
	var invented []string
	for _, n := range number.FindAllString(reply, -1) {
		if !allowed[agents.Canonical(n)] && !slices.Contains(invented, n) {
			invented = append(invented, n)
		}
	}
	if len(invented) == 0 {
		return nil
	}
	return []string{"quotes numbers no fact gives: " + strings.Join(invented, ", ")}
}

// maxWordsAtVoice bounds what a patient who responds only to voice says: a few confused words
// or a short phrase, not a conversation.
const maxWordsAtVoice = 15

var (
	// stageDirections are the *actions*, _narration_ and (asides) a reply may hold besides speech.
	stageDirections = regexp.MustCompile(`\*[^*]*\*|_[^_]*_|\([^)]*\)|\[[^\]]*\]`)
	firstPerson     = regexp.MustCompile(`(?i)\b(i|i'm|i’m|i've|i’ve|i'd|i’d|i'll|i’ll|me|my|mine|myself)\b`)
	// vocal are the sounds of a patient who responds to pain; one who is unresponsive makes none.
	vocal = regexp.MustCompile(`(?i)\b(groan|moan|mumbl|murmur|grunt|whimper|mutter)\w*`)
)

// beyondConsciousness says what a reply says that the patient's consciousness does not allow:
// at V a few words, at P sounds and movements but no words, at U nothing at all. What is not
// speech (actions in asterisks, narration in underscores or in the third person, asides in
// brackets) is allowed at every level, save the sounds at U.
func beyondConsciousness(reply, avpu string) []string {
	spoken := stageDirections.ReplaceAllString(reply, " ")
	switch avpu {
	case "V":
		if n := len(strings.Fields(spoken)); n > maxWordsAtVoice {
			return []string{fmt.Sprintf("says %d words at AVPU V; a patient who responds to voice says %d at most", n, maxWordsAtVoice)}
		}
	case "P", "U":
		if m := firstPerson.FindString(spoken); m != "" || strings.Contains(spoken, "?") {
			return []string{fmt.Sprintf("speaks in words at AVPU %s (%q)", avpu, strings.TrimSpace(llm.Clip(spoken, 60)))}
		}
		if m := vocal.FindString(reply); avpu == "U" && m != "" {
			return []string{fmt.Sprintf("makes sounds at AVPU U (%q); an unresponsive patient makes none", m)}
		}
	}
	return nil
}
