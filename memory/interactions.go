package memory

import (
	"maps"
	"slices"

	"github.com/ollama/ollama/api"
)

// LoadRecent turns the last limit stored messages into chat messages, oldest first (limit <= 0
// means all). A tool result whose call fell outside the limit is left out rather than sent
// without its call.
//
// ollama/api v0.6.5 has no tool-call ID and no tool name on a message: a tool result is linked to
// its call only by position, as the model templates render them. So each call gets its Index,
// and the tool results that follow an assistant message are put in the order of its calls
// (matched by the stored ToolCallID). The stored name stays in persist, where the trace reads it.
func LoadRecent(msgs []Message, limit int) []api.Message {
	start := 0
	if limit > 0 && len(msgs) > limit {
		start = len(msgs) - limit
	}
	for start < len(msgs) && msgs[start].Role == roleTool {
		start++
	}
	recent := slices.Clone(msgs[start:])
	orderToolResults(recent)
	out := make([]api.Message, len(recent))
	for i, m := range recent {
		out[i] = toAPI(m)
	}
	return out
}

const roleTool = "tool"

func toAPI(m Message) api.Message {
	out := api.Message{Role: m.Role, Content: m.Content}
	for i, c := range m.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, api.ToolCall{Function: api.ToolCallFunction{
			Index:     i,
			Name:      c.Name,
			Arguments: api.ToolCallFunctionArguments(maps.Clone(c.Args)),
		}})
	}
	return out
}

// orderToolResults sorts each run of tool results into the order of the calls that precede it.
// Results answered out of order (parallel tools) would otherwise be read against the wrong call.
func orderToolResults(msgs []Message) {
	for i := 0; i < len(msgs); i++ {
		calls := msgs[i].ToolCalls
		if len(calls) == 0 {
			continue
		}
		end := i + 1
		for end < len(msgs) && msgs[end].Role == roleTool {
			end++
		}
		position := func(m Message) int {
			for j, c := range calls {
				if c.ID == m.ToolCallID {
					return j
				}
			}
			return len(calls)
		}
		slices.SortStableFunc(msgs[i+1:end], func(a, b Message) int { return position(a) - position(b) })
		i = end - 1
	}
}
