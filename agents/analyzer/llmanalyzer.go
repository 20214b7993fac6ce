package analyzer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/memory/words"
)

// LLMAnalyzerConfig tunes the LLM analyzer. The zero value uses the defaults.
type LLMAnalyzerConfig struct {
	// Timeout bounds the whole call; 0 derives it from the model's measured pace (at least 8 s),
	// or allows a first call's loading of the model before anything was measured.
	Timeout    time.Duration
	NumPredict int // output budget, default 1024: room for every bounded field, escapes included
	// NumCtx and KeepAlive must equal the chat calls' values, or Ollama
	// reloads the model between the analyzer and the patient.
	NumCtx    int           // default llm.DefaultNumCtx
	KeepAlive time.Duration // default llm.DefaultKeepAlive
	// Examples are IDs to show the model; when empty they are generated
	// from the pattern.
	Examples []string
}

const (
	defaultAnalyzerTimeout = 8 * time.Second
	firstCallTimeout       = 3 * time.Minute // loading a model on a laptop CPU
	defaultAnalyzerPredict = 1024
	maxAnalyzedTextLen     = 2000 // characters of the trainee's text sent to the model
)

// LLMAnalyzer asks a model for a structured decision. It keeps no state
// between calls, so a change of patient has nothing of it to reset.
type LLMAnalyzer struct {
	backend llm.Backend
	cfg     LLMAnalyzerConfig
}

func NewLLMAnalyzer(backend llm.Backend, cfg LLMAnalyzerConfig) *LLMAnalyzer {
	if cfg.NumPredict <= 0 {
		cfg.NumPredict = defaultAnalyzerPredict
	}
	if cfg.NumCtx <= 0 {
		cfg.NumCtx = llm.DefaultNumCtx
	}
	if cfg.KeepAlive <= 0 {
		cfg.KeepAlive = llm.DefaultKeepAlive
	}
	return &LLMAnalyzer{backend: backend, cfg: cfg}
}

// DecisionSchema is the JSON Schema sent as `format`. Every string is
// bounded so that even a weak model's constrained output ends.
var DecisionSchema = llm.Schema(map[string]any{
	"type": "object",
	"properties": map[string]any{
		"action":     map[string]any{"type": "string", "enum": Actions},
		"patient_id": map[string]any{"type": []string{"string", "null"}, "maxLength": MaxPatientIDLen},
		"reasoning":  map[string]any{"type": "string", "maxLength": llm.MaxReasoningLen},
	},
	"required":             []string{"action", "patient_id", "reasoning"},
	"additionalProperties": false,
})

// Immediate never decides: every decision of the LLM analyzer is a model call.
func (a *LLMAnalyzer) Immediate(AnalyzerInput) (Decision, bool) { return Decision{}, false }

// Analyze never fails: any error, empty answer or invalid decision falls
// back to the rules, with the reason in Reasoning.
func (a *LLMAnalyzer) Analyze(ctx context.Context, in AnalyzerInput) Decision {
	start := time.Now()
	d, err := a.ask(ctx, in)
	if err != nil {
		d, _ = RulesAnalyzer{}.Decide(in)
		d.Source = SourceFallback
		d.Reasoning = "LLM analyzer failed (" + err.Error() + "); rules: " + d.Reasoning
	}
	d.Elapsed = time.Since(start)
	return d
}

func (a *LLMAnalyzer) ask(ctx context.Context, in AnalyzerInput) (Decision, error) {
	req := a.request(in)
	timeout := a.timeout(req)
	ctx, cancel := llm.WithTimeout(ctx, timeout)
	defer cancel()
	resp, err := a.backend.Chat(ctx, req, nil)
	if err == nil && llm.Unfinished(resp.DoneReason) != "" {
		err = errors.New(llm.Unfinished(resp.DoneReason))
	}
	if err != nil {
		return Decision{}, describe(err, timeout)
	}
	return parseDecision(resp.Message.Content, in)
}

// analyzerReplyTokens is about how long a decision is; the timeout allows for it at the model's
// measured pace.
const analyzerReplyTokens = 120

// timeout is the configured one, or else what the model's measured pace needs for this prompt
// and a decision, and at least the default.
func (a *LLMAnalyzer) timeout(req llm.Request) time.Duration {
	if a.cfg.Timeout > 0 {
		return a.cfg.Timeout
	}
	return llm.PaceOf(a.backend).Expect(llm.PromptBytes(req), analyzerReplyTokens, defaultAnalyzerTimeout, firstCallTimeout)
}

// describe words a failure for the Reasoning field, where the analyzer's
// own cause matters more than the chat's user-facing advice.
func describe(err error, timeout time.Duration) error {
	var empty *llm.EmptyError
	var stall *llm.StallError
	switch {
	case errors.As(err, &empty):
		return errors.New("empty answer: " + empty.Reason)
	case errors.As(err, &stall):
		return fmt.Errorf("stalled: nothing for %s", stall.After)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("no answer within %s", timeout)
	}
	return err
}

func (a *LLMAnalyzer) request(in AnalyzerInput) llm.Request {
	return llm.Request{
		Agent: "analyzer",
		Messages: []memory.Message{
			{Role: memory.RoleSystem, Content: analyzerPrompt(in, a.examples(in))},
			{Role: memory.RoleUser, Content: llm.Clip(in.Text, maxAnalyzedTextLen)},
		},
		Format:    DecisionSchema,
		Options:   llm.Options{Temperature: llm.Zero(), NumPredict: a.cfg.NumPredict, NumCtx: a.cfg.NumCtx},
		KeepAlive: a.cfg.KeepAlive,
	}
}

