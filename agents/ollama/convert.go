package ollama

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"

	"github.com/ollama/ollama/api"

	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
)

// Wire is req as Ollama's chat endpoint takes it, streamed.
func Wire(model string, req llm.Request) *api.ChatRequest {
	stream := true
	out := &api.ChatRequest{
		Model:     model,
		Messages:  toAPI(req.Messages),
		Stream:    &stream,
		Format:    req.Format,
		Tools:     tools(req.Tools),
		Options:   options(req.Options),
		KeepAlive: &api.Duration{Duration: req.KeepAlive},
	}
	return out
}

func options(o llm.Options) map[string]any {
	out := map[string]any{}
	if o.NumCtx > 0 {
		out["num_ctx"] = o.NumCtx
	}
	if o.NumPredict > 0 {
		out["num_predict"] = o.NumPredict
	}
	if o.Temperature != nil {
		out["temperature"] = *o.Temperature
	}
	if o.Seed != 0 {
		out["seed"] = o.Seed
	}
	return out
}

// tools describes ward's tools as Ollama's function tools. api.ToolFunction's parameters are an
// anonymous struct, so the schema goes through JSON.
func tools(ts []llm.Tool) api.Tools {
	var out api.Tools
	for _, t := range ts {
		var tool api.Tool
		tool.Type = "function"
		tool.Function.Name = t.Name
		tool.Function.Description = t.Description
		if len(t.Parameters) > 0 {
			// ward's own schemas are fixed and valid; a failure would leave the tool without parameters.
			_ = json.Unmarshal(t.Parameters, &tool.Function.Parameters)
		}
		out = append(out, tool)
	}
	return out
}

// toAPI converts the prompt. ollama/api v0.6.5 has no tool-call ID and no tool name on a
// message: a tool result is linked to its call only by position, as the model templates render
// them. So each call gets its Index, and the tool results that follow an assistant message are
// put in the order of its calls (matched by ToolCallID).
func toAPI(msgs []memory.Message) []api.Message {
	msgs = slices.Clone(msgs)
	orderToolResults(msgs)
	out := make([]api.Message, len(msgs))
	for i, m := range msgs {
		out[i] = api.Message{Role: m.Role, Content: m.Content}
		for j, c := range m.ToolCalls {
			out[i].ToolCalls = append(out[i].ToolCalls, api.ToolCall{Function: api.ToolCallFunction{
				Index:     j,
				Name:      c.Name,
				Arguments: api.ToolCallFunctionArguments(maps.Clone(c.Args)),
			}})
		}
	}
	return out
}

// orderToolResults sorts each run of tool results into the order of the calls that precede it.
// Results answered out of order (parallel tools) would otherwise be read against the wrong call.
func orderToolResults(msgs []memory.Message) {
	for i := 0; i < len(msgs); i++ {
		calls := msgs[i].ToolCalls
		if len(calls) == 0 {
			continue
		}
		end := i + 1
		for end < len(msgs) && msgs[end].Role == memory.RoleTool {
			end++
		}
		position := func(m memory.Message) int {
			return slices.IndexFunc(calls, func(c memory.ToolCall) bool { return c.ID == m.ToolCallID })
		}
		slices.SortStableFunc(msgs[i+1:end], func(a, b memory.Message) int { return rank(position(a), len(calls)) - rank(position(b), len(calls)) })
		i = end - 1
	}
}

// rank puts a result whose call is unknown after every known one.
func rank(pos, n int) int {
	if pos < 0 {
		return n
	}
	return pos
}

// fromAPI is a reply as ward keeps it. Ollama gives calls no ID, so each gets its position.
func fromAPI(m api.Message) memory.Message {
	out := memory.Message{Role: m.Role, Content: m.Content}
	for i, c := range m.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, memory.ToolCall{ID: callID(i), Name: c.Function.Name, Args: maps.Clone(c.Function.Arguments)})
	}
	return out
}

func callID(i int) string { return "call_" + strconv.Itoa(i) }

func metrics(m api.Metrics) llm.Metrics {
	return llm.Metrics{PromptEvalCount: m.PromptEvalCount, PromptEvalDuration: m.PromptEvalDuration,
		EvalCount: m.EvalCount, EvalDuration: m.EvalDuration, LoadDuration: m.LoadDuration, TotalDuration: m.TotalDuration}
}
