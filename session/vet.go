package session

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/session/physio"
	sc "github.com/ward-sim/ward/session/scenario"
	"github.com/ward-sim/ward/themes"
)

// A model can say whatever its prompt holds, and more. So every reply is held to the engine's
// record before it is shown or stored: it may quote no clinical number the prompt did not give
// (a vital sign, score, dose or result), name no diagnosis the trainee has not named before the
// debrief, and, from the Patient, tell nothing of what was not yet asked. A reply that does is
// refused and the model asked once more; if the second answer does too, the engine's own line
// stands in. The cleaner that strips escape sequences and text-reordering controls runs first,
// so what is checked is what would be shown.

// Why a reply was held, as `ward stats` counts them.
const (
	heldNumber    = "invented_number"
	heldDiagnosis = "named_diagnosis"
	heldEarly     = "told_before_asked"
	heldReplaced  = "replaced_by_engine"
)

// heldWords says each reason to the trainee, naming nothing the reply said.
var heldWords = map[string]string{
	heldNumber:    "quoted a number the record does not hold",
	heldDiagnosis: "named a diagnosis no one has made yet",
	heldEarly:     "told something the trainee has not asked about yet",
}

// vetter checks replies of one agent's call against what its prompt gave it.
type vetter struct {
	given   map[string]bool // the numbers the prompt gave
	trainee string          // everything the trainee said that the agent heard, lower case
	secrets []string        // diagnosis terms the agent may not name now, lower case
	early   []string        // what the Patient may not tell yet, lower case
}

func (s *Session) vetter(agent string, x *examination, p agents.Prompt) *vetter {
	v := &vetter{given: agents.GivenNumbers(p)}
	said := make([]string, 0, len(p.Window)+1) // and the new line
	for _, m := range p.Window {
		if m.Role == memory.RoleUser {
			said = append(said, m.Content)
		}
	}
	v.trainee = strings.ToLower(strings.Join(append(said, p.User), "\n"))
	if x.engine == nil {
		return v
	}
	scen := x.engine.Scenario()
	if !(agent == agents.AgentPreceptor && x.review != nil) { // the debrief names the diagnosis
		for _, term := range scen.DiagnosisTerms() {
			if !strings.Contains(v.trainee, term) {
				v.secrets = append(v.secrets, term)
			}
		}
	}
	if agent == agents.AgentPatient {
		v.early = untold(x.engine, x.disclosures, v.trainee)
	}
	return v
}

// why is the reason reply is refused, "" when it may stand.
func (v *vetter) why(reply string) string {
	lower := strings.ToLower(reply)
	switch {
	case len(agents.Invented(reply, v.given)) > 0:
		return heldNumber
	case slices.ContainsFunc(v.secrets, func(term string) bool { return sc.ContainsWord(lower, term) }):
		return heldDiagnosis
	case slices.ContainsFunc(v.early, func(term string) bool { return sc.ContainsWord(lower, term) }):
		return heldEarly
	}
	return ""
}

// heldToTheFacts returns the reply as it may be shown: cleaned, and held to the record.
func (c *conversation) heldToTheFacts(ctx context.Context, a agents.Agent, p agents.Prompt, reply string) string {
	reply = themes.Printable(reply)
	v := c.s.vetter(a.Name, c.x, p)
	why := v.why(reply)
	if why == "" {
		return reply
	}
	c.countHeld(why)
	c.held("the reply " + heldWords[why] + ": asked again")
	c.t.emit(NoteEvent{PatientID: c.s.active, Stop: "held", Text: "The " + a.Name + "'s reply " + heldWords[why] + ", so it was not shown; asked again."})
	again := p
	again.Instruction = agents.JoinSections(p.Instruction, "Your last answer "+heldWords[why]+
		". Answer again: quote only numbers the facts give (or none), name no diagnosis the trainee has not named, and tell only what was asked.")
	more, err := c.call(ctx, a, again, "reply "+why+": asked again")
	if more = themes.Printable(more); err == nil && strings.TrimSpace(more) != "" && v.why(more) == "" {
		return more
	}
	c.countHeld(heldReplaced)
	c.held("the reply " + heldWords[why] + " twice; the engine's own line replaced it")
	return c.enginesLine(a)
}

