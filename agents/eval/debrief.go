package eval

import (
	"context"
	_ "embed"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/llm"
)

// EvalDebrief plays every debrief script, each of which commits critical errors and ends in
// /aar, and checks that the Preceptor's debrief names every critical error on the engine's
// record. A script that leaves no critical error on record fails: it would test nothing.
func EvalDebrief(ctx context.Context, b llm.Backend, play Player) Report {
	r := Report{Suite: "debrief", Backend: b.Name(), Model: b.Model()}
	for _, s := range debriefScripts() {
		played, err := play(ctx, s)
		if err != nil {
			r.Record(s.Name, s.Scenario, "the script could not be played: "+err.Error(), "")
			continue
		}
		var said []string
		if n := len(played.Turns); n > 0 {
			said = replies(played.Turns[n-1].Calls, agents.AgentPreceptor)
		}
		debrief := strings.Join(said, "\n\n")
		r.Record(s.Name, s.Scenario, judgeDebrief(played.CriticalErrors, debrief), debrief)
	}
	return r
}

//go:embed cases/debrief.yaml
var debriefScriptsYAML []byte

var debriefScripts = sync.OnceValue(func() []Script { return mustCases[Script](debriefScriptsYAML) })

func judgeDebrief(errs []CriticalError, debrief string) string {
	switch {
	case len(errs) == 0:
		return "no critical error on record: the script tests nothing"
	case strings.TrimSpace(debrief) == "":
		return "the Preceptor did not debrief"
	}
	var missed []string
	for _, e := range errs {
		if !names(debrief, e) {
			missed = append(missed, fmt.Sprintf("%q (%s)", e.Description, e.ID))
		}
	}
	if len(missed) == 0 {
		return ""
	}
	return "does not name the critical error " + strings.Join(missed, ", ")
}

// names reports whether text names the critical error: it mentions at least half the words of
// the error's id, or of its description up to the first dash or semicolon (the error's name;
// the rest says why it is one). Words match on their first five letters, so "sedated" names
// "Sedating", and short words that name nothing are left out.
func names(text string, e CriticalError) bool {
	said := map[string]bool{}
	for _, w := range wordPattern.FindAllString(text, -1) {
		said[stem(w)] = true
	}
	name, _, _ := strings.Cut(strings.NewReplacer(" — ", ";", " – ", ";", " - ", ";").Replace(e.Description), ";")
	for _, phrase := range []string{strings.ReplaceAll(e.ID, "-", " "), name} {
		keys := keyWords(phrase)
		found := 0
		for _, k := range keys {
			if said[k] {
				found++
			}
		}
		if len(keys) > 0 && 2*found >= len(keys) {
			return true
		}
	}
	return false
}

var wordPattern = regexp.MustCompile(`[\p{L}\p{N}]+`)

func stem(w string) string {
	w = strings.ToLower(w)
	if r := []rune(w); len(r) > 5 {
		return string(r[:5])
	}
	return w
}

// minorWords name nothing on their own.
var minorWords = map[string]bool{"a": true, "an": true, "the": true, "in": true, "on": true, "to": true, "of": true,
	"for": true, "with": true, "who": true, "is": true, "was": true, "and": true, "or": true, "when": true, "that": true,
	"it": true, "his": true, "her": true, "their": true, "not": true, "no": true, "does": true, "can": true, "cannot": true,
	"patient": true, "known": true, "outside": true}

func keyWords(phrase string) []string {
	var out []string
	for _, w := range wordPattern.FindAllString(phrase, -1) {
		if !minorWords[strings.ToLower(w)] {
			out = append(out, stem(w))
		}
	}
	return out
}
