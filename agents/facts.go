package agents

import (
	"encoding/json"
	"regexp"
	"strings"
	"unicode"

	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/memory/knowledge"
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

// Persona is a scenario patient as an agent plays them. It never names the diagnosis or the
// engine's states, and it marks what the patient tells only when asked (Known).
type Persona struct {
	Name           string   `json:"name"`
	Age            int      `json:"age"`
	Sex            string   `json:"sex"`
	ChiefComplaint string   `json:"chief_complaint"`
	Opening        string   `json:"opening,omitempty"` // said on first contact, when the turn says it is one
	Lines          []string `json:"lines,omitempty"`   // in-character answers when nothing more specific applies
	// Known is what the patient knows and tells only when the trainee asks about its topic, so
	// marked in the key a model reads; the turn's "tells" says what is asked now.
	Known Known `json:"tell_only_when_asked"`
	// Looks are how the patient can look and sound, under keys that mean nothing: the turn
	// names the current one, so the fewer bytes change from turn to turn, the less a model
	// evaluates again.
	Looks map[string]Look `json:"looks,omitempty"`
}

// Known is what a patient knows of themselves, told only when asked.
type Known struct {
	History     []string     `json:"history,omitempty"`
	Medications []string     `json:"medications,omitempty"`
	Allergies   []string     `json:"allergies,omitempty"`
	Answers     []Disclosure `json:"answers,omitempty"`
}

// Look is how the patient looks and sounds at one point of their illness.
type Look struct {
	Signs string   `json:"signs,omitempty"`
	Lines []string `json:"lines,omitempty"`
}

// Disclosure is one fact the patient tells, with the topic it answers.
type Disclosure struct {
	Topic string `json:"topic"`
	Text  string `json:"text"`
	// Again: the patient told this before, and notices being asked it again.
	Again bool `json:"again,omitempty"`
}

// TurnFacts are the engine's facts for this turn, as one agent may see them. None names the
// diagnosis or the engine's state: they say what can be seen, measured and said.
type TurnFacts struct {
	Now string `json:"now,omitempty"` // sim time since arrival, T+mm:ss
	// Look is the key of the persona's look that applies now, for the Patient; Looks is what
	// anyone at the bedside sees now: for the Patient, how they respond when they cannot talk.
	Look  string `json:"look,omitempty"`
	Looks string `json:"looks,omitempty"`
	// Speech and Can bound what the patient says now, from the engine's GCS: Speech is one of
	// talks, confused, words, sounds or none; Can says it in words for a model, when the patient
	// cannot simply talk.
	Speech string `json:"speech,omitempty"`
	Can    string `json:"can,omitempty"`
	// FirstContact is set when the trainee meets the patient for the first time as they arrived,
	// which is when the persona's opening is said.
	FirstContact bool `json:"first_contact,omitempty"`
	// Tells is what the patient answers this turn: the engine matched the trainee's questions to
	// the scenario's disclosures.
	Tells []Disclosure `json:"tells,omitempty"`
	// Done is what was done to the patient this turn, in plain words.
	Done []string `json:"done,omitempty"`
	// Measured are the last measured readings, oldest first: nil for an agent that does not read
	// the monitor, and pointing at an empty list when nothing was measured yet.
	Measured *[]Reading `json:"measured,omitempty"`
	// Results are what this turn's other measurements found: a glucose, an ECG, the pupils.
	Results []Result `json:"results,omitempty"`
	Orders  []Order  `json:"orders,omitempty"`
	// Arrest is the cardiac arrest, for the team: nil when there is none.
	Arrest   *ArrestFacts `json:"arrest,omitempty"`
	Verdicts []Verdict    `json:"verdicts,omitempty"`
	// Checks are this turn's medication orders as the engine checked them: the dose against the
	// formulary and the drug against what is known of the patient. A stopped order was not given.
	Checks []OrderCheck `json:"checks,omitempty"`
	// Review is the After Action Review the Preceptor debriefs from.
	Review string `json:"review,omitempty"`
	// Knowledge are the protocol passages retrieved for the turn, each under its citation number.
	Knowledge []knowledge.Passage `json:"knowledge,omitempty"`
	// EarlierShifts are what recurs across the trainee's earlier shifts, for the debrief to
	// name as a pattern.
	EarlierShifts []string `json:"earlier_shifts,omitempty"`
}

// Result is one measurement beyond the vital signs, as the engine reported it.
type Result struct {
	T     float64 `json:"t"` // sim seconds since arrival
	Name  string  `json:"name"`
	Value string  `json:"value"`
}

// Reading is one measurement as the engine reported it. A zero vital was not measured.
type Reading struct {
	T float64 `json:"t"` // sim seconds since arrival
	memory.Vitals
	AVPU     string `json:"avpu,omitempty"`  // the level of consciousness the GCS maps to
	EtCO2    int    `json:"etco2,omitempty"` // mmHg, from capnography on the monitor
	OnOxygen bool   `json:"on_oxygen,omitempty"`
	// NoOutput: a cardiac arrest — no pulse, no blood pressure, no saturation trace; the zero HR,
	// BP and SpO2 are those, not unmeasured.
	NoOutput bool `json:"no_output,omitempty"`
	NEWS2    *int `json:"news2,omitempty"` // nil when the reading was not scored
	// Score is the NEWS2 in the words every view uses ("NEWS2 4 low-medium"); ScoringThree names
	// the parameters that score 3 on their own.
	Score        string   `json:"score,omitempty"`
	ScoringThree []string `json:"scoring_three,omitempty"`
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
	// PersonaHeading opens the Patient's persona line in its static text.
	PersonaHeading = "Patient facts: "
	turnHeading    = "Engine facts: "
)

// FactsInstructions tell every agent what the facts lines are and how to use them.
const FactsInstructions = `The lines "Patient facts:" and "Engine facts:" hold JSON from the simulation engine. ` +
	`They are the only numbers, verdicts and disclosures you may use: never state a number they do not give. ` +
	`Play the patient they describe without naming a diagnosis, and let the patient say no more than "can" allows; ` +
	`what "tell_only_when_asked" holds the patient says only when the trainee asks about it ("tells" is what is asked now). ` +
	`"knowledge" holds protocol passages, each with its number n: when a fact in your reply comes from one, cite it as [n]; cite nothing else. ` +
	`"arrest" is the resuscitation as the team knows it: never name the heart's rhythm on the monitor (reading it is the trainee's job), ` +
	`and never report a pulse, a defibrillation or a drug the facts do not give.`

// PersonaSection renders the persona for the static prefix, "" for none. The same persona
// always renders the same bytes (encoding/json sorts map keys).
func PersonaSection(p *Persona) string {
	if p == nil {
		return ""
	}
	return PersonaHeading + mustJSON(p)
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
			case strings.HasPrefix(line, PersonaHeading):
				p := &Persona{}
				if json.Unmarshal([]byte(line[len(PersonaHeading):]), p) == nil {
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

// What a patient can say at each level of consciousness, as TurnFacts.Speech names it.
const (
	SpeechTalks    = "talks"    // alert: answers in sentences
	SpeechConfused = "confused" // new confusion: talks, but muddled
	SpeechWords    = "words"    // responds to voice: a word or two, or groans
	SpeechSounds   = "sounds"   // responds to pain only: no words
	SpeechNone     = "none"     // unresponsive
)

// wordsAtVoice is the most a patient who responds only to voice says aloud.
const wordsAtVoice = 4

// WithinSpeech reports whether reply says no more aloud than a patient at this speech level
// can: a word or two at voice, nothing at pain or unresponsive. Stage directions between
// asterisks or underscores say what the trainee sees, not what the patient says.
func WithinSpeech(reply, speech string) bool {
	switch speech {
	case SpeechWords:
		return SpokenWords(reply) <= wordsAtVoice
	case SpeechSounds, SpeechNone:
		return SpokenWords(reply) == 0
	}
	return true
}

var stageDirection = regexp.MustCompile(`\*[^*]*\*|_[^_]*_`)

// SpokenWords counts the words a reply says aloud, once stage directions are set aside.
func SpokenWords(reply string) int {
	n := 0
	for _, w := range strings.Fields(stageDirection.ReplaceAllString(reply, " ")) {
		if strings.IndexFunc(w, unicode.IsLetter) >= 0 {
			n++
		}
	}
	return n
}

// JoinLooks joins a patient's response and signs into one description.
func JoinLooks(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "; ")
}

// Described is what the trainee sees, as the chat shows it: a stage direction in the third person.
func Described(looks string) string { return "*" + Capitalized(looks) + ".*" }

// Capitalized is s with its first letter upper case.
func Capitalized(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
