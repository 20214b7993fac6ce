package session

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/llm"
)

// What the engine knows and the trainee must find out — the case, its states, the true vitals
// and what the patient has not yet said — shows only in the instructor's (or a developer's)
// view: Config.Instructor. In a trainee's view the inspector, /inspect and the decision event
// show it masked, with a note that it is. (The decision's and the route's reasoning, a model's
// words, are masked as they are made.)

const maskNote = "[masked in a trainee's view: %s; ward --instructor shows it]"

// masked says in place what a trainee's view leaves out.
func masked(what string) string { return fmt.Sprintf(maskNote, what) }

// forTrainee is a turn record as a trainee may see it.
func (s *Session) forTrainee(rec TurnRecord) TurnRecord {
	if s.cfg.Instructor {
		return rec
	}
	if rec.Engine != "" {
		rec.Engine = masked("the case, its state and the true vitals")
	}
	rec.Calls = slices.Clone(rec.Calls)
	for i, c := range rec.Calls {
		rec.Calls[i].Trace = maskTrace(c.Trace, c.Held != "")
	}
	return rec
}

// maskTrace masks what a call's prompt holds of the patient the trainee has not found out (the
// persona's line), and a reply ward held back.
func maskTrace(tr llm.TraceRecord, held bool) llm.TraceRecord {
	tr.Messages = slices.Clone(tr.Messages)
	for i, m := range tr.Messages {
		tr.Messages[i].Content = maskPersona(m.Content)
	}
	if static, ok := tr.SectionTexts[agents.SectionStatic]; ok {
		texts := make(map[string]string, len(tr.SectionTexts))
		for k, v := range tr.SectionTexts {
			texts[k] = v
		}
		texts[agents.SectionStatic] = maskPersona(static)
		tr.SectionTexts = texts
	}
	if held {
		tr.Reply.Content, tr.Chunks = masked("the reply ward did not show"), nil
	}
	return tr
}

// maskPersona replaces the Patient's persona line, which holds what the patient may not have
// said yet and how they look at every stage of the case.
func maskPersona(text string) string {
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		if strings.HasPrefix(line, agents.PersonaHeading) {
			lines[i] = agents.PersonaHeading + masked("what the patient knows and has not said yet, and how they look at each stage")
		}
	}
	return strings.Join(lines, "\n")
}

// maskCase masks in text the words that name the diagnosis of any patient on the roster.
func (s *Session) maskCase(text string) string {
	if s.cfg.Instructor {
		return text
	}
	for _, id := range s.roster {
		if sc, ok := s.cfg.Scenarios.Get(scenarioOf(s.reg.Patients[id].Facts)); ok {
			text = replaceTerms(text, append(diagnosisTerms(sc), strings.ToLower(sc.ID)), "[masked]")
		}
	}
	return text
}