// enginesLine is what ward says for an agent whose replies could not be shown: what the engine
// itself has for the turn.
func (c *conversation) enginesLine(a agents.Agent) string {
	x := c.x
	if x.engine == nil {
		return "(The " + a.Name + " has nothing to add that the record confirms.)"
	}
	if a.Name == agents.AgentPatient {
		var told []string
		for _, d := range x.disclosures {
			told = append(told, d.Text)
		}
		if len(told) > 0 && x.speech.GivesHistory() {
			return strings.Join(told, " ")
		}
		return "*" + looks(x.engine.CurrentState(), x.speech) + "*"
	}
	lines, _ := reportLines(x)
	lines = append(confirmations(x.events), lines...)
	if len(lines) == 0 {
		return "(The " + a.Name + " has nothing to add that the record confirms.)"
	}
	return strings.Join(lines, "\n")
}

// countHeld counts a reply held, by why, among the team's counters.
func (c *conversation) countHeld(why string) {
	s := c.s
	if s.active == "" {
		return
	}
	st := &s.entities().Stats
	if st.Held == nil {
		st.Held = map[string]int64{}
	}
	st.Held[why]++
	s.sim.dirty[s.active] = true
}

// caseTerms are the words that name a case, lower case: its diagnosis terms and its id. They
// are worked out once a scenario: a trainee's every turn masks those of every patient.
func caseTerms(s *sc.Scenario) []string {
	caseTermsOf.RLock()
	terms, ok := caseTermsOf.m[s]
	caseTermsOf.RUnlock()
	if !ok {
		terms = append(s.DiagnosisTerms(), strings.ToLower(s.ID))
		caseTermsOf.Lock()
		caseTermsOf.m[s] = terms
		caseTermsOf.Unlock()
	}
	return terms
}

var caseTermsOf = struct {
	sync.RWMutex
	m map[*sc.Scenario][]string
}{m: map[*sc.Scenario][]string{}}

// untold are the names the Patient may not say yet, lower case: the drugs of the scenario's
// disclosures and medicines, and the agents of its allergies, whose topic has not been asked,
// unless this turn tells them or the trainee named them.
func untold(e *physio.Engine, now []agents.Disclosure, trainee string) []string {
	s := e.Scenario()
	var hidden, told []string // what is not yet told, and what is (before or this turn)
	for _, d := range s.Disclosures {
		if e.Knows(d.Topic) || slices.ContainsFunc(now, func(t agents.Disclosure) bool { return t.Text == d.Text }) {
			told = append(told, d.Text)
		} else {
			hidden = append(hidden, d.Text)
		}
	}
	if !e.Knows("medications") {
		for _, m := range s.Medications {
			hidden = append(hidden, m.Name)
		}
	}
	var names []string
	for _, t := range hidden {
		names = append(names, drugsNamed(t)...)
	}
	if !e.AllergiesAsked() {
		for _, a := range s.Allergies {
			names = append(names, a.Agent, strings.TrimSuffix(a.Agent, "s")) // "peanuts", and "a peanut allergy"
		}
	}
	said := strings.ToLower(strings.Join(told, "\n")) + "\n" + trainee
	var out []string
	for _, n := range names {
		if n = strings.ToLower(n); !strings.Contains(said, n) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// withoutTerms leaves the terms (lower case) out of text, with the punctuation that joined them:
// "peanuts (anaphylaxis — throat swelling)" says "peanuts (throat swelling)".
func withoutTerms(text string, terms []string) string {
	for _, term := range terms {
		if re := termPattern(term, true); re.MatchString(text) {
			text = re.ReplaceAllString(text, "")
		}
	}
	return text
}

// termPatterns are the compiled patterns of the terms masked so far: every turn masks every
// patient's terms, and compiling them anew each time made a turn's cost grow with the roster.
// The terms come from the scenario library, so the cache stays small; the lock is for a server's
// many shifts.
var termPatterns = struct {
	sync.RWMutex
	m map[termKey]*regexp.Regexp
}{m: map[termKey]*regexp.Regexp{}}

type termKey struct {
	term     string
	trailing bool // with the punctuation that joined it to what follows
}

func termPattern(term string, trailing bool) *regexp.Regexp {
	k := termKey{term, trailing}
	termPatterns.RLock()
	re := termPatterns.m[k]
	termPatterns.RUnlock()
	if re != nil {
		return re
	}
	expr := `(?i)\b` + regexp.QuoteMeta(term) + `\b`
	if trailing {
		expr += `[\s—–:;,-]*`
	}
	re = regexp.MustCompile(expr)
	termPatterns.Lock()
	termPatterns.m[k] = re
	termPatterns.Unlock()
	return re
}
