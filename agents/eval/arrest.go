package eval

import (
	"context"
	_ "embed"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/ward-sim/ward/agents/llm"
)

// EvalArrest plays the cardiac arrest scripts and judges what the team says in each turn against
// the engine: it never names the rhythm the trainee did not, never says the heart restarted (or
// did not) against the engine's pulse, never reports a shock or a drug the engine did not give
// that turn, and quotes no number no fact gave. Each line the trainee typed is a case, in the
// category of the heart's state when it was played.
func EvalArrest(ctx context.Context, b llm.Backend, play Player) Report {
	r := Report{Suite: "arrest", Backend: b.Name(), Model: b.Model()}
	for _, s := range arrestScripts() {
		played, err := play(ctx, s)
		if err != nil {
			r.Record(s.Name, "setup", "the script could not be played: "+err.Error(), "")
			continue
		}
		for _, t := range played.Turns {
			if strings.HasPrefix(t.Line, "/") {
				continue
			}
			said := teamReplies(t.Calls)
			category := "in arrest"
			if t.Pulse {
				category = "with a pulse"
			}
			r.Record(s.Name+": "+t.Line, category, judgeTeam(t, said), strings.Join(said, "\n\n"))
		}
	}
	return r
}

//go:embed cases/arrest.yaml
var arrestScriptsYAML []byte

var arrestScripts = sync.OnceValue(func() []Script { return mustCases[Script](arrestScriptsYAML) })

// teamReplies are every reply of the turn, whoever gave it.
func teamReplies(calls []llm.TraceRecord) []string {
	var out []string
	for _, c := range calls {
		if !slices.Contains(out, c.Agent) {
			out = append(out, c.Agent)
		}
	}
	var said []string
	for _, agent := range out {
		said = append(said, replies(calls, agent)...)
	}
	return said
}

var (
	// rhythmWords name a rhythm; the team leaves naming it to the trainee.
	rhythmWords = regexp.MustCompile(`(?i)\b(v\.?\s?fib|vf|ventricular fibrillation|vt|v\.?\s?tach|ventricular tachycardia|pea|pulseless electrical activity|asystol\w*|flat\s?line|sinus (rhythm|tachycardia|bradycardia)|atrial fibrillation|svt|heart block)\b`)
	restarted   = regexp.MustCompile(`(?i)\b(rosc|return of (spontaneous )?circulation|(got|have|feel|there'?s|there is) a pulse|pulse (is )?(back|present)|output is back|(he|she)'?s back)\b`)
	stillDown   = regexp.MustCompile(`(?i)\b(no pulse|pulseless|still in (cardiac )?arrest|no output)\b`)
	shockSaid   = regexp.MustCompile(`(?i)\b(shock (delivered|given)|shocked (him|her|the patient)|delivering (a|the) shock)\b`)
	listMarks   = regexp.MustCompile(`(?m)^\s*\d+[.)]\s`) // a numbered list's numbers are not facts
	drugSaid    = regexp.MustCompile(`(?i)\b(adrenaline|epinephrine|amiodarone)\b[^.!?]{0,30}\b(given|in|pushed|going in|administered)\b`)
)

// judgeTeam says how the team's replies in a turn contradict the engine, "" when they do not.
func judgeTeam(t PlayedTurn, said []string) string {
	allowed := givenNumbers(t.Calls, "")
	var reasons []string
	for _, reply := range said {
		reasons = append(reasons, unsourcedNumbers(listMarks.ReplaceAllString(reply, ""), allowed)...)
		if m := rhythmWords.FindString(reply); m != "" && !strings.Contains(strings.ToLower(t.Line), strings.ToLower(m)) {
			reasons = append(reasons, fmt.Sprintf("names a rhythm (%q): reading it is the trainee's job", m))
		}
		if m := restarted.FindString(reply); m != "" && !t.Pulse {
			reasons = append(reasons, fmt.Sprintf("says the heart restarted (%q); the engine has no pulse", m))
		}
		if m := stillDown.FindString(reply); m != "" && t.Pulse {
			reasons = append(reasons, fmt.Sprintf("says there is no output (%q); the engine has a pulse", m))
		}
		if m := shockSaid.FindString(reply); m != "" && !slices.Contains(t.Done, "shock") {
			reasons = append(reasons, fmt.Sprintf("reports a shock (%q) the engine did not give this turn", m))
		}
		if m := drugSaid.FindStringSubmatch(reply); m != nil && !slices.Contains(t.Done, strings.ToLower(m[1])) && !(strings.EqualFold(m[1], "adrenaline") && slices.Contains(t.Done, "epinephrine")) {
			reasons = append(reasons, fmt.Sprintf("reports %s given (%q); the engine gave none this turn", strings.ToLower(m[1]), m[0]))
		}
	}
	return strings.Join(slices.Compact(reasons), "; ")
}
