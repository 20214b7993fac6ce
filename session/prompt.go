package session

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/memory/words"
	"github.com/ward-sim/ward/session/physio"
	sc "github.com/ward-sim/ward/session/scenario"
)

// prompt builds one agent's prompt for this turn. window is the conversation the agent sees
// before the trainee's text: the prior conversation and what agents said this turn.
func (s *Session) prompt(a agents.Agent, x *examination, window []memory.Message, text string) agents.Prompt {
	p := agents.Prompt{Static: a.SystemText(), User: text}
	shown := s.cfg.Window.Apply(window, elapsed(x))
	p.Window = memory.Spoken(shown)
	snap := snapshotMessage(s.info.ID, s.active, s.reg.roster, s.at).Content
	if x.engine == nil {
		p.Dynamic = agents.JoinSections(agents.TurnSection(agents.TurnFacts{Knowledge: s.cards.passagesFor(a, x)}), snap)
		return p
	}
	f := s.facts(a, x, window)
	if f.Persona != nil {
		p.Static += "\n\n" + agents.PersonaSection(f.Persona)
	}
	p.Dynamic = agents.JoinSections(agents.TurnSection(f.Turn), s.entityContext(a), snap)
	if x.review != nil && a.Name == agents.AgentPreceptor {
		p.Dynamic = agents.JoinSections(p.Dynamic, "After Action Review (debrief from this only):\n"+x.review.Markdown())
	}
	if mem := s.sim.memory(s.active); mem != nil {
		turn := memory.Turn{Now: s.sim.ward.Clock(), Parts: x.parts}
		if len(shown) > 0 { // the window is the end of the conversation, message for message
			turn.WindowFrom = &shown[0].Sim
		}
		p.Memory = visibleTo(a, mem.Recall(turn), x.review != nil)
	}
	return p
}

// visibleTo keeps the recalled items of the categories the agent sees. Safety items are kept for
// every agent: a treatment turn must carry every disclosed allergy, whoever answers it. The
// engine's state history names its states and why they changed, which say the diagnosis: only
// the Preceptor's debrief reads it.
func visibleTo(a agents.Agent, sel memory.Selection, debrief bool) memory.Selection {
	secret := func(c memory.Category) bool {
		return c == memory.StateHistory && !(debrief && a.Name == agents.AgentPreceptor)
	}
	hidden := func(it memory.Selected) bool {
		return secret(it.Category) || !it.Protected() && !a.SeesMemory(it.Category)
	}
	sel.Items = slices.DeleteFunc(slices.Clone(sel.Items), hidden)
	sel.Shown = slices.DeleteFunc(slices.Clone(sel.Shown), hidden)
	return sel
}

func elapsed(x *examination) float64 {
	if x.engine == nil {
		return 0
	}
	return x.engine.Elapsed()
}

// knowsBaseline reports whether the agent's static text carries the scenario baseline.
func knowsBaseline(a agents.Agent) bool { return a.Name == agents.AgentPatient }

// facts are the engine's and the scenario's facts one agent may use this turn. True vitals never
// reach a prompt, and an agent that does not read the monitor (the Patient among them) gets no
// numbers to repeat. No agent is told the diagnosis or the engine's state: each sees what anyone
// at the bedside sees, and the Patient what they can say at their level of consciousness.
func (s *Session) facts(a agents.Agent, x *examination, window []memory.Message) agents.Facts {
	e := x.engine
	st := e.Felt()
	f := agents.Facts{Turn: agents.TurnFacts{Now: memory.Clock(e.Elapsed()), Looks: looks(st, x.speech)}}
	if knowsBaseline(a) {
		f.Persona = s.persona(e.Scenario())
		f.Turn.Look, f.Turn.Looks = lookKey(e.Scenario(), st.Name()), x.speech.Response()
		f.Turn.Speech, f.Turn.Can = string(x.speech), canSay(x.speech)
		f.Turn.FirstContact = st.Name() == e.Scenario().InitialState &&
			!slices.ContainsFunc(window, func(m memory.Message) bool { return m.Agent == agents.AgentPatient })
		f.Turn.Tells = x.disclosures
		f.Turn.Done = confirmations(x.events)
		return f
	}
	if a.SeesMemory(memory.VitalsMeasurements) {
		f.Turn.Measured = measured(e)
		f.Turn.Results = append(slices.Clip(x.results), x.examined...)
	}
	f.Turn.Orders, f.Turn.Verdicts = ordersAndVerdicts(e, x.text)
	f.Turn.Checks = orderChecks(x.events)
	f.Turn.Arrest = arrestFacts(e)
	f.Turn.Knowledge = s.cards.passagesFor(a, x)
	if x.review != nil {
		f.Turn.Review = x.review.Digest()
		f.Turn.EarlierShifts = s.recurring
	}
	return f
}

