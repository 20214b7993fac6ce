package agents

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ward-sim/ward/memory"
)

// Prompt is one agent call's content, by section. Build lays the sections out so that Ollama can
// reuse its KV cache: what changes least comes first.
type Prompt struct {
	// Static is the agent's instructions and the scenario baseline. It must be byte-identical on
	// every turn of a patient, or the cache is lost from the first token.
	Static string
	// Window is the recent conversation, already cut by the message window.
	Window []memory.Message
	// Dynamic is this turn's context other than memory: measured vitals, state, entities and the
	// PATIENT_CONTEXT_JSON snapshot.
	Dynamic string
	// Memory is what recall selected for this turn.
	Memory memory.Selection
	// Instruction is a turn-specific instruction, such as a compound checklist; "" for none.
	Instruction string
	// User is the trainee's new message.
	User string
	// After is this turn's tool exchange, which follows the user message: the assistant's tool
	// calls and the tools' results, for the second call of the two-call flow.
	After []memory.Message
}

// Section names, as the trace, the events and the inspector show them.
const (
	SectionStatic  = "static"
	SectionWindow  = "window"
	SectionDynamic = "dynamic"
	SectionMemory  = "memory"
	SectionUser    = "user"
)

// Messages lays the prompt out: static system text, the window, one system message holding the
// dynamic context and memory, the user message, then any tool exchange of this turn.
func (p Prompt) Messages() []memory.Message {
	msgs := make([]memory.Message, 0, len(p.Window)+3)
	msgs = append(msgs, memory.Message{Role: memory.RoleSystem, Content: p.Static})
	msgs = append(msgs, p.Window...)
	if context := p.context(); context != "" {
		msgs = append(msgs, memory.Message{Role: memory.RoleSystem, Content: context})
	}
	msgs = append(msgs, memory.Message{Role: memory.RoleUser, Content: p.User})
	return append(msgs, p.After...)
}

func (p Prompt) context() string {
	return JoinSections(p.Dynamic, p.Memory.Render(), p.Instruction)
}

// JoinSections joins the non-blank parts of a prompt section with a blank line between them.
func JoinSections(parts ...string) string {
	kept := make([]string, 0, len(parts))
	for _, s := range parts {
		if s = strings.TrimSpace(s); s != "" {
			kept = append(kept, s)
		}
	}
	return strings.Join(kept, "\n\n")
}

// EntitiesSection renders the entities an agent may see for the dynamic section, "" when it
// holds none.
func EntitiesSection(view memory.AgentContext) string {
	if len(view.Conversation) == 0 && len(view.Derived) == 0 {
		return ""
	}
	b, _ := json.Marshal(view) // AgentContext holds plain JSON values
	return "Entities you hold: " + string(b)
}

// Sections estimates each section's tokens with est, for the budget, the trace and the events.
func (p Prompt) Sections(est *memory.Estimator) memory.Sections {
	return memory.Sections{
		Static:  est.Tokens(p.Static),
		Window:  est.Messages(p.Window) + est.Messages(p.After),
		Dynamic: est.Tokens(p.Dynamic) + est.Tokens(p.Instruction),
		Memory:  est.Tokens(p.Memory.Render()),
		User:    est.Tokens(p.User),
	}
}

// Fit shrinks the window and then the memory until the prompt and reserve (the output budget)
// fit in numCtx. Safety items are never dropped. It returns what was cut, for the trace, and a
// *PromptTooLongError when even the smallest prompt does not fit: sending it would let Ollama
// silently drop its oldest part.
func (p Prompt) Fit(est *memory.Estimator, numCtx, reserve int) (Prompt, []string, error) {
	s := p.Sections(est)
	fitted := est.Fit(memory.Prompt{ // the tool exchange is never cut, so it is budgeted with the user message
		Static: s.Static, Dynamic: s.Dynamic, User: s.User + est.Messages(p.After), Window: p.Window, Memory: p.Memory,
	}, numCtx, reserve)
	p.Window, p.Memory = fitted.Window, fitted.Memory
	if fitted.Over {
		return p, fitted.Shrunk, &PromptTooLongError{Tokens: fitted.Sections.Total(), Budget: numCtx - reserve}
	}
	return p, fitted.Shrunk, nil
}

// PromptTooLongError is a prompt that cannot fit the context even with its window and memory cut,
// which in practice means a very long message.
type PromptTooLongError struct{ Tokens, Budget int }

func (e *PromptTooLongError) Error() string {
	return fmt.Sprintf("the message is too long for the model's context (about %d tokens, %d fit) — split it into shorter messages", e.Tokens, e.Budget)
}

// SectionNames are the prompt's sections in prompt order.
var SectionNames = []string{SectionStatic, SectionWindow, SectionDynamic, SectionMemory, SectionUser}

// Texts is each section as the model reads it, keyed by name, for the trace: what a replay or a
// diff of two runs compares. The window's text includes this turn's tool exchange, which
// Sections counts with it.
func (p Prompt) Texts() map[string]string {
	return map[string]string{
		SectionStatic: p.Static, SectionWindow: MessagesText(append(slices.Clone(p.Window), p.After...)),
		SectionDynamic: JoinSections(p.Dynamic, p.Instruction), SectionMemory: p.Memory.Render(), SectionUser: p.User,
	}
}

// MessagesText writes messages as plain text, one block per message under a line naming its
// role (and for a tool call, the tool and its arguments), for reading and for diffs.
func MessagesText(msgs []memory.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		head := m.Role
		if m.ToolName != "" {
			head += " " + m.ToolName
		}
		fmt.Fprintf(&b, "--- %s\n", head)
		for _, c := range m.ToolCalls {
			args, _ := json.Marshal(c.Args) // arguments decoded from JSON encode again
			fmt.Fprintf(&b, "calls %s %s\n", c.Name, args)
		}
		if m.Content != "" {
			b.WriteString(m.Content)
			b.WriteString("\n")
		}
	}
	return b.String()
}

// SectionMap is Sections keyed by section name, as Request.Sections carries them.
func SectionMap(s memory.Sections) map[string]int {
	return map[string]int{
		SectionStatic: s.Static, SectionWindow: s.Window, SectionDynamic: s.Dynamic,
		SectionMemory: s.Memory, SectionUser: s.User,
	}
}
