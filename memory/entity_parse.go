package memory

import (
	"bytes"
	"encoding/json"
	"strings"
)

// OutputFormat is how an agent's output was read.
type OutputFormat string

const (
	FormatDelta  OutputFormat = "delta"  // {reply, entities_to_update, derived_entities_to_update}
	FormatLegacy OutputFormat = "legacy" // {reply, entities}: full state, split by key convention
	FormatText   OutputFormat = "text"   // not usable JSON: the reply was salvaged, no entities
)

// AgentOutput is one agent's parsed output. Malformed is set when something had to be tolerated
// (bad JSON, a missing or non-string reply, a section that is not an object); Warning says what.
type AgentOutput struct {
	Reply        string
	Conversation map[string]any
	Derived      map[string]any
	Format       OutputFormat
	Malformed    bool
	Warning      string
}

// Delta turns the parsed entities into a merge for agent at sim time now.
func (o AgentOutput) Delta(agent string, now float64) Delta {
	return Delta{Agent: agent, Now: now, Conversation: o.Conversation, Derived: o.Derived}
}

// ParseAgentOutput reads what an agent produced. It never fails and never loses the reply: for
// output that is not JSON it keeps the "reply" string it can still find (even cut off), or else
// the whole text.
func ParseAgentOutput(raw string) AgentOutput {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(jsonBody(raw), &fields); err != nil || fields == nil {
		return AgentOutput{Reply: salvageReply(raw), Format: FormatText, Malformed: true, Warning: "output is not a JSON object"}
	}
	out := AgentOutput{Format: FormatDelta}
	out.Reply = readReply(fields, raw, &out)
	_, delta := fields["entities_to_update"]
	_, derived := fields["derived_entities_to_update"]
	legacy, hasLegacy := fields["entities"]
	switch {
	case delta || derived:
		out.Conversation = readObject(fields["entities_to_update"], "entities_to_update", &out)
		out.Derived = readObject(fields["derived_entities_to_update"], "derived_entities_to_update", &out)
	case hasLegacy:
		out.Format = FormatLegacy
		out.warn("legacy full-state entities format")
		out.Conversation, out.Derived = splitByConvention(readObject(legacy, "entities", &out))
	}
	return out
}

func (o *AgentOutput) warn(w string) {
	if o.Warning != "" {
		o.Warning += "; "
	}
	o.Warning += w
}

func (o *AgentOutput) malformed(w string) {
	o.Malformed = true
	o.warn(w)
}

func readReply(fields map[string]json.RawMessage, raw string, out *AgentOutput) string {
	var reply string
	if r, ok := fields["reply"]; !ok || json.Unmarshal(r, &reply) != nil {
		out.malformed("no string reply field; the whole output is kept as the reply")
		return strings.TrimSpace(raw)
	}
	return reply
}

func readObject(r json.RawMessage, name string, out *AgentOutput) map[string]any {
	if len(r) == 0 || string(r) == "null" {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(r, &m) != nil {
		out.malformed(name + " is not an object; ignored")
		return nil
	}
	return m
}

// splitByConvention files legacy full-state keys: derived-looking keys go to the derived side.
func splitByConvention(all map[string]any) (conv, derived map[string]any) {
	for k, v := range all {
		side := &conv
		if IsDerivedKey(k) {
			side = &derived
		}
		if *side == nil {
			*side = map[string]any{}
		}
		(*side)[k] = v
	}
	return conv, derived
}

// jsonBody strips what models wrap around JSON: code fences and prose before or after.
func jsonBody(raw string) []byte {
	b := bytes.TrimSpace([]byte(raw))
	if bytes.HasPrefix(b, []byte("{")) {
		return b
	}
	first, last := bytes.IndexByte(b, '{'), bytes.LastIndexByte(b, '}')
	if first < 0 || last < first {
		return b
	}
	return b[first : last+1]
}

// salvageReply finds `"reply": "..."` in broken JSON and decodes the string, even when it was cut
// off before its closing quote. Without one, the whole trimmed text is the reply.
func salvageReply(raw string) string {
	var d ReplyDecoder
	if reply, ok := d.Add(raw); ok {
		return reply
	}
	return strings.TrimSpace(raw)
}
