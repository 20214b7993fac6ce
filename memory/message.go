package memory

import "time"

// SystemAgent is the Agent of a message ward itself wrote (a notice, a command's answer), not a
// model.
const SystemAgent = "ward"

// Message is one message of a conversation: what the trainee typed, what an agent or ward said,
// a tool's result. The same value is stored in a history, windowed into a prompt and sent to a
// backend, which converts it to its own wire format.
type Message struct {
	Role       string     `json:"role"` // user|assistant|system|tool
	Agent      string     `json:"agent,omitempty"`
	Content    string     `json:"content"`
	At         time.Time  `json:"at"`
	Sim        float64    `json:"sim,omitempty"` // the ward's sim clock, seconds, when it was written
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	ToolName   string     `json:"tool_name,omitempty"`
	// Sources are the protocol passages an assistant message cites, as the chat shows them under
	// it: "[1] Title › Section — Source".
	Sources []string `json:"sources,omitempty"`
	// By is who put the message into the shift when it was not the trainee, the team or ward's
	// own rules: ByInstructor for an event injected from the class's board. The voice the trainee
	// hears it in is Agent's; Spoken leaves By out, so no model is told.
	By string `json:"by,omitempty"`
	// In a resuscitation team's shift a member's line names them in By and their role in
	// TeamRole; For is whom the line orders to carry it out (a member, or the nurse when no member
	// holds that part of the work), empty for a line that is no order.
	TeamRole string `json:"team_role,omitempty"`
	For      string `json:"for,omitempty"`
}

// ByInstructor marks a message the instructor injected.
const ByInstructor = "instructor"

// ToolCall is a tool invocation requested by an assistant message.
type ToolCall struct {
	ID   string         `json:"id"`
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
}

// Roles of a message.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleSystem    = "system"
	RoleTool      = "tool"
)

// Spoken is msgs as a model reads them: roles, words and tool exchanges, without the wall time,
// sim time and speaker ward keeps beside them, so the same conversation is the same prompt.
func Spoken(msgs []Message) []Message {
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = Message{Role: m.Role, Content: m.Content, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID, ToolName: m.ToolName}
	}
	return out
}