// persona is the scenario's patient as an agent plays them: byte-identical on every turn, so it
// can sit in the static prefix that Ollama caches. It holds what the patient knows and would
// say, told or not yet (the persona marks what is told only when asked), in the patient's words:
// a word that names the case's diagnosis is left out, as a patient would describe it instead.
func persona(s *sc.Scenario) *agents.Persona {
	d, terms := s.Demographics, s.DiagnosisTerms()
	say := func(text string) string { return withoutTerms(text, terms) }
	sayAll := func(list []string) []string {
		var out []string
		for _, text := range list {
			out = append(out, say(text))
		}
		return out
	}
	p := &agents.Persona{Name: d.Name, Age: d.Age, Sex: d.Sex, ChiefComplaint: say(s.ChiefComplaint),
		Opening: say(s.Lines.Opening), Lines: sayAll(s.Lines.Generic)}
	known := &p.Known
	known.History = sayAll(s.History)
	for _, m := range s.Medications {
		known.Medications = append(known.Medications, strings.TrimSpace(m.Name+" "+m.Dose))
	}
	known.Allergies = []string{"none known"}
	if len(s.Allergies) > 0 {
		known.Allergies = sayAll(strings.Split(allergySummary(s), "; "))
	}
	for _, dis := range s.Disclosures {
		known.Answers = append(known.Answers, agents.Disclosure{Topic: dis.Topic, Text: say(dis.Text)})
	}
	p.Looks = map[string]agents.Look{}
	for _, name := range s.StateNames() {
		st := s.States[name]
		p.Looks[lookKey(s, name)] = agents.Look{Signs: say(strings.Join(st.Signs, "; ")), Lines: sayAll(st.Lines)}
	}
	return p
}

// persona is the persona of the patient played from scenario from, made at their first prompt
// and kept: it is the same on every turn, and making it masks every line the patient can say.
func (s *Session) persona(from *sc.Scenario) *agents.Persona {
	p, ok := s.personas[from]
	if !ok {
		if s.personas == nil {
			s.personas = map[*sc.Scenario]*agents.Persona{}
		}
		p = persona(from)
		s.personas[from] = p
	}
	return p
}

// lookKey names a state's look in the persona without naming the state: its place among the
// scenario's states.
func lookKey(s *sc.Scenario, state string) string {
	return fmt.Sprint("look ", slices.Index(s.StateNames(), state)+1)
}

// looks is what anyone at the bedside sees of the patient now: the state's signs and, for a
// patient who cannot talk, how they respond. It never carries the state's description, which
// names the diagnosis.
func looks(st *sc.State, speech physio.Speech) string {
	return agents.JoinLooks(speech.Response(), strings.Join(st.Signs, "; "))
}

// canSay is what the patient can say at this level of consciousness, as a model is told it; ""
// for an alert patient, the usual case, which costs no bytes.
func canSay(speech physio.Speech) string {
	switch speech {
	case physio.SpeechConfused:
		return "Talks, but confused: short, muddled sentences; may not answer what was asked."
	case physio.SpeechWords:
		return "Responds to voice only: a word or two or a groan, never a sentence; cannot give a history."
	case physio.SpeechSounds:
		return "Responds to pain only: no words at all, only moans or pulling away; describe it in the third person between asterisks."
	case physio.SpeechNone:
		return "Unresponsive: says nothing at all; describe only what the trainee sees, in the third person between asterisks."
	}
	return ""
}

// measured are the newest measured reading and, for the direction of change, the one of the
// moment before (physio.PreviousMoment), oldest first; empty, not nil, when nothing was measured
// yet, so the agent is told there is nothing to read.
func measured(e *physio.Engine) *[]agents.Reading {
	out := []agents.Reading{}
	readings := e.Readings()
	var told []physio.Reading
	if prev, ok := physio.PreviousMoment(readings); ok {
		told = append(told, prev)
	}
	if n := len(readings); n > 0 {
		told = append(told, readings[n-1])
	}
	for _, r := range told {
		n := r.Score()
		out = append(out, agents.Reading{T: r.T - e.Admitted(), Vitals: memoryVitals(r), AVPU: r.AVPU, EtCO2: r.EtCO2, OnOxygen: r.OnOxygen,
			NoOutput: r.NoOutput, NEWS2: &n.Total, Score: n.String(), ScoringThree: n.Parts.ScoringThree()})
	}
	return &out
}

