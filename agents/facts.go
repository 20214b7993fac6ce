package agents

import (
	"encoding/json"
	"strings"

	"github.com/ward-sim/ward/memory"
)

// Facts are what the engine and the scenario decided for one agent's call: the only numbers,
// verdicts and disclosures an agent may use. They travel in the prompt as JSON under fixed
// headings, so a model reads them and the offline backend plays from the same bytes: a fact the
// prompt does not carry cannot reach the trainee from either.
//
// The persona goes in the static prefix (it never changes for a patient, so a model's KV cache
// keeps it); the turn's facts go in the dynamic context.
type Facts struct {
	Persona *Persona
	Turn    TurnFacts
}

// Persona is a scenario patient as an agent plays them. It never names the diagnosis.
type Persona struct {
	Name           string       `json:"name"`
	Age            int          `json:"age"`
	Sex            string       `json:"sex"`
	ChiefComplaint string       `json:"chief_complaint"`
	History        []string     `json:"history,omitempty"`
	Medications    []string     `json:"medications,omitempty"`
	Allergies      []string     `json:"allergies,omitempty"`
	Opening        string       `json:"opening,omitempty"` // said on first contact
	Lines          []string     `json:"lines,omitempty"`   // in-character answers when nothing more specific applies
	Disclosures    []Disclosure `json:"disclosures,omitempty"`
	// States are how the patient presents in each state of the scenario; the turn names the
	// current one.
	States map[string]StateLook `json:"states,omitempty"`
}

// StateLook is how the patient looks and sounds in one state.
type StateLook struct {
	Looks string   `json:"looks"`
	Lines []string `json:"lines,omitempty"`
}

// Disclosure is one fact the patient tells, with the topic it answers.
type Disclosure struct {
	Topic string `json:"topic"`
	Text  string `json:"text"`
}

// TurnFacts are the engine's facts for this turn, as one agent may see them.
type TurnFacts struct {
	Now      string `json:"now,omitempty"`      // sim time since arrival, T+mm:ss
	State    string `json:"state,omitempty"`    // the current state, for an agent that knows every state's look
	Since    string `json:"since,omitempty"`    // when and why the current state began
	Presents string `json:"presents,omitempty"` // how the patient looks now, for an agent without the states
	// Tells is what the patient answers this turn: the engine matched the trainee's questions to
	// the scenario's disclosures.
	Tells []Disclosure `json:"tells,omitempty"`
	// Happened is what the engine did this turn, in words.
	Happened []string `json:"happened,omitempty"`
	// Measured are the last measured readings, oldest first: nil for an agent that does not read
	// the monitor, and pointing at an empty list when nothing was measured yet.
	Measured *[]Reading `json:"measured,omitempty"`
	Orders   []Order    `json:"orders,omitempty"`
	Verdicts []Verdict  `json:"verdicts,omitempty"`
	// Checks are this turn's medication orders as the engine checked them: the dose against the
	// formulary and the drug against what is known of the patient. A stopped order was not given.
	Checks []OrderCheck `json:"checks,omitempty"`
	// Review is the After Action Review the Preceptor debriefs from.
	Review string `json:"review,omitempty"`
}

// Reading is one measurement as the engine reported it. A zero vital was not measured.
type Reading struct {
	T float64 `json:"t"` // sim seconds since arrival
	memory.Vitals
	OnOxygen bool `json:"on_oxygen,omitempty"`
	NEWS2    *int `json:"news2,omitempty"` // nil when the reading was not scored
}

// Order is one medication order the engine parsed from the trainee's text.
type Order struct {
	Drug   string  `json:"drug"`
	DoseMg float64 `json:"dose_mg,omitempty"` // 0 when no dose was given
	Route  string  `json:"route,omitempty"`
}

// OrderCheck is the engine's check of one medication order this turn: its verdict (ok, low,
// warn, stop or ask), whether the drug was given, and what the Pharmacist said, word for word.
type OrderCheck struct {
	Order   string `json:"order"`
	Verdict string `json:"verdict"`
	Given   bool   `json:"given"`
	Say     string `json:"say,omitempty"`
}

// Verdict is the engine's safety check of one order.
type Verdict struct {
	Level  string `json:"level"` // hard_stop | warn
	Drug   string `json:"drug"`
	Reason string `json:"reason"`
}

// The headings the facts go under. A line starting with one holds that part's JSON. The turn's
// heading is short because it is evaluated again on every turn; FactsInstructions, in the static
// prefix, say what the facts are.
const (
	personaHeading = "Patient facts: "
	turnHeading    = "Engine facts: "
)

// FactsInstructions tell every agent what the facts lines are and how to use them.
const FactsInstructions = `The lines "Patient facts:" and "Engine facts:" hold JSON from the simulation engine. ` +
	`They are the only numbers, verdicts and disclosures you may use: never state a number they do not give. ` +
	`Play the patient they describe without naming a diagnosis.`

// PersonaSection renders the persona for the static prefix, "" for none. The same persona
// always renders the same bytes (encoding/json sorts map keys).
func PersonaSection(p *Persona) string {
	if p == nil {
		return ""
	}
	return personaHeading + mustJSON(p)
}

// TurnSection renders the turn's facts for the dynamic context, "" when there are none.
func TurnSection(f TurnFacts) string {
	body := mustJSON(f)
	if body == "{}" {
		return ""
	}
	return turnHeading + body
}

// ReadFacts finds the facts in a prompt's system messages. What is missing stays zero.
func ReadFacts(msgs []memory.Message) Facts {
	var f Facts
	for _, m := range msgs {
		if m.Role != memory.RoleSystem {
			continue
		}
		for _, line := range strings.Split(m.Content, "\n") {
			switch {
			case strings.HasPrefix(line, personaHeading):
				p := &Persona{}
				if json.Unmarshal([]byte(line[len(personaHeading):]), p) == nil {
					f.Persona = p
				}
			case strings.HasPrefix(line, turnHeading):
				_ = json.Unmarshal([]byte(line[len(turnHeading):]), &f.Turn) // unreadable facts play as none
			}
		}
	}
	return f
}

// mustJSON encodes plain structs of strings, numbers and slices, which always marshal. HTML
// escaping is off: the prompt is read by a model, not a browser.
func mustJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("agents: facts: " + err.Error())
	}
	return strings.TrimSuffix(b.String(), "\n")
}
