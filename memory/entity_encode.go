package memory

import (
	"encoding/json"
	"strconv"

	"github.com/ward-sim/ward/persist/jsonappend"
)

// EncodeJSON writes the entities byte for byte as encoding/json writes them. A patient's entities
// document is written again at every turn that merges, and its tallies (a row a turn and agent,
// up to maxTallies) make it the largest document memory keeps late in a shift: by reflection it
// cost a turn about half a millisecond there. The rows are written by hand; the few entities and
// the shift's counters still go through encoding/json.
func (e *Entities) EncodeJSON() ([]byte, error) {
	out := make([]byte, 0, 512+len(e.Tallies)*224)
	out = append(out, `{"conversation":`...)
	out, err := appendMarshalled(out, e.Conversation)
	if err == nil {
		out, err = appendMarshalled(append(out, `,"derived":`...), e.Derived)
	}
	if err == nil {
		out, err = appendMarshalled(append(out, `,"stats":`...), e.Stats)
	}
	if err != nil {
		return nil, err
	}
	if len(e.Tallies) == 0 {
		return append(out, '}'), nil
	}
	out = append(out, `,"tallies":[`...)
	for i := range e.Tallies {
		if i > 0 {
			out = append(out, ',')
		}
		if out, err = e.Tallies[i].appendJSON(out); err != nil {
			return nil, err
		}
	}
	return append(out, "]}"...), nil
}

func appendMarshalled(out []byte, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	return append(out, b...), err
}

// appendJSON appends the row as encoding/json writes an AgentTally.
func (t *AgentTally) appendJSON(out []byte) ([]byte, error) {
	out, err := jsonappend.Time(append(out, `{"at":`...), t.At)
	if err != nil {
		return nil, err
	}
	out = jsonappend.String(append(out, `,"agent":`...), t.Agent)
	out = strconv.AppendInt(append(out, `,"replies":`...), t.Replies, 10)
	out = strconv.AppendInt(append(out, `,"parse_errors":`...), t.ParseErrors, 10)
	out = strconv.AppendInt(append(out, `,"merges":`...), t.Merges, 10)
	out = strconv.AppendInt(append(out, `,"refused":`...), t.Refused, 10)
	out = strconv.AppendInt(append(out, `,"reported":`...), t.Reported, 10)
	out = strconv.AppendInt(append(out, `,"kept":`...), t.Kept, 10)
	out = strconv.AppendInt(append(out, `,"evictions":`...), t.Evictions, 10)
	if len(t.MergeNs) > 0 {
		out = append(out, `,"merge_ns":[`...)
		for i, ns := range t.MergeNs {
			if i > 0 {
				out = append(out, ',')
			}
			out = strconv.AppendInt(out, ns, 10)
		}
		out = append(out, ']')
	}
	out = strconv.AppendInt(append(out, `,"switches":`...), t.Switches, 10)
	out = strconv.AppendInt(append(out, `,"switch_failures":`...), t.SwitchFailures, 10)
	return append(out, '}'), nil
}
