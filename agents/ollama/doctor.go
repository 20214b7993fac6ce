package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"

	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
)

// Check is one line of `ward doctor`: what was checked, whether it is fine, what was found, and
// what to change when it is not.
type Check struct {
	Name   string
	OK     bool
	Detail string
	Fix    string
	// Advice marks a check ward works without (it only runs slower): its failure is a suggestion.
	Advice bool
}

// agentCount is how many of ward's agents keep a prompt of their own in the server's cache at
// once (Patient, Monitor, Pharmacist, Preceptor, Orchestrator), and so the OLLAMA_NUM_PARALLEL
// that lets none evict another.
const agentCount = 5

// doctorSchema is a small output contract, to check that the model honours `format`.
var doctorSchema = llm.Schema(map[string]any{
	"type":                 "object",
	"properties":           map[string]any{"reply": map[string]any{"type": "string", "maxLength": 40}},
	"required":             []string{"reply"},
	"additionalProperties": false,
})

// Doctor checks the setup ward will use, in order, stopping where nothing further can be
// checked: the server and its version, the model, what it can do, its context length against
// numCtx, OLLAMA_NUM_PARALLEL, and a timed first call and a repeated one (whose prompt the
// server's cache should already hold).
func (o *Backend) Doctor(ctx context.Context, numCtx int) []Check {
	version, err := o.client.Version(ctx)
	if err != nil {
		err = ollamaError(err, o.model)
		detail := err.Error()
		var unreachable *llm.UnreachableError
		if errors.As(err, &unreachable) {
			detail = unreachable.Problem() // the fix below says what to do
		}
		return []Check{{Name: "server", Detail: detail, Fix: "start it with `ollama serve`, or set OLLAMA_HOST"}}
	}
	checks := []Check{{Name: "server", OK: true, Detail: "Ollama " + version}}
	show, err := o.client.Show(ctx, &api.ShowRequest{Model: o.model})
	if err != nil {
		return append(checks, Check{Name: "model", Detail: ollamaError(err, o.model).Error(), Fix: "ollama pull " + o.model})
	}
	checks = append(checks, Check{Name: "model", OK: true, Detail: modelDetail(o.model, show)})
	checks = append(checks, capabilityChecks(show)...)
	checks = append(checks, contextCheck(show, numCtx), parallelCheck())
	return append(checks, o.timedCalls(ctx, numCtx)...)
}

func modelDetail(name string, show *api.ShowResponse) string {
	d := show.Details
	parts := []string{name}
	for _, p := range []string{d.Family, d.ParameterSize, d.QuantizationLevel} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ", ")
}

func capabilityChecks(show *api.ShowResponse) []Check {
	caps := show.Capabilities
	chat := len(caps) == 0 || slices.Contains(caps, model.CapabilityCompletion)
	tools := supportsTools(show)
	out := []Check{{Name: "chat", OK: chat, Detail: fmt.Sprintf("capabilities %v", caps), Fix: "choose a chat model with --model"}}
	toolCheck := Check{Name: "tools", OK: true, Detail: "the model can call tools: agents measure vitals through check_vitals"}
	if !tools {
		toolCheck.Detail = "the model cannot call tools: the engine's readings travel in the prompt instead (ward works either way)"
	}
	return append(out, toolCheck)
}

// contextCheck compares the model's trained context with the num_ctx ward sends: a larger
// num_ctx than the model knows does not help it read further.
func contextCheck(show *api.ShowResponse, numCtx int) Check {
	trained := 0
	for k, v := range show.ModelInfo {
		if strings.HasSuffix(k, ".context_length") {
			if n, ok := v.(float64); ok {
				trained = int(n)
			}
		}
	}
	c := Check{Name: "context", OK: true, Advice: true, Detail: fmt.Sprintf("ward sends num_ctx %d", numCtx)}
	if trained > 0 {
		c.Detail += fmt.Sprintf("; the model was trained on %d", trained)
		if trained < numCtx {
			c.OK, c.Fix = false, "run ward with --num-ctx "+strconv.Itoa(trained)
		}
	}
	return c
}

