package agents

import (
	"regexp"
	"strings"

	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/memory/words"
)

// Gate states, as the gate event reports them.
const (
	GateWaiting = "waiting" // the Orchestrator proposed a plan; nobody acts until the trainee answers
	GateLifted  = "lifted"  // the trainee confirmed; the plan's first step runs
)

// Gate is the confirmation gate of one patient's conversation. It is derived
// from the history alone, so nothing extra is stored, a restart keeps it, and
// a patient change resets it (the other patient has their own history).
type Gate struct {
	Waiting bool
	Plan    []string // the agents the waiting plan's steps name, in order
}

// GateOf reads the gate from a patient's history: it waits when the
// Orchestrator's latest message holds a plan of two or more steps that name
// agents, and no trainee message has followed it.
func (t *Team) GateOf(history []memory.Message) Gate {
	for i := len(history) - 1; i >= 0; i-- {
		m := history[i]
		if m.Role == "user" {
			return Gate{}
		}
		if m.Role == "assistant" && strings.EqualFold(m.Agent, AgentOrchestrator) {
			plan := t.PlanIn(m.Content)
			return Gate{Waiting: plan != nil, Plan: plan}
		}
	}
	return Gate{}
}

var planStepPattern = regexp.MustCompile(`(?m)^[ \t>]*(?:\d{1,2}[.)]|[-*•+])[ \t]+(.+)$`)

// PlanIn returns the agents named by the steps of a plan in text, in order,
// or nil when text holds fewer than two such steps. A step is a numbered or
// bulleted line; a list whose items name no agent (an SBAR draft, say) is
// not a plan, so it never holds the gate.
func (t *Team) PlanIn(text string) []string {
	var plan []string
	for _, m := range planStepPattern.FindAllStringSubmatch(text, -1) {
		if name, ok := t.namedIn(m[1]); ok {
			plan = append(plan, name)
		}
	}
	if len(plan) < 2 {
		return nil
	}
	return plan
}

// namedIn finds the agent a plan step is for: the first name written as a
// name (capitalised), else the first in any case. So "check the patient's
// airway with the Monitor" is the Monitor's step, not the Patient's.
func (t *Team) namedIn(step string) (string, bool) {
	m := t.names.FindString(step)
	if m == "" {
		m = t.namesAnyCase.FindString(step)
	}
	if m == "" {
		return "", false
	}
	a, _ := t.Agent(m)
	return a.Name, true
}

func namesPattern(names []string, flags string) *regexp.Regexp {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = regexp.QuoteMeta(n)
	}
	return regexp.MustCompile(flags + `\b(?:` + strings.Join(quoted, "|") + `)\b`)
}

// confirmWords are the words a confirmation may be made of; at least one
// must be in affirmWords, so "thanks" alone confirms nothing.
var (
	affirmWords = wordSet("yes yeah yep yup ok okay sure proceed go ahead agreed agree approved approve " +
		"confirm confirmed do it sounds looks good fine alright continue carry on lets let's perfect great")
	politeWords = wordSet("please thanks thank you then that with it")
)

func wordSet(list string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(list) {
		set[w] = true
	}
	return set
}

// IsConfirmation reports whether text only agrees ("yes", "OK!", "go ahead",
// "sounds good, do it please"), ignoring case and punctuation. Anything with
// another word in it is a new instruction, even if it starts with yes.
func IsConfirmation(text string) bool {
	affirmed := false
	for _, w := range words.Lower(words.Split(text)) {
		switch {
		case affirmWords[w]:
			affirmed = true
		case politeWords[w]:
		default:
			return false
		}
	}
	return affirmed
}
