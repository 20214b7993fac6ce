package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/memory/knowledge"
)

// Route sources: how the agent who speaks next was chosen. Every route event
// carries one, so a developer can tell a rule from a model's judgement.
const (
	RouteMention  = "mention"  // the trainee wrote @Agent
	RouteHandoff  = "handoff"  // the last agent said "back to you, Agent"
	RouteRule     = "rule"     // a slash command, bedside talk, or the next step of a confirmed plan
	RouteLLM      = "llm"      // the router model chose
	RouteFallback = "fallback" // nothing decided, so the Orchestrator facilitates
	// RouteRouterFailed: the router model failed or answered outside its format, so the
	// Orchestrator facilitates; unlike a fallback by design, the trainee is told.
	RouteRouterFailed = "router_failed"
)

// Route is one routing decision.
type Route struct {
	Agent     string
	Source    string
	Reasoning string // the rule that matched, or the router model's reasoning
}

// routerTimeout is the least a routing call may take; a slower model gets what its measured
// pace needs, and its first call the time to load. Past that the Orchestrator takes the turn.
const (
	routerTimeout   = 20 * time.Second
	routerFirstCall = 3 * time.Minute
)

// Route chooses the agent who answers text, given the patient's history
// before it. The rules come first, in the order of how explicitly the
// trainee spoke: @mention, slash command, the last agent's handoff, then
// bedside talk. Only a question for the team itself ("what should I do
// next?", "explain…") is left to the router model.
//
// Slash commands rank above the stored handoff because typing /vitals is a
// more direct request than a handoff left over from a turn the cap cut short.
func (t *Team) Route(ctx context.Context, history []memory.Message, text string) Route {
	if r, ok := t.routeByRules(history, text); ok {
		return r
	}
	return t.askRouter(ctx, history, text)
}

// routeByRules decides every message it can; ok is false only for a
// question meant for the team, which needs judgement.
func (t *Team) routeByRules(history []memory.Message, text string) (Route, bool) {
	trimmed := strings.TrimSpace(text)
	if name, ok := t.mention(trimmed); ok {
		return Route{Agent: name, Source: RouteMention, Reasoning: "addressed with @" + name}, true
	}
	if strings.HasPrefix(trimmed, "/") {
		if name, ok := t.CommandAgent(trimmed); ok {
			return Route{Agent: name, Source: RouteRule, Reasoning: "slash command answered by " + name}, true
		}
		return Route{Agent: AgentOrchestrator, Source: RouteFallback, Reasoning: "no agent answers this command"}, true
	}
	if last, ok := lastSpoken(history); ok && last.Role == "assistant" {
		if name, ok := t.handoff(last.Content, last.Agent); ok {
			return Route{Agent: name, Source: RouteHandoff, Reasoning: last.Agent + " handed back to " + name}, true
		}
	}
	if isTeamQuestion(trimmed) {
		return Route{}, false
	}
	return Route{Agent: AgentPatient, Source: RouteRule, Reasoning: "bedside talk or action"}, true
}

var mentionPattern = regexp.MustCompile(`^@([A-Za-z][A-Za-z0-9_]*)`)

// AskCommand puts a question to the Preceptor: "/ask what is the IM dose of adrenaline?".
const AskCommand = "/ask"

// WithoutMention is text with its addressee removed, a leading "@Agent" (and the comma or colon
// after it) or AskCommand: what the trainee said, for parsers that read the words.
func WithoutMention(text string) string {
	trimmed := strings.TrimSpace(text)
	if len(trimmed) > len(AskCommand) && strings.EqualFold(trimmed[:len(AskCommand)+1], AskCommand+" ") {
		return strings.TrimSpace(trimmed[len(AskCommand):])
	}
	loc := mentionPattern.FindStringIndex(trimmed)
	if loc == nil {
		return text
	}
	return strings.TrimLeft(trimmed[loc[1]:], " \t,:;")
}

// mention resolves "@pharm …" to Pharmacist. An ambiguous or unknown name is
// no mention at all, so the message is routed as if it had none.
func (t *Team) mention(text string) (string, bool) {
	m := mentionPattern.FindStringSubmatch(text)
	if m == nil {
		return "", false
	}
	return t.resolve(m[1])
}

var handoffPattern = regexp.MustCompile(`(?i)\bback to you\b[\s,:;.!—–-]*@?([A-Za-z][A-Za-z0-9_]*)?`)

// handoff finds "back to you, NAME" in what speaker said. A handoff that
// names no agent ("back to you." or "back to you, trainee") returns the
// floor to the Orchestrator, unless the Orchestrator said it: then it is
// addressed to the trainee and is no handoff.
func (t *Team) handoff(reply, speaker string) (string, bool) {
	for _, m := range handoffPattern.FindAllStringSubmatch(reply, -1) {
		if name, ok := t.resolve(m[1]); ok && !strings.EqualFold(name, speaker) {
			return name, true
		}
	}
	if handoffPattern.MatchString(reply) && !strings.EqualFold(speaker, AgentOrchestrator) {
		return AgentOrchestrator, true
	}
	return "", false
}

