package memory

import (
	"encoding/json"
	"math"
)

// DefaultCharsPerToken is a fair start for English prose with llama-family tokenizers; Calibrate
// corrects it from what Ollama reports.
const DefaultCharsPerToken = 4.0

const (
	// The ratio may only move inside this range: one odd reply (a prompt full of digits, a
	// cached model reporting strange counts) must not make the budget absurd.
	minCharsPerToken = 2.0
	maxCharsPerToken = 6.0
	// calibrationWeight is how far one observation moves the ratio; a few calls converge.
	calibrationWeight = 0.3
	// messageOverhead counts the role header and end-of-turn markers a chat template adds.
	messageOverhead = 4
)

// Estimator turns text into a token estimate. The zero value uses DefaultCharsPerToken; the lead
// persists the calibrated value with the session.
type Estimator struct {
	CharsPerToken float64 `json:"chars_per_token"`
}

func (e *Estimator) ratio() float64 {
	if e.CharsPerToken == 0 {
		return DefaultCharsPerToken
	}
	return e.CharsPerToken
}

// Tokens estimates the tokens of one piece of text.
func (e *Estimator) Tokens(s string) int { return e.TokensOfLength(len(s)) }

// TokensOfLength estimates the tokens of a text of n bytes, for text never written out whole.
func (e *Estimator) TokensOfLength(n int) int {
	return int(math.Ceil(float64(n) / e.ratio()))
}

// Messages estimates the tokens of chat messages, including template overhead and tool calls.
func (e *Estimator) Messages(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += messageOverhead + e.Tokens(m.Content)
		for _, c := range m.ToolCalls {
			args, _ := json.Marshal(c.Args)
			n += messageOverhead + e.Tokens(c.Name) + e.Tokens(string(args))
		}
	}
	return n
}

// Calibrate moves the ratio toward what Ollama measured: estimated is what this estimator said
// for the prompt, actual is the response's prompt_eval_count. The move is smoothed and bounded.
// Non-positive inputs (no count reported, offline backend) are ignored.
func (e *Estimator) Calibrate(estimated, actual int) {
	if estimated <= 0 || actual <= 0 {
		return
	}
	observed := e.ratio() * float64(estimated) / float64(actual)
	observed = min(max(observed, minCharsPerToken), maxCharsPerToken)
	e.CharsPerToken = e.ratio() + calibrationWeight*(observed-e.ratio())
}

// Sections are the token estimates of one prompt's parts, in prompt order.
type Sections struct {
	Static  int `json:"static"`
	Window  int `json:"window"`
	Dynamic int `json:"dynamic"` // dynamic context other than memory
	Memory  int `json:"memory"`
	User    int `json:"user"`
}

// Total is the whole prompt's estimate.
func (s Sections) Total() int { return s.Static + s.Window + s.Dynamic + s.Memory + s.User }
