// Package agents holds ward's LLM backends (Ollama and offline) behind one
// interface, and the analyzer that decides which patient a turn is about.
package agents

import (
	"context"
	"encoding/json"
	"time"

	"github.com/ollama/ollama/api"
)

// Load options every caller sends unchanged: Ollama reloads the model when
// num_ctx changes, and unloads it when keep_alive runs out.
const (
	DefaultNumCtx    = 8192
	DefaultKeepAlive = 30 * time.Minute
)

// Request is one assembled LLM call. The session builds it; a backend sends
// it as is, so the offline backend sees the same prompt (and the trace the
// same numbers) as Ollama would.
type Request struct {
	Agent     string
	Messages  []api.Message   // assembled prompt, in order
	Sections  map[string]int  // token estimates per section, for trace/events
	Tools     api.Tools       // nil when the model cannot call tools
	Format    json.RawMessage // JSON schema for structured output, or nil
	Options   map[string]any  // num_ctx, num_predict, temperature...
	KeepAlive *api.Duration   // nil leaves Ollama's own default
	Scene     *Scene          // structured facts for the offline backend; ollama ignores it
}

// Response is a finished reply. Metrics are zero when nothing was measured
// (the offline backend), which the session reports as null.
type Response struct {
	Message    api.Message
	DoneReason string
	Metrics    api.Metrics
}

// Backend is one way of answering a Request. Chat streams the reply's text
// through onDelta (which may be nil) as it arrives, then returns it whole.
type Backend interface {
	Name() string // "ollama" | "offline"
	Model() string
	Chat(ctx context.Context, req Request, onDelta func(string)) (Response, error)
}

// Scene is what the offline backend plays from, since it cannot read the
// prompt the way a model does. The session fills it each turn from the
// registry and the engine; every field is a fact already decided elsewhere,
// so the offline reply never invents anything.
type Scene struct {
	// Agent names the voice of the reply ("patient", "narrator"...), so the
	// offline reply matches whoever the session asked to speak.
	Agent string
	// Persona is the active patient's character from the scenario, nil when
	// no patient is active.
	Persona *Persona
	// Disclosures are what the patient reveals this turn. The engine chose
	// them from the scenario because the trainee asked about their topic.
	Disclosures []Disclosure
	// Reactions are lines the engine wants voiced this turn: effects of
	// actions ("SpO2 is climbing on oxygen") and safety verdicts.
	Reactions []string
	// Team is what the non-Patient agents voice: measured vitals, orders,
	// the engine's safety verdicts and the AAR.
	Team TeamFacts
	// Entities is the delta the offline agent reports when the request asks
	// for structured output: facts the engine produced this turn, in the
	// shape a model would write them.
	Entities EntityDelta
}

// EntityDelta is an agent's entity update as AgentOutputSchema carries it.
type EntityDelta struct {
	Conversation map[string]any `json:"entities_to_update"`
	Derived      map[string]any `json:"derived_entities_to_update"`
}

// Persona is a scenario patient as the offline backend plays them.
type Persona struct {
	Name           string
	Age            int
	Sex            string
	ChiefComplaint string
	// Opening is said on first contact, when the prompt holds no earlier
	// assistant message.
	Opening string
	// Lines are generic in-character answers; one is chosen from the input
	// when nothing more specific applies.
	Lines []string
}

// Disclosure is one fact the patient tells, with the topic it answers.
type Disclosure struct {
	Topic string
	Text  string
}