// lastSpoken is the latest user or agent message: system snapshots and tool
// results in between do not change who spoke last.
func lastSpoken(history []memory.Message) (memory.Message, bool) {
	for i := len(history) - 1; i >= 0; i-- {
		if r := history[i].Role; r == "user" || r == "assistant" {
			return history[i], true
		}
	}
	return memory.Message{}, false
}

// routerVerdict is the structured output the router model must produce.
type routerVerdict struct {
	Verdict   string `json:"verdict"`
	Reasoning string `json:"reasoning"`
}

// askRouter asks the router model; whatever it answers that is not an agent
// name, and any error, hands the message to the Orchestrator as a failed route.
func (t *Team) askRouter(ctx context.Context, history []memory.Message, text string) Route {
	if t.Router == nil {
		return t.withoutRouter(text)
	}
	req := t.routerRequest(history, text)
	timeout := llm.PaceOf(t.Router).Expect(llm.PromptBytes(req), req.Options.NumPredict, routerTimeout, routerFirstCall)
	ctx, cancel := llm.WithTimeout(ctx, timeout)
	defer cancel()
	resp, err := t.Router.Chat(ctx, req, nil)
	if err != nil {
		return Route{Agent: AgentOrchestrator, Source: RouteRouterFailed, Reasoning: "router failed: " + err.Error()}
	}
	var v routerVerdict
	if err := json.Unmarshal([]byte(strings.TrimSpace(resp.Message.Content)), &v); err != nil {
		return Route{Agent: AgentOrchestrator, Source: RouteRouterFailed, Reasoning: "router answer is not the verdict JSON"}
	}
	a, ok := t.Agent(strings.TrimPrefix(strings.TrimSpace(v.Verdict), "@"))
	if !ok {
		return Route{Agent: AgentOrchestrator, Source: RouteRouterFailed, Reasoning: fmt.Sprintf("router named %q, not an agent", llm.Clip(v.Verdict, 40))}
	}
	return Route{Agent: a.Name, Source: RouteLLM, Reasoning: llm.Clip(v.Reasoning, llm.MaxReasoningLen)}
}

// withoutRouter routes a team question when there is no router model: a protocol question to
// the Preceptor, who answers from the cards; anything else to the Orchestrator.
func (t *Team) withoutRouter(text string) Route {
	if name, ok := t.resolve(AgentPreceptor); ok && knowledge.IsProtocolQuestion(text) {
		return Route{Agent: name, Source: RouteFallback, Reasoning: "a protocol question and no router model: the Preceptor answers from the cards"}
	}
	return Route{Agent: AgentOrchestrator, Source: RouteFallback, Reasoning: "a question for the team and no router model"}
}

// routerContextMessages is how much recent conversation the router sees:
// enough to resolve "and the dose?", small enough to answer quickly.
const routerContextMessages = 6

func (t *Team) routerRequest(history []memory.Message, text string) llm.Request {
	var team strings.Builder
	team.WriteString(strings.TrimSpace(t.routerPrompt))
	team.WriteString("\n\nTeam:\n")
	for _, a := range t.Agents {
		fmt.Fprintf(&team, "- %s: %s\n", a.Name, a.Role)
	}
	var recent strings.Builder
	start := max(0, len(history)-routerContextMessages)
	for _, m := range history[start:] {
		if m.Role == "user" {
			fmt.Fprintf(&recent, "Trainee: %s\n", llm.Clip(m.Content, 400))
		} else if m.Role == "assistant" {
			fmt.Fprintf(&recent, "%s: %s\n", m.Agent, llm.Clip(m.Content, 400))
		}
	}
	user := "Trainee's new message:\n" + text
	if recent.Len() > 0 {
		user = "Recent conversation:\n" + recent.String() + "\n" + user
	}
	return llm.Request{
		Agent:     "router",
		Messages:  []memory.Message{{Role: memory.RoleSystem, Content: team.String()}, {Role: memory.RoleUser, Content: user}},
		Format:    t.routerSchema(),
		Options:   llm.Options{Temperature: llm.Zero(), NumCtx: llm.DefaultNumCtx, NumPredict: 160},
		KeepAlive: llm.DefaultKeepAlive,
	}
}

// routerSchema constrains the verdict to the team's names, so a model that
// honours structured output cannot name anyone else.
func (t *Team) routerSchema() json.RawMessage {
	return llm.Schema(map[string]any{
		"type": "object",
		"properties": map[string]any{
			"verdict":   map[string]any{"type": "string", "enum": t.Names()},
			"reasoning": map[string]any{"type": "string", "maxLength": llm.MaxReasoningLen},
		},
		"required": []string{"verdict", "reasoning"},
	})
}