// ordersAndVerdicts are the medication orders so far and the engine's safety verdicts on them,
// with its verdict on drugs the text only asks about (which records nothing).
func ordersAndVerdicts(e *physio.Engine, text string) ([]agents.Order, []agents.Verdict) {
	var orders []agents.Order
	var verdicts []agents.Verdict
	for _, a := range e.Actions() {
		if a.Kind == sc.KindMedication {
			orders = append(orders, agents.Order{Drug: sc.DrugLabel(a.Drug), DoseMg: a.DoseMg, Route: a.Route})
		}
	}
	for _, sf := range e.SafetyRecords() {
		verdicts = append(verdicts, agents.Verdict{Level: sf.Level, Drug: sf.Drug, Reason: sf.Reason})
	}
	for _, drug := range drugsNamed(text) {
		for _, sf := range e.CheckMedication(drug) {
			verdicts = append(verdicts, agents.Verdict{Level: sf.Level, Drug: sf.Drug, Reason: sf.Reason})
		}
	}
	return orders, verdicts
}

func memoryVitals(r physio.Reading) memory.Vitals {
	return memory.Vitals{HR: float64(r.HR), RR: float64(r.RR), SpO2: float64(r.SpO2), SBP: float64(r.SBP),
		DBP: float64(r.DBP), Temp: r.TempC, GCS: float64(r.GCS)}
}

// drugsNamed are the catalogue drugs a message names, in order, each once.
func drugsNamed(text string) []string {
	var out []string
	for _, w := range words.Lower(words.Split(text)) {
		if d, ok := sc.LookupDrug(w); ok && !slices.Contains(out, d.Name) {
			out = append(out, d.Name)
		}
	}
	return out
}

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

// SnapshotPrefix marks the ephemeral context message. Only a system message with this prefix is a
// snapshot: a user who types it is storing ordinary text.
const SnapshotPrefix = "PATIENT_CONTEXT_JSON"

type snapshot struct {
	ConversationID string   `json:"conversation_id"`
	PatientID      *string  `json:"patient_id"`
	AllPatientIDs  []string `json:"all_patient_ids"`
	GeneratedAt    string   `json:"generated_at"`
}

// snapshotMessage renders the one system message that grounds agents in who is active.
func snapshotMessage(conversationID, active string, roster []string, at time.Time) memory.Message {
	ids := append([]string{}, roster...)
	sort.Strings(ids)
	body, _ := json.Marshal(snapshot{
		ConversationID: conversationID,
		PatientID:      nullable(active),
		AllPatientIDs:  ids,
		GeneratedAt:    at.UTC().Format("2006-01-02T15:04:05.000Z"),
	})
	return memory.Message{Role: "system", Content: SnapshotPrefix + ": " + string(body), At: at}
}

func isSnapshot(m memory.Message) bool {
	return m.Role == "system" && strings.HasPrefix(m.Content, SnapshotPrefix)
}

// withSnapshot drops every earlier snapshot and puts a fresh one at index 0, so exactly one exists.
func withSnapshot(history []memory.Message, snap memory.Message) []memory.Message {
	out := make([]memory.Message, 0, len(history)+1)
	out = append(out, snap)
	for _, m := range history {
		if !isSnapshot(m) {
			out = append(out, m)
		}
	}
	return out
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// arrestFacts are the patient's cardiac arrest as the team may speak of it, or nil: the engine's
// record of times, compressions, shocks, drugs and pulse, and never the rhythm.
func arrestFacts(e *physio.Engine) *agents.ArrestFacts {
	a := e.Arrest()
	if a == nil {
		return nil
	}
	now := int64(e.Clock())
	ago := func(t int64) string { return physio.SimTime(float64(now - t)) }
	f := &agents.ArrestFacts{Since: ago(a.Onset), Compressions: "stopped", Shocks: len(a.StepsOf(physio.StepShock)),
		Access: a.Access >= 0, Airway: a.Airway, Pulse: "none"}
	if a.CPR {
		f.Compressions = "going"
	}
	if checks := a.StepsOf(physio.StepCheck); len(checks) > 0 && a.Active() {
		f.SinceCheck = ago(checks[len(checks)-1].T)
	}
	f.Adrenaline, f.Amiodarone = doses(a.StepsOf(physio.StepAdrenaline), now, ago), doses(a.StepsOf(physio.StepAmiodarone), now, ago)
	switch {
	case a.ROSC >= 0:
		f.Pulse = "present"
	case a.Stopped >= 0:
		f.Pulse = "resuscitation stopped"
	}
	return f
}

// doses says how many of a drug went in and how long ago the last, and one drawn up to go in
// once access is in: "" for none.
func doses(steps []physio.ArrestStep, now int64, ago func(int64) string) string {
	given, last := 0, int64(0)
	for _, s := range steps {
		if in := s.GivenAt(); in <= now {
			given, last = given+1, max(last, in)
		}
	}
	var parts []string
	if given > 0 {
		parts = append(parts, fmt.Sprintf("%d given, the last %s ago", given, ago(last)))
	}
	if waiting := len(steps) - given; waiting > 0 {
		parts = append(parts, fmt.Sprintf("%d drawn up, to go in once access is in", waiting))
	}
	return strings.Join(parts, "; ")
}