// parallelCheck reads OLLAMA_NUM_PARALLEL and OLLAMA_MULTIUSER_CACHE as this shell sets them. The
// server takes them from its own environment, so they must be set where `ollama serve` starts.
// Slots alone do not keep each agent's prompt: without the multi-user cache the server gives
// every request the slot whose cache shares the longest start with it, and since ward's agents
// share their opening instructions, that is the same slot every time.
func parallelCheck() Check {
	v := os.Getenv("OLLAMA_NUM_PARALLEL")
	n, err := strconv.Atoi(v)
	multi, _ := strconv.ParseBool(os.Getenv("OLLAMA_MULTIUSER_CACHE"))
	c := Check{Name: "parallel", OK: err == nil && n >= agentCount && multi, Advice: true,
		Fix: fmt.Sprintf("start the server with OLLAMA_NUM_PARALLEL=%d OLLAMA_MULTIUSER_CACHE=1, so each agent keeps its own prompt cached", agentCount)}
	switch {
	case v == "":
		c.Detail = "OLLAMA_NUM_PARALLEL is not set here (the server picks 1 to 4 slots): one agent's call can evict another's cached prompt"
	case err != nil:
		c.Detail = fmt.Sprintf("OLLAMA_NUM_PARALLEL=%q is not a number", v)
	case !multi:
		c.Detail = fmt.Sprintf("OLLAMA_NUM_PARALLEL=%d here, without OLLAMA_MULTIUSER_CACHE=1: every agent's call lands in the same slot", n)
	default:
		c.Detail = fmt.Sprintf("OLLAMA_NUM_PARALLEL=%d and the multi-user cache here (check that `ollama serve` runs with them)", n)
	}
	return c
}

// timedCalls sends one prompt twice: the first call's speed is what a first turn costs, the
// second's prompt evaluation shows whether the server's cache kept the prompt.
func (o *Backend) timedCalls(ctx context.Context, numCtx int) []Check {
	req := llm.Request{
		Agent: "doctor", Format: doctorSchema, KeepAlive: llm.DefaultKeepAlive,
		Messages: []memory.Message{
			{Role: memory.RoleSystem, Content: strings.Repeat("You are a patient on a hospital ward, answering a nurse in a few words. ", 20)},
			{Role: memory.RoleUser, Content: "How are you feeling?"},
		},
		Options: llm.Options{NumCtx: numCtx, NumPredict: 24, Temperature: llm.Zero(), Seed: 1},
	}
	var checks []Check
	var first llm.Metrics
	for i, name := range []string{"first call", "cached call"} {
		start := time.Now()
		resp, err := o.Chat(ctx, req, nil)
		elapsed := time.Since(start)
		if err != nil {
			return append(checks, Check{Name: name, Detail: err.Error(), Fix: "see the server's log (`ollama serve` output)"})
		}
		m := resp.Metrics
		c := Check{Name: name, OK: true, Detail: fmt.Sprintf("%s in all: load %s, prompt %d tokens in %s, reply %d tokens at %s",
			elapsed.Round(time.Millisecond), m.LoadDuration.Round(time.Millisecond), m.PromptEvalCount,
			m.PromptEvalDuration.Round(time.Millisecond), m.EvalCount, rate(m.EvalCount, m.EvalDuration))}
		if i == 0 {
			first = m
			if !followsJSON(resp.Message.Content, resp.DoneReason == "length") {
				c.OK, c.Fix = false, "the reply ignored the JSON format ward asks for: choose a model that supports structured output"
			}
		} else if c.Advice = true; perToken(m) >= perToken(first)/2 {
			c.OK, c.Fix = false, "the repeated prompt was evaluated again: the server's cache did not keep it (another client, or too few slots)"
		}
		checks = append(checks, c)
	}
	return checks
}

// followsJSON reports whether a reply kept to JSON: a whole value, or, when the output budget
// cut it short, the start of one.
func followsJSON(reply string, cut bool) bool {
	text := strings.TrimSpace(reply)
	if !cut {
		return json.Valid([]byte(text))
	}
	dec := json.NewDecoder(strings.NewReader(text))
	for {
		_, err := dec.Token()
		var syntax *json.SyntaxError
		switch {
		case err == nil:
		case errors.As(err, &syntax):
			return false
		default: // the end of what came, inside the value or after it
			return text != ""
		}
	}
}

func rate(tokens int, d time.Duration) string {
	if tokens == 0 || d == 0 {
		return "an unmeasured rate"
	}
	return fmt.Sprintf("%.0f tokens/s", float64(tokens)/d.Seconds())
}

func perToken(m llm.Metrics) time.Duration {
	if m.PromptEvalCount == 0 {
		return 0
	}
	return m.PromptEvalDuration / time.Duration(m.PromptEvalCount)
}
