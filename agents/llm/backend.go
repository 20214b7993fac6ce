// Package llm is ward's vocabulary for talking to a model: a request, a reply, its metrics, the
// tools a model may call, and the Backend interface every way of answering implements. It knows
// no backend; each converts these types to its own wire format.
package llm

import (
	"context"
	"encoding/json"
	"time"

	"github.com/ward-sim/ward/memory"
)

// Load options every caller sends unchanged: Ollama reloads the model when num_ctx changes, and
// unloads it when keep_alive runs out.
const (
	DefaultNumCtx    = 8192
	DefaultKeepAlive = 30 * time.Minute
)

// Request is one assembled call. The session builds it and a backend sends it as it is, so the
// offline backend answers from the same prompt a model reads.
type Request struct {
	Agent    string           // who speaks: named in traces and in a backend's errors
	Messages []memory.Message // the assembled prompt, in order
	Tools    []Tool           // nil when the model cannot call tools
	Format   json.RawMessage  // JSON schema the reply must follow, or nil
	Options  Options
	// KeepAlive is how long the server keeps the model loaded after the reply; 0 unloads it at
	// once. Every ward call sends DefaultKeepAlive, so agents never reload the model between them.
	KeepAlive time.Duration
}

// Options are the generation settings a request carries.
type Options struct {
	NumCtx     int `json:"num_ctx"`
	NumPredict int `json:"num_predict"`
	// Temperature is nil for the model's default; the analyzer and router ask for 0.
	Temperature *float64 `json:"temperature,omitempty"`
	// Seed fixes the model's sampling, for runs that must repeat; 0 leaves it random.
	Seed int `json:"seed,omitempty"`
}

// Response is a finished reply. Metrics are zero when nothing was measured (the offline
// backend), which the session reports as null.
type Response struct {
	Message    memory.Message
	DoneReason string
	Metrics    Metrics
}

// Metrics are a model server's counters for one call.
type Metrics struct {
	PromptEvalCount    int           `json:"prompt_eval_count"`
	PromptEvalDuration time.Duration `json:"prompt_eval_duration"`
	EvalCount          int           `json:"eval_count"`
	EvalDuration       time.Duration `json:"eval_duration"`
	LoadDuration       time.Duration `json:"load_duration"`
	TotalDuration      time.Duration `json:"total_duration"`
}

// Tool is a function a model may call, described as the model reads it.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters,omitempty"` // a JSON Schema object
}

// Backend is one way of answering a Request. Chat streams the reply's text through onDelta
// (which may be nil) as it arrives, then returns it whole.
type Backend interface {
	Name() string // "ollama" | "offline"
	Model() string
	Chat(ctx context.Context, req Request, onDelta func(string)) (Response, error)
}

// InProcess is a backend that answers inside ward's own process from the request alone, in
// microseconds, waiting on nothing (the offline backend). A turn waits on any other backend for
// seconds or minutes, so it makes the trainee's line durable before calling it; a call to this
// one is no such window, and the line goes to disk with the answer, in the turn's one commit.
type InProcess interface {
	Backend
	InProcess()
}

// AnswersInProcess reports whether b is an InProcess backend.
func AnswersInProcess(b Backend) bool {
	_, ok := b.(InProcess)
	return ok
}

// Zero is a temperature of 0, for requests that want the model's most likely answer.
func Zero() *float64 { z := 0.0; return &z }
