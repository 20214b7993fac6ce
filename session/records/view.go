package records

import (
	"encoding/json"
	"maps"

	"github.com/ward-sim/ward/persist"
)

// What the engine knows and the trainee must find out — the case's scenario, title and states,
// the true vitals and its state history — a dump shows only to the
// instructor (or a developer on a plaintext database). ForTrainee masks it, and says so.

// maskedInDump is the note a trainee's dump carries where the engine's secrets were.
const maskedInDump = "masked in a trainee's view: the case's scenario, title and state, the true vitals and the state history; ward dump --instructor shows them"

// Registry facts and memory keys that name the case or its states.
var (
	secretFacts  = []string{"scenario", "state"}
	secretMemory = []string{"stateHistory"}
)

// ForTrainee is the dump as a trainee may read it.
func (d DumpDoc) ForTrainee() DumpDoc {
	d.Masked = maskedInDump
	sims := map[string]SimSummary{}
	for id, s := range d.Sim {
		sims[id] = s.forTrainee()
	}
	d.Sim = sims
	d.Content = maskContent(d.Content)
	d.Archives = append([]persist.Archive(nil), d.Archives...)
	for i := range d.Archives {
		d.Archives[i].Content = maskContent(d.Archives[i].Content)
	}
	return d
}

func (s SimSummary) forTrainee() SimSummary {
	return SimSummary{T: s.T, Actions: s.Actions, CriticalErrors: s.CriticalErrors, Masked: maskedInDump}
}

func maskContent(c persist.Content) persist.Content {
	c.Registry = maskRegistry(c.Registry)
	c.Sim = nil // the engines' own snapshots: ForTrainee's SimSummary says what a trainee sees
	c.Memory = maskMemory(c.Memory)
	return c
}

func maskRegistry(r persist.Registry) persist.Registry {
	reg := r
	reg.Patients = map[string]persist.PatientEntry{}
	for id, p := range r.Patients {
		p.Facts = maps.Clone(p.Facts)
		for _, k := range secretFacts {
			delete(p.Facts, k)
		}
		reg.Patients[id] = p
	}
	return reg
}

func maskMemory(docs map[string]json.RawMessage) map[string]json.RawMessage {
	mem := map[string]json.RawMessage{}
	for id, raw := range docs {
		mem[id] = withoutKeys(raw, secretMemory)
	}
	return mem
}

// withoutKeys drops keys from a JSON object; anything else is kept as it is.
func withoutKeys(raw json.RawMessage, keys []string) json.RawMessage {
	var doc map[string]json.RawMessage
	if json.Unmarshal(raw, &doc) != nil {
		return raw
	}
	for _, k := range keys {
		delete(doc, k)
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return raw
	}
	return out
}
