package eval

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
)

// EvalDelta runs every delta scenario through b and checks that each output
// is one JSON object in the delta format, which memory parses without a
// fallback and merges without refusal, updating the expected keys and
// resending none that did not change.
//
// The offline backend cannot play an arbitrary labelled turn, so with it each scenario answers
// its own label. That run checks the harness itself (the prompt, the labels, the parser and the
// checks agree), not a model, and must score 100%.
func EvalDelta(ctx context.Context, b llm.Backend) Report {
	r := Report{Suite: "delta", Backend: b.Name(), Model: b.Model()}
	team, err := agents.LoadTeam("")
	if err != nil {
		r.Record("load team", "setup", err.Error(), "")
		return r
	}
	for _, sc := range deltaScenarios() {
		out, err := sc.answer(ctx, b, team)
		if err != nil {
			r.Record(sc.Name, sc.Category, "chat failed: "+err.Error(), "")
			continue
		}
		r.Record(sc.Name, sc.Category, sc.check(out), out)
	}
	return r
}

// deltaScenario is one labelled turn. The agent knows some entities, sees some messages, and
// must update exactly the facts the turn changed.
type deltaScenario struct {
	Name         string         `yaml:"name"`
	Category     string         `yaml:"category"`
	Agent        string         `yaml:"agent"`
	Known        map[string]any `yaml:"known"`         // conversation entities before the turn
	KnownDerived map[string]any `yaml:"known_derived"` // the agent's own derived entities before the turn
	Messages     []caseMessage  `yaml:"messages"`      // up to the turn's user message and its tool rounds
	Conv         map[string]any `yaml:"conversation"`  // keys entities_to_update must carry
	Derived      map[string]any `yaml:"derived"`       // keys derived_entities_to_update must carry
	Empty        bool           `yaml:"empty"`         // nothing may be updated
}

// caseMessage is a message of a labelled conversation; a tool call is named only.
type caseMessage struct {
	Role      string   `yaml:"role"`
	Content   string   `yaml:"content"`
	ToolCalls []string `yaml:"tool_calls"`
}

//go:embed cases/delta.yaml
var deltaCasesYAML []byte

// deltaScenarios are parsed on first use, like analyzerCases.
var deltaScenarios = sync.OnceValue(func() []deltaScenario { return mustCases[deltaScenario](deltaCasesYAML) })

func (sc deltaScenario) messages() []memory.Message {
	out := make([]memory.Message, len(sc.Messages))
	for i, m := range sc.Messages {
		out[i] = memory.Message{Role: m.Role, Content: m.Content}
		for _, name := range m.ToolCalls {
			out[i].ToolCalls = append(out[i].ToolCalls, memory.ToolCall{Name: name, Args: map[string]any{}})
		}
	}
	return out
}

// evalNow is the sim time of every scenario's turn; known entities date
// from time 0.
const evalNow = 60

func (sc deltaScenario) answer(ctx context.Context, b llm.Backend, team *agents.Team) (string, error) {
	req, err := sc.request(team)
	if err != nil || b.Name() == "offline" {
		return sc.label(), err
	}
	resp, err := b.Chat(ctx, req, nil)
	return resp.Message.Content, err
}

// label is the scenario's expected answer in the agent output format.
func (sc deltaScenario) label() string {
	conv, derived := sc.Conv, sc.Derived
	if conv == nil {
		conv = map[string]any{}
	}
	if derived == nil {
		derived = map[string]any{}
	}
	b, _ := json.Marshal(map[string]any{"reply": "Noted.", "entities_to_update": conv, "derived_entities_to_update": derived})
	return string(b)
}

