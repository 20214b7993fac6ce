package session

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/session/physio"
	sc "github.com/ward-sim/ward/session/scenario"
)

// clinicalTurn is what the engine and memory made of one trainee message. It is computed once,
// before any agent speaks, and shared by every agent of the turn: the numbers come from here, not
// from a model.
type clinicalTurn struct {
	text        string
	engine      *physio.Engine // nil when no patient is active
	events      []physio.Event
	disclosures []agents.Disclosure
	parts       []memory.Part
	compound    memory.Compound
	wantsAAR    bool // the Preceptor debriefs from the After Action Review
}

// examine parses the trainee's text into actions, applies them to the active patient's engine,
// records what happened in memory and reports the engine's events.
func (s *Session) examine(t *turn) *clinicalTurn {
	ct := &clinicalTurn{text: t.input, engine: s.sim.ward.Engine(s.active)}
	if ct.engine == nil {
		return ct
	}
	actions := s.actionsOf(t)
	ct.wantsAAR = t.effect == effectAAR
	for _, a := range actions {
		if !t.retry {
			ct.events = append(ct.events, ct.engine.Apply(a)...)
		}
		if a.Kind == sc.KindAsk && canAnswer(ct.engine) {
			ct.disclosures = append(ct.disclosures, s.disclose(ct.engine, a.Topic)...)
		}
	}
	s.sim.record(ct.events)
	s.sim.dirty[s.active] = true
	for _, ev := range ct.events {
		t.emit(SimEvent{ev})
	}
	ct.parts = partsOf(actions)
	ct.compound = memory.DetectCompound(ct.parts, t.input)
	if ct.compound.IsCompound() {
		_ = s.sim.mems[s.active].Record(memory.CompoundActions, memory.Item{T: s.sim.ward.Clock(), Text: ct.compound.Summary()})
	}
	return ct
}

// actionsOf is what the turn does in the engine: a slash command's own effect, or whatever the
// parser found in the trainee's words (nothing it does not recognise).
func (s *Session) actionsOf(t *turn) []physio.Action {
	switch {
	case t.effect == effectVitals:
		return []physio.Action{{Kind: sc.KindCheckVitals}}
	case t.effect != "":
		return nil
	}
	return physio.ParseActions(agents.WithoutMention(t.input))
}

// canAnswer reports whether the patient is awake enough to answer questions: a GCS of 8 or less
// cannot, whatever the scenario's disclosures say.
func canAnswer(e *physio.Engine) bool { return e.TrueVitals().GCS > 8 }

// disclosedIn reports whether reply carries the scenario's own answer to question part p: words
// the keyword check may not know ("nothing I know of") still answer it.
func (ct *clinicalTurn) disclosedIn(p memory.Part, reply string) bool {
	return p.Kind == memory.PartQuestion && slices.ContainsFunc(ct.disclosures, func(d agents.Disclosure) bool {
		return memory.NormalizeTopic(d.Topic) == memory.NormalizeTopic(p.Name) && strings.Contains(reply, d.Text)
	})
}

// disclose returns what the patient tells about topic, and remembers it: a disclosure made once
// is part of the patient's memory from then on.
func (s *Session) disclose(e *physio.Engine, topic string) []agents.Disclosure {
	var out []agents.Disclosure
	mem := s.sim.mems[e.PatientID()]
	for _, d := range e.Scenario().DisclosuresAbout(topic) {
		out = append(out, agents.Disclosure{Topic: d.Topic, Text: d.Text})
		if mem != nil && !disclosed(mem, d.Text) {
			_ = mem.Record(memory.PatientDisclosures, memory.Item{T: e.Clock(), Topic: memory.NormalizeTopic(d.Topic), Text: d.Text})
		}
	}
	return out
}

func disclosed(mem *memory.Memory, text string) bool {
	return slices.ContainsFunc(mem.Items(memory.PatientDisclosures), func(it memory.Item) bool { return it.Text == text })
}

// partsOf names what a message did and asked, for recall and compound detection.
func partsOf(actions []physio.Action) []memory.Part {
	var parts []memory.Part
	add := func(p memory.Part) {
		if !slices.Contains(parts, p) {
			parts = append(parts, p)
		}
	}
	for _, a := range actions {
		switch {
		case a.Kind == sc.KindAsk:
			add(memory.Part{Kind: memory.PartQuestion, Name: a.Topic})
		case a.IsTreatment():
			add(memory.Part{Kind: memory.PartTreatment, Name: treatmentName(a)})
		case a.IsAssessment():
			add(memory.Part{Kind: memory.PartVitals})
		}
	}
	return parts
}

