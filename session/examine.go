package session

import (
	"cmp"
	"slices"
	"strings"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/memory/knowledge"
	"github.com/ward-sim/ward/session/aar"
	"github.com/ward-sim/ward/session/action"
	"github.com/ward-sim/ward/session/physio"
	sc "github.com/ward-sim/ward/session/scenario"
)

// examination is what the engine and memory made of one trainee message: the examine stage's
// output. It is computed once, before any agent speaks, and shared by every agent of the turn:
// the numbers come from here, not from a model.
type examination struct {
	text        string
	engine      *physio.Engine // nil when no patient is active
	events      []physio.Event
	speech      physio.Speech       // what the patient can say now, from the engine's GCS
	disclosures []agents.Disclosure // what the patient tells this turn
	bystander   []agents.Disclosure // what a relative tells for a patient who cannot
	results     []agents.Result     // what this turn's measurements beyond the vitals found
	examined    []agents.Result     // what this turn's bedside examinations found
	parts       []memory.Part
	compound    memory.Compound
	review      *aar.Report // the After Action Review the Preceptor debriefs from, on /aar
	retrieval   *retrieval  // the protocol passages for the turn, once an agent needed them
}

// examine parses the trainee's text into actions, applies them to the active patient's engine,
// records what happened in memory and reports the engine's events.
func (s *Session) examine(t *turn, st settled) *examination {
	x := &examination{text: t.input, engine: s.engine(t, s.active)}
	if x.engine == nil {
		return x
	}
	if st.effect == effectAAR {
		r := s.review(x.engine)
		x.review = &r
	}
	actions := actionsOf(cmp.Or(t.carries, t.input), st.effect)
	x.speech = x.engine.Speech() // no time passes within a turn
	for _, a := range actions {
		if !st.retry {
			x.events = append(x.events, x.engine.Apply(a)...)
		}
		if a.Kind == sc.KindAsk && x.speech.GivesHistory() {
			x.disclosures = append(x.disclosures, s.sim.disclose(x.engine, a.Topic)...)
		} else if a.Kind == sc.KindAsk {
			x.bystander = append(x.bystander, s.sim.discloseForPatient(x.engine, a.Topic)...)
		}
	}
	x.results = results(x)
	x.examined = examined(x)
	s.recordEvents(t, x.events)
	s.sim.dirty[s.active] = true
	emitSim(t.emit, x.events)
	x.parts = partsOf(actions)
	x.compound = memory.DetectCompound(x.parts, t.input)
	if x.compound.IsCompound() {
		_ = s.sim.memory(s.active).Record(memory.CompoundActions, memory.Item{T: s.sim.ward.Clock(), Text: x.compound.Summary()})
	}
	return x
}

// actionsOf is what the turn does in the engine: a slash command's own effect, or whatever the
// parser found in the trainee's words (nothing it does not recognise). A question about the
// guidance does nothing at the bedside: "what is the target oxygen saturation?" measures none.
func actionsOf(text, effect string) []action.Action {
	said := agents.WithoutMention(text)
	switch {
	case effect == effectVitals:
		return []action.Action{{Kind: sc.KindCheckVitals}}
	case effect != "", knowledge.IsProtocolQuestion(said):
		return nil
	}
	return action.Parse(said)
}

// disclosedIn reports whether reply carries the scenario's own answer to question part p: words
// the keyword check may not know ("nothing I know of") still answer it.
func (x *examination) disclosedIn(p memory.Part, reply string) bool {
	return p.Kind == memory.PartQuestion && slices.ContainsFunc(x.disclosures, func(d agents.Disclosure) bool {
		return memory.NormalizeTopic(d.Topic) == memory.NormalizeTopic(p.Name) && strings.Contains(reply, d.Text)
	})
}

// disclose returns what the patient tells about topic, and remembers it: a disclosure made once
// is part of the patient's memory from then on.
func (m *sim) disclose(e *physio.Engine, topic string) []agents.Disclosure {
	return m.remembered(e, e.Tells(topic), "")
}

// discloseForPatient returns what the bystander tells about topic for a patient who cannot, and
// remembers it with who said it.
func (m *sim) discloseForPatient(e *physio.Engine, topic string) []agents.Disclosure {
	b := e.Scenario().Bystander
	if b == nil {
		return nil
	}
	return m.remembered(e, b.DisclosuresAbout(topic), bystanderSource(b))
}

// remembered records each disclosure in the patient's memory once, labelled with its source
// when someone other than the patient said it, and returns them as told, each marked when it
// was told before.
func (m *sim) remembered(e *physio.Engine, list []sc.Disclosure, source string) []agents.Disclosure {
	var out []agents.Disclosure
	mem := m.memory(e.PatientID())
	for _, d := range list {
		text := d.Text
		if source != "" {
			text = "(" + source + ") " + text
		}
		again := mem != nil && disclosed(mem, text)
		out = append(out, agents.Disclosure{Topic: d.Topic, Text: d.Text, Again: again})
		if mem != nil && !again {
			_ = mem.Record(memory.PatientDisclosures, memory.Item{T: e.Clock(), Topic: memory.NormalizeTopic(d.Topic), Text: text})
		}
	}
	return out
}

func disclosed(mem *memory.Memory, text string) bool {
	return slices.ContainsFunc(mem.Items(memory.PatientDisclosures), func(it memory.Item) bool { return it.Text == text })
}

// partsOf names what a message did and asked, for recall and compound detection.
func partsOf(actions []action.Action) []memory.Part {
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

func treatmentName(a action.Action) string {
	if a.Drug != "" {
		return a.Drug
	}
	return string(a.Kind)
}