// request lays the scenario out as the session lays out an agent's prompt (Prompt.Messages): the
// agent's system text, the earlier conversation, the entities it may see, the turn's user
// message, then its tool rounds.
func (sc deltaScenario) request(team *agents.Team) (llm.Request, error) {
	a, ok := team.Agent(sc.Agent)
	if !ok {
		return llm.Request{}, fmt.Errorf("no agent %s in the team", sc.Agent)
	}
	known, err := sc.seeded()
	if err != nil {
		return llm.Request{}, err
	}
	view, err := known.Context(a.Name, evalNow)
	if err != nil {
		return llm.Request{}, err
	}
	msgs := sc.messages()
	turn := len(msgs) - 1 // every scenario's turn opens with a user message
	for msgs[turn].Role != memory.RoleUser {
		turn--
	}
	p := agents.Prompt{
		Static:  a.SystemText(),
		Window:  msgs[:turn],
		Dynamic: agents.EntitiesSection(view),
		User:    msgs[turn].Content,
		After:   msgs[turn+1:],
	}
	return llm.Request{
		Agent:     a.Name,
		Messages:  p.Messages(),
		Format:    agents.AgentOutputSchema,
		Options:   llm.Options{Temperature: llm.Zero(), NumCtx: llm.DefaultNumCtx, NumPredict: 1024},
		KeepAlive: llm.DefaultKeepAlive,
	}, nil
}

// seeded is the entity state before the turn.
func (sc deltaScenario) seeded() (*memory.Entities, error) {
	e := &memory.Entities{}
	if len(sc.Known) == 0 && len(sc.KnownDerived) == 0 {
		return e, nil
	}
	if _, err := e.Merge(memory.Delta{Agent: sc.Agent, Conversation: sc.Known, Derived: sc.KnownDerived}); err != nil {
		return nil, fmt.Errorf("scenario %s: known entities refused: %w", sc.Name, err)
	}
	return e, nil
}

// check returns "" when raw conforms, else every reason it does not.
func (sc deltaScenario) check(raw string) string {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(strings.TrimSpace(raw)), &fields); err != nil || fields == nil {
		return "output is not one JSON object"
	}
	var reasons []string
	for _, k := range []string{"reply", "entities_to_update", "derived_entities_to_update"} {
		if _, ok := fields[k]; !ok {
			reasons = append(reasons, "missing "+k)
		}
	}
	out := memory.ParseAgentOutput(raw)
	if out.Format != memory.FormatDelta || out.Malformed {
		reasons = append(reasons, fmt.Sprintf("parsed as %s: %s", out.Format, out.Warning))
	}
	if strings.TrimSpace(out.Reply) == "" {
		reasons = append(reasons, "empty reply")
	}
	conv, derived := normalizedKeys(out.Conversation), normalizedKeys(out.Derived)
	reasons = append(reasons, sc.checkKeys(conv, derived)...)
	if known, err := sc.seeded(); err != nil {
		reasons = append(reasons, err.Error())
	} else if _, err := known.Merge(out.Delta(sc.Agent, evalNow)); err != nil {
		reasons = append(reasons, "memory refused the delta: "+err.Error())
	}
	return strings.Join(reasons, "; ")
}

func (sc deltaScenario) checkKeys(conv, derived []string) []string {
	var reasons []string
	if sc.Empty && len(conv)+len(derived) > 0 {
		reasons = append(reasons, fmt.Sprintf("expected an empty delta, got %v", slices.Concat(conv, derived)))
	}
	for k := range sc.Conv {
		if !slices.Contains(conv, k) {
			reasons = append(reasons, "entities_to_update lacks "+k)
		}
	}
	for k := range sc.Derived {
		if !slices.Contains(derived, k) {
			reasons = append(reasons, "derived_entities_to_update lacks "+k)
		}
	}
	for _, k := range slices.Concat(conv, derived) {
		_, changed := sc.Conv[k]
		_, changedDerived := sc.Derived[k]
		_, wasKnown := sc.Known[k]
		_, wasDerived := sc.KnownDerived[k]
		if (wasKnown || wasDerived) && !changed && !changedDerived {
			reasons = append(reasons, "resent unchanged "+k+" (full state, not a delta)")
		}
	}
	slices.Sort(reasons) // map order must not change the report
	return reasons
}

// normalizedKeys lists keys as memory stores them, so "Working Diagnosis"
// counts as working_diagnosis; a key memory cannot store is kept as written
// (the merge check reports it).
func normalizedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		if n, err := memory.NormalizeKey(k); err == nil {
			k = n
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
