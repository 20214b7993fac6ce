package session

// Events are what a turn reports, in order. `ward run` writes each one as a JSON line and the TUI
// receives them as messages, so the field names are a public contract: scripts and tests read them.

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/ward-sim/ward/session/aar"
	"github.com/ward-sim/ward/session/physio"
)

// Timing is the per-turn cost of the context machinery, in milliseconds.
type Timing struct {
	AnalyzerMS float64 `json:"analyzer_ms"`
	StorageMS  float64 `json:"storage_ms"`
	ServiceMS  float64 `json:"service_ms"`
}

// Event is any value that a turn reports; Kind names it in the JSON "event" field.
type Event interface{ Kind() string }

// DecisionEvent reports how the patient context was decided for the turn.
type DecisionEvent struct {
	Input          string `json:"input"`
	Decision       string `json:"decision"`
	AnalyzerAction string `json:"analyzer_action"`
	PatientID      string `json:"patient_id,omitempty"`
	Source         string `json:"source"`
	Reasoning      string `json:"reasoning"`
	Timing         Timing `json:"timing"`
}

// MessageEvent is one finished message shown to the user.
type MessageEvent struct {
	PatientID string `json:"patient_id,omitempty"`
	Role      string `json:"role"`
	Agent     string `json:"agent,omitempty"`
	Text      string `json:"text"`
	// Sources are the protocol passages the text cites: "[1] Title › Section — Source".
	Sources []string `json:"sources,omitempty"`
	// At is when the message was stored, which identifies it in the history; zero for what ward
	// shows without storing (help, notices).
	At time.Time `json:"-"`
}

// DeltaEvent carries streamed tokens of a message still being written. `ward run` does not print
// it: its finished message follows as a MessageEvent.
type DeltaEvent struct {
	PatientID string `json:"patient_id,omitempty"`
	Agent     string `json:"agent"`
	Text      string `json:"text"`
}

// CodeNotSaved is the ErrorEvent code of a write the store refused (a full disk, say): what the
// event names was not saved.
const CodeNotSaved = "NOT_SAVED"

// ErrorEvent is a problem the user should see, with a stable code.
type ErrorEvent struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// TurnEndEvent closes every input line, slash commands included.
type TurnEndEvent struct {
	Input         string   `json:"input"`
	Decision      string   `json:"decision,omitempty"`
	ActivePatient *string  `json:"active_patient"`
	Roster        []string `json:"roster"`
	Footer        string   `json:"footer"`
	Timing        Timing   `json:"timing"`
}

func (DecisionEvent) Kind() string { return "decision" }
func (MessageEvent) Kind() string  { return "message" }
func (DeltaEvent) Kind() string    { return "delta" }
func (ErrorEvent) Kind() string    { return "error" }
func (TurnEndEvent) Kind() string  { return "turn_end" }

// EncodeJSON renders an event as one JSON object whose first field is "event": its kind.
func EncodeJSON(e Event) ([]byte, error) {
	if sim, ok := e.(SimEvent); ok {
		return json.Marshal(sim.Event) // the engine names its own events
	}
	body, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	if len(body) < 2 || body[0] != '{' {
		return nil, fmt.Errorf("event %s is not a JSON object", e.Kind())
	}
	head := fmt.Sprintf(`{"event":%q`, e.Kind())
	if len(body) == 2 {
		return []byte(head + "}"), nil
	}
	return append([]byte(head+","), body[1:]...), nil
}

// SimEvent is an engine event (vitals, order, action, safety, state, critical_error, alarm,
// escalation); its JSON is the engine's own flat shape. It points into the turn's own copy of the
// engine's events (emitSim), which nothing changes: a /wait tells hundreds, each told without a
// copy of its own.
type SimEvent struct{ *physio.Event }

// LLMCallEvent describes one backend call: what was sent, by section, and what it cost.
type LLMCallEvent struct {
	PatientID       string         `json:"patient_id,omitempty"`
	Agent           string         `json:"agent"`
	Backend         string         `json:"backend"`
	Model           string         `json:"model,omitempty"`
	NumPredict      int            `json:"num_predict"`
	WindowMessages  int            `json:"window_messages"`
	PromptTokensEst int            `json:"prompt_tokens_est"`
	Sections        map[string]int `json:"sections"`
	RecallRules     []string       `json:"recall_rules"`
	Shrunk          []string       `json:"shrunk,omitempty"`
	Retry           string         `json:"retry,omitempty"`
	PromptEvalCount *int           `json:"prompt_eval_count"`
	PromptEvalMS    *float64       `json:"prompt_eval_ms"`
	EvalCount       *int           `json:"eval_count"`
	EvalMS          *float64       `json:"eval_ms"`
	LatencyMS       float64        `json:"latency_ms"`
	Error           string         `json:"error,omitempty"`
}

// AAREvent is an After Action Review of one patient.
type AAREvent struct{ aar.Report }

// RouteEvent says which agent speaks next and why.
type RouteEvent struct {
	Agent     string `json:"agent"`
	Source    string `json:"source"`
	Reasoning string `json:"reasoning,omitempty"`
}

// GateEvent reports the confirmation gate: waiting for the trainee, or lifted.
type GateEvent struct {
	State string `json:"state"`
}

// NoteEvent is a visible note from the turn's guards (message cap, handoff loop).
type NoteEvent struct {
	PatientID string `json:"patient_id,omitempty"`
	Stop      string `json:"stop"`
	Text      string `json:"text"`
}

func (e SimEvent) Kind() string    { return e.Event.Kind }
func (LLMCallEvent) Kind() string  { return "llm_call" }
func (RouteEvent) Kind() string    { return "route" }
func (AAREvent) Kind() string      { return "aar" }
func (GateEvent) Kind() string     { return "gate" }
func (NoteEvent) Kind() string     { return "note" }
func (ProgressEvent) Kind() string { return "progress" }

// ProgressEvent reports slow work the turn waits on, such as building the protocol cards' index
// on first use: Done of Total in Stage.
type ProgressEvent struct {
	Text  string `json:"text"`
	Stage string `json:"stage"`
	Done  int    `json:"done"`
	Total int    `json:"total"`
}

// ConfirmEvent asks the trainee before the turn does something that cannot be undone, such as
// admitting a new patient named in free text when the shift already has patients. Line is the
// exact input that does it if the trainee says yes; the turn itself changes nothing.
type ConfirmEvent struct {
	Question string `json:"question"`
	Line     string `json:"line"`
}

func (ConfirmEvent) Kind() string { return "confirm" }

// PruneEvent says what a pruning rule took out of what the patient's prompts may carry: memory
// items or conversation messages, each as a prompt showed it, and what that saves a prompt that
// would have carried them, in tokens by ward's estimate.
type PruneEvent struct {
	PatientID   string   `json:"patient_id"`
	Rule        string   `json:"rule"`
	Pruned      []string `json:"pruned"`
	TokensSaved int      `json:"tokens_saved"`
}

func (PruneEvent) Kind() string { return "pruning" }