func treatmentName(a physio.Action) string {
	if a.Drug != "" {
		return a.Drug
	}
	return string(a.Kind)
}

// knowsBaseline reports whether the agent's static text carries the scenario baseline.
func knowsBaseline(a agents.Agent) bool { return a.Name == agents.AgentPatient }

// baseline is the scenario as the patient knows it: byte-identical on every turn, so it can sit
// in the static prefix that Ollama caches.
func baseline(e *physio.Engine) string {
	s := e.Scenario()
	var b strings.Builder
	d := s.Demographics
	fmt.Fprintf(&b, "Scenario: %s.\nPatient: %s, %d, %s. Chief complaint: %s\n", s.Title, d.Name, d.Age, d.Sex, s.ChiefComplaint)
	writeList(&b, "History", s.History)
	meds := make([]string, len(s.Medications))
	for i, m := range s.Medications {
		meds[i] = strings.TrimSpace(m.Name + " " + m.Dose)
	}
	writeList(&b, "Medications", meds)
	allergies := []string{"none known"}
	if len(s.Allergies) > 0 {
		allergies = strings.Split(allergySummary(s), "; ")
	}
	writeList(&b, "Allergies", allergies)
	b.WriteString("What the patient says when asked (reveal a topic only when the trainee asks about it):\n")
	for _, dis := range s.Disclosures {
		fmt.Fprintf(&b, "- %s: %s\n", dis.Topic, dis.Text)
	}
	b.WriteString("How the patient presents in each state (the context names the current one):\n")
	for _, name := range stateNames(s) {
		fmt.Fprintf(&b, "- %s: %s\n", name, stateLook(s.States[name]))
	}
	return b.String()
}

// stateNames lists the scenario's states, the initial one first, in an order that never changes.
func stateNames(s *sc.Scenario) []string {
	names := slices.Sorted(maps.Keys(s.States))
	i := slices.Index(names, s.InitialState)
	return append([]string{s.InitialState}, slices.Delete(names, i, i+1)...)
}

// stateLook is how the patient looks and sounds in a state.
func stateLook(st *sc.State) string {
	look := st.Description
	if len(st.Signs) > 0 {
		look += " Signs: " + strings.Join(st.Signs, ", ") + "."
	}
	if len(st.Lines) > 0 {
		look += " Sounds like: " + strings.Join(st.Lines, " / ")
	}
	return look
}

func writeList(b *strings.Builder, heading string, items []string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(b, "%s:\n", heading)
	for _, it := range items {
		fmt.Fprintf(b, "- %s\n", it)
	}
}

// presentation is the dynamic context: sim time, how the patient looks now and, for an agent
// that reads the monitor, the vitals the trainee has measured. True vitals never reach a prompt,
// and an agent that does not read the monitor (the Patient among them) gets no numbers to repeat.
// The Patient's static text describes every state, so it gets the current state's name only: the
// fewer bytes change from turn to turn, the less the model evaluates again.
func presentation(e *physio.Engine, a agents.Agent) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Now %s since arrival.\n", memory.Clock(e.Elapsed()))
	entered := e.StateEntered()
	since := fmt.Sprintf("since %s (%s)", memory.Clock(entered.T-e.Admitted()), entered.Reason)
	switch st := e.CurrentState(); {
	case st == nil:
	case knowsBaseline(a):
		fmt.Fprintf(&b, "Current state: %s, %s.\n", e.State(), since)
	default:
		fmt.Fprintf(&b, "How the patient presents now, %s: %s\n", since, stateLook(st))
	}
	if !a.SeesMemory(memory.VitalsMeasurements) {
		return b.String()
	}
	if r, ok := e.Measured(); ok {
		// An absolute time keeps this line byte-identical until the next measurement.
		fmt.Fprintf(&b, "Last measured vitals (%s, %s): %s\n", memory.Clock(r.T-e.Admitted()), r.Source, r)
	} else {
		b.WriteString("No vitals measured yet: do not state any numbers.\n")
	}
	return b.String()
}
