package session

import (
	"encoding/json"
	"fmt"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/session/physio"
	sc "github.com/ward-sim/ward/session/scenario"
)

// toolsFor is what agent a may call: its tools from the team file, when the model can call tools
// at all. Without tool support the engine's results are already in the dynamic context.
func (s *Session) toolsFor(a agents.Agent, x *examination) []llm.Tool {
	if !s.cfg.Tools || x.engine == nil {
		return nil
	}
	return agents.Tools(a.Tools)
}

// runTools executes the model's tool calls against the engine and memory, and returns the
// exchange (the call, then each result) for the second call and the patient's interaction log.
func (s *Session) runTools(t *turn, agent string, x *examination, call memory.Message) []memory.Message {
	now := s.cfg.Now().UTC()
	asked := memory.Message{Role: memory.RoleAssistant, Agent: agent, Content: call.Content, At: now}
	var results []memory.Message
	for _, tc := range call.ToolCalls {
		// The ID reaches the next prompt, so it is made from the input's time, as the prompt's
		// other stamps are, and numbered within the turn, whose agents may each call tools.
		id := fmt.Sprintf("call_%d_%d", s.at.UnixNano(), t.toolCalls)
		t.toolCalls++
		asked.ToolCalls = append(asked.ToolCalls, memory.ToolCall{ID: id, Name: tc.Name, Args: tc.Args})
		content := s.runTool(t, x, tc.Name, tc.Args)
		results = append(results, memory.Message{Role: memory.RoleTool, ToolCallID: id, ToolName: tc.Name, Content: content, At: now})
	}
	return append([]memory.Message{asked}, results...)
}

// runTool answers one call. Whatever the model sent, the answer is the engine's or a validation
// error the model can read; it never reaches the trainee as fact.
func (s *Session) runTool(t *turn, x *examination, name string, args map[string]any) string {
	mem := s.sim.memory(s.active)
	clock := s.sim.ward.Clock()
	var err error
	switch name {
	case agents.ToolCheckVitals:
		return s.checkVitalsTool(t, x.engine)
	case agents.ToolRecordQuote:
		err = mem.AddQuote(clock, stringArg(args, "speaker"), stringArg(args, "quote"))
	case agents.ToolRecordAssessment:
		err = mem.AddAssessment(clock, stringArg(args, "finding"))
	default:
		err = fmt.Errorf("no tool named %q", name)
	}
	if err != nil {
		return "error: " + err.Error()
	}
	s.sim.dirty[s.active] = true
	return "recorded"
}

// checkVitalsTool measures the patient as a trainee's check would, so the reading is logged,
// scored and remembered like any other.
func (s *Session) checkVitalsTool(t *turn, e *physio.Engine) string {
	events := e.Apply(physio.Action{Kind: sc.KindCheckVitals})
	s.recordEvents(events)
	for _, ev := range events {
		t.emit(SimEvent{ev})
	}
	r, _ := e.Measured()
	b, _ := json.Marshal(r)
	return string(b)
}

func stringArg(args map[string]any, key string) string {
	v, _ := args[key].(string)
	return v
}