func (a *LLMAnalyzer) examples(in AnalyzerInput) []string {
	if len(a.cfg.Examples) > 0 {
		return a.cfg.Examples
	}
	return ExampleIDs(in.pattern())
}

// analyzerPrompt puts the fixed instructions first and the turn's state
// last, so consecutive calls share the longest prefix.
func analyzerPrompt(in AnalyzerInput, examples []string) string {
	var b strings.Builder
	b.WriteString(`You decide whether a trainee's message in a clinical simulation changes which patient the conversation is about.
Answer with one JSON object: {"action": ..., "patient_id": ..., "reasoning": ...}.

Actions:
- NONE: general talk; no patient is active and none is named.
- ACTIVATE_NEW: the trainee asks for a patient who is not in the roster.
- SWITCH_EXISTING: the trainee asks for a roster patient other than the active one.
- UNCHANGED: the message carries on with the active patient.
- CLEAR: the trainee asks to clear, reset or wipe all patient context.

`)
	fmt.Fprintf(&b, "patient_id must match the regular expression %s exactly", in.pattern())
	if len(examples) > 0 {
		fmt.Fprintf(&b, ", for example %s", strings.Join(examples, " or "))
	}
	b.WriteString(`. Rewrite variants the trainee types (other case, a space instead of the separator, "pt" for "patient") into that form. Use null when the message names no patient. Never invent an ID, and never take one from these instructions.
reasoning: one short sentence.
`)
	if len(examples) > 0 {
		writeAnalyzerExamples(&b, examples)
	}
	b.WriteString("\nActive patient: ")
	b.WriteString(orNone(in.ActivePatient))
	b.WriteString("\nRoster: ")
	b.WriteString(orNone(strings.Join(in.Roster, ", ")))
	b.WriteString("\n")
	if len(in.Patients) > 0 {
		b.WriteString("The trainee may name a roster patient without the ID, by name, bed, order of arrival or condition. Patients in order of arrival:\n")
		for _, p := range in.Patients {
			fmt.Fprintf(&b, "- %s: %s, %s, bed %s, %s\n", p.ID, orNone(p.Name), orNone(p.Sex), orNone(p.Bed), orNone(p.Condition))
		}
	}
	return b.String()
}

func writeAnalyzerExamples(b *strings.Builder, examples []string) {
	first, second := examples[0], examples[len(examples)-1]
	b.WriteString("\nExamples:\n")
	fmt.Fprintf(b, "- no patient active, %q → {\"action\":\"ACTIVATE_NEW\",\"patient_id\":%q,\"reasoning\":\"asks for a new patient\"}\n", "review "+first, first)
	if second != first {
		fmt.Fprintf(b, "- %s active, roster %s, %s, %q → {\"action\":\"SWITCH_EXISTING\",\"patient_id\":%q,\"reasoning\":\"asks for a known patient\"}\n", first, first, second, "go back to "+second, second)
	}
	b.WriteString(`- a patient active, "what is her blood pressure?" → {"action":"UNCHANGED","patient_id":null,"reasoning":"carries on"}` + "\n")
	b.WriteString(`- "please reset the patient context" → {"action":"CLEAR","patient_id":null,"reasoning":"asks to clear"}` + "\n")
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// llmDecision is the model's answer as the schema shapes it.
type llmDecision struct {
	Action    string  `json:"action"`
	PatientID *string `json:"patient_id"`
	Reasoning string  `json:"reasoning"`
}

// parseDecision validates the model's answer against what the rules know:
// an ID counts only if it is valid, and either in the roster or named in the
// message, so an ID copied from the prompt's examples is dropped.
func parseDecision(content string, in AnalyzerInput) (Decision, error) {
	content = strings.TrimSpace(content)
	if content == "" {
		return Decision{}, errors.New("empty answer")
	}
	var raw llmDecision
	if err := json.Unmarshal([]byte(content), &raw); err != nil {
		return Decision{}, fmt.Errorf("invalid JSON: %v", err)
	}
	action := Action(raw.Action)
	if !slices.Contains(Actions, action) {
		return Decision{}, fmt.Errorf("unknown action %q", raw.Action)
	}
	d := Decision{Action: action, Reasoning: llm.Clip(raw.Reasoning, llm.MaxReasoningLen), Source: SourceLLM}
	switch action {
	case ActionActivateNew, ActionSwitchExisting:
		return withPatient(d, raw.PatientID, in), nil
	case ActionUnchanged:
		d = in.keep(d.Reasoning)
		d.Source = SourceLLM
	}
	return d, nil
}

// withPatient settles an activation: the registry's view of the ID decides
// new versus existing, and an unusable ID gives ACTIVATE_NEW with no ID, as
// the rules do, which the session answers with the expected format.
func withPatient(d Decision, typed *string, in AnalyzerInput) Decision {
	d.Action = ActionActivateNew
	if typed == nil {
		return d
	}
	id, ok := NormalizeID(*typed, in.pattern())
	named := slices.Contains(in.Roster, id) || slices.Contains(findIDs(words.Texts(words.Split(in.Text)), shapeOf(in.pattern())), id)
	if !ok || !named {
		d.Reasoning += fmt.Sprintf(" (ID %q dropped: not valid, or neither in the roster nor in the message)", llm.Clip(*typed, MaxPatientIDLen))
		return d
	}
	d.PatientID, d.Action = id, in.actionFor(id)
	return d
}
