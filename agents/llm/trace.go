package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"time"

	"github.com/ward-sim/ward/memory"
)

// A trace is JSON lines, one run of ward after another. Each run opens with a header that says
// how to rebuild the session; then come the inputs the session handled and the calls it made, in
// the order they happened, what the protocol cards gave a turn when an embedding model ranked
// them, and what pruning rules took out of the prompts. A replay hands the session the same
// inputs, with the same clock, and answers each call and each such retrieval from the trace.

// TraceFormat is the version of the trace's lines. A replay refuses a trace of another format.
const TraceFormat = 1

// The kinds of trace line.
const (
	KindHeader    = "header"
	KindInput     = "input"
	KindCall      = "call"
	KindRetrieval = "retrieval"
	KindPruning   = "pruning"
)

// TraceHeader opens one run: what a replay needs to rebuild its session.
type TraceHeader struct {
	Kind     string `json:"kind"`
	Format   int    `json:"format"`
	Version  string `json:"version"`            // ward's module version, from the build info (a replay only notes another)
	Revision string `json:"revision,omitempty"` // the commit ward was built from, when the build knows it
	// SessionID and StartedAt are the shift's; a new shift's ID is made from StartedAt.
	SessionID string    `json:"session_id"`
	StartedAt time.Time `json:"started_at"`
	Resumed   bool      `json:"resumed"` // the run continued a shift instead of starting one
	Shift     string    `json:"shift,omitempty"`
	Seed      int64     `json:"seed"` // the physiology's noise
	Backend   string    `json:"backend"`
	Model     string    `json:"model,omitempty"`
	Tools     bool      `json:"tools"` // the model could call tools
	// NumCtx, OutputBudget and KeepAlive are the load options every call sends.
	NumCtx           int           `json:"num_ctx"`
	OutputBudget     int           `json:"output_budget"`
	KeepAlive        string        `json:"keep_alive"`
	Window           memory.Window `json:"window"`
	PatientIDPattern string        `json:"patient_id_pattern"`
	// ConfirmAdmissions: a new patient named in free text waited for a yes (the TUI asks).
	ConfirmAdmissions bool `json:"confirm_admissions"`
	// ScenariosHash and AgentsHash are SHA-256 digests of the scenario library and the agent
	// definitions the run used: a replay with other definitions could not send the same prompts.
	ScenariosHash string `json:"scenarios_sha256"`
	AgentsHash    string `json:"agents_sha256"`
	// KnowledgeHash is the digest of the protocol cards the team answered from ("" for none), and
	// EmbedModel the embedding model that ranked them beside full-text search.
	KnowledgeHash string `json:"knowledge_sha256,omitempty"`
	EmbedModel    string `json:"embed_model,omitempty"`
	// Trainee is whose shift it was, with what ward kept of them when it began: their saved
	// preferences (JSON) and the findings that recurred across their earlier shifts, which the
	// Preceptor is told. A replay starts from an empty store, so it takes them from here.
	Trainee   string          `json:"trainee,omitempty"`
	Prefs     json.RawMessage `json:"prefs,omitempty"`
	Recurring []string        `json:"recurring,omitempty"`
}

// What a trace input does to the session.
const (
	InputTurn    = "turn"    // Text is a line the trainee typed
	InputRetry   = "retry"   // answer the last line again
	InputSwitch  = "switch"  // Text is the patient the screen switched to
	InputRestore = "restore" // the screen opened on the registry's active patient
	InputTick    = "tick"    // Wall passed on the screen's real-time clock
	InputInject  = "inject"  // Text is the instructor's injection, as JSON (session.Injection)
	InputEnd     = "end"     // the instructor ended the shift for debrief
)

// TraceInput is one thing the session was asked to do.
type TraceInput struct {
	Kind string `json:"kind"`
	Op   string `json:"op"`
	// At is the wall time the session took at the start of the input: the time its prompts carry.
	At   time.Time     `json:"at"`
	Text string        `json:"text,omitempty"`
	Wall time.Duration `json:"wall_ns,omitempty"`
}

// TraceRecord is one call: everything sent, what came back, and what it cost. Durations are
// nanoseconds.
type TraceRecord struct {
	Kind string `json:"kind"`
	// Turn counts the run's inputs up to this call, clock ticks aside; Seq counts its calls. The
	// writer numbers both.
	Turn      int       `json:"turn"`
	Seq       int       `json:"seq"`
	At        time.Time `json:"at"` // wall time, for people: a replay ignores it
	Agent     string    `json:"agent"`
	PatientID string    `json:"patient_id,omitempty"` // set by the session
	Backend   string    `json:"backend"`
	Model     string    `json:"model"`
	// Messages, Tools, Format, Options and KeepAlive are the whole request.
	Messages  []memory.Message `json:"messages"`
	Tools     []Tool           `json:"tools,omitempty"`
	Format    json.RawMessage  `json:"format,omitempty"`
	Options   Options          `json:"options"`
	KeepAlive string           `json:"keep_alive,omitempty"`
	// Sections are the prompt's parts as the session built them: estimated tokens and text.
	Sections     map[string]int      `json:"sections,omitempty"`
	SectionTexts map[string]string   `json:"section_texts,omitempty"`
	WindowLen    int                 `json:"window_len,omitempty"`   // messages of the window, after the static one
	RecallRules  []string            `json:"recall_rules,omitempty"` // set by the session
	Shrunk       []string            `json:"shrunk,omitempty"`       // what the budget cut to fit num_ctx
	Retry        string              `json:"retry,omitempty"`        // why the call repeated an earlier one
	Merge        *memory.MergeResult `json:"merge,omitempty"`        // the reply's entity merge, set by the session
	Held         string              `json:"held,omitempty"`         // how the session held the reply to its record, "" when it stood
	// Chunks are the reply's text as it streamed; Reply is the whole message, tool calls included.
	Chunks     []string       `json:"chunks,omitempty"`
	Reply      memory.Message `json:"reply"`
	DoneReason string         `json:"done_reason,omitempty"`
	// Error is what the caller saw; ErrorKind and ErrorDetail let a replay fail the same way.
	Error       string  `json:"error,omitempty"`
	ErrorKind   string  `json:"error_kind,omitempty"`
	ErrorDetail string  `json:"error_detail,omitempty"`
	ElapsedMS   float64 `json:"elapsed_ms"`          // at the model: a wait in the class's queue is not counted
	QueuedMS    float64 `json:"queued_ms,omitempty"` // how long the call waited in the class's queue (Queue)
	// Metrics all zero means nothing was measured (the offline backend, or a failed call).
	Metrics Metrics `json:"metrics"`
}

// TraceRetrieval is what the protocol cards gave a turn when an embedding model ranked them. A
// replay asks no model, so it answers the turn's retrieval from here.
type TraceRetrieval struct {
	Kind      string          `json:"kind"`
	Turn      int             `json:"turn"`
	Query     string          `json:"query"`
	Retrieval json.RawMessage `json:"retrieval,omitempty"` // as the session used it
	Error     string          `json:"error,omitempty"`
}

// TracePruning is what a pruning rule took out of what a patient's prompts may carry during a
// turn: memory items or conversation messages, as a prompt showed them, and the tokens that saves
// a prompt by the session's estimate. A replay makes its own; nothing is answered from these.
type TracePruning struct {
	Kind        string   `json:"kind"`
	Turn        int      `json:"turn"`
	PatientID   string   `json:"patient_id"`
	Rule        string   `json:"rule"`
	Pruned      []string `json:"pruned"`
	TokensSaved int      `json:"tokens_saved"`
}

// Kinds of error a call can end with, as a replay rebuilds them.
const (
	ErrorEmpty         = "empty"
	ErrorUnreachable   = "unreachable"
	ErrorModelNotFound = "model_not_found"
	ErrorCanceled      = "canceled"
	ErrorDeadline      = "deadline"
	ErrorOther         = "other"
)

// NewTraceRecord describes one finished call. The caller adds what only it knows (PatientID,
// the sections, RecallRules).
func NewTraceRecord(b Backend, req Request, resp Response, err error, elapsed time.Duration) TraceRecord {
	rec := TraceRecord{
		Kind:       KindCall,
		At:         time.Now().UTC(),
		Agent:      req.Agent,
		Backend:    b.Name(),
		Model:      b.Model(),
		Messages:   req.Messages,
		Tools:      req.Tools,
		Format:     req.Format,
		Options:    req.Options,
		KeepAlive:  req.KeepAlive.String(),
		Reply:      resp.Message,
		DoneReason: resp.DoneReason,
		ElapsedMS:  float64(elapsed.Microseconds()) / 1000,
		Metrics:    resp.Metrics,
	}
	if err != nil {
		rec.Error = err.Error()
		rec.ErrorKind, rec.ErrorDetail = classify(err)
		if rec.ErrorKind == ErrorEmpty {
			rec.Error += " (" + rec.ErrorDetail + ")" // the user sees one message; the trace says which emptiness
		}
	}
	return rec
}

func classify(err error) (kind, detail string) {
	var empty *EmptyError
	var unreachable *UnreachableError
	var notFound *ModelNotFoundError
	switch {
	case errors.As(err, &empty):
		return ErrorEmpty, empty.Reason
	case errors.As(err, &unreachable):
		return ErrorUnreachable, unreachable.URL
	case errors.As(err, &notFound):
		return ErrorModelNotFound, notFound.Model
	case errors.Is(err, context.Canceled):
		return ErrorCanceled, ""
	case errors.Is(err, context.DeadlineExceeded):
		return ErrorDeadline, ""
	}
	return ErrorOther, ""
}

// Response is the reply the call received, as its caller saw it.
func (rec TraceRecord) Response() Response {
	return Response{Message: rec.Reply, DoneReason: rec.DoneReason, Metrics: rec.Metrics}
}

// Err is the error the call ended with, of the same kind, so a replay takes the same path
// (an empty answer is retried, an unreachable server is reported as one); nil for a reply.
func (rec TraceRecord) Err() error {
	switch rec.ErrorKind {
	case "":
		return nil
	case ErrorEmpty:
		return &EmptyError{Reason: rec.ErrorDetail}
	case ErrorUnreachable:
		return &UnreachableError{URL: rec.ErrorDetail}
	case ErrorModelNotFound:
		return &ModelNotFoundError{Model: rec.ErrorDetail}
	case ErrorCanceled:
		return context.Canceled
	case ErrorDeadline:
		return context.DeadlineExceeded
	}
	return errors.New(rec.Error)
}

// sentRequest is a request as a trace compares it: every field a backend sends.
type sentRequest struct {
	Messages  []memory.Message `json:"messages"`
	Tools     []Tool           `json:"tools,omitempty"`
	Format    json.RawMessage  `json:"format,omitempty"`
	Options   Options          `json:"options"`
	KeepAlive string           `json:"keep_alive"`
}

// RequestJSON is req as a trace records it, for a byte-for-byte comparison with Sent.
func RequestJSON(req Request) []byte {
	return mustMarshal(sentRequest{req.Messages, req.Tools, req.Format, req.Options, req.KeepAlive.String()})
}

// Sent is the recorded request, encoded as RequestJSON encodes a live one.
func (rec TraceRecord) Sent() []byte {
	return mustMarshal(sentRequest{rec.Messages, rec.Tools, rec.Format, rec.Options, rec.KeepAlive})
}

// mustMarshal encodes values built from strings, numbers, maps of JSON values and valid raw
// JSON, which always encode.
func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("llm: trace: " + err.Error())
	}
	return b
}

// Version is ward's module version and the commit it was built from, as the build recorded
// them; "(devel)" and "" for a build from a checkout without version control information.
func Version() (version, revision string) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)", ""
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" {
			revision = s.Value
		}
	}
	version = info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	return version, revision
}

// TraceRun is one run of a trace: its header, then its inputs, its calls, its retrievals and
// its prunings, each in order.
type TraceRun struct {
	Header     TraceHeader
	Inputs     []TraceInput
	Calls      []TraceRecord
	Retrievals []TraceRetrieval
	Prunings   []TracePruning
}

// ReadTrace decodes a trace, run by run. An error names the line it stopped at.
func ReadTrace(r io.Reader) ([]TraceRun, error) {
	var runs []TraceRun
	dec := json.NewDecoder(r)
	for line := 1; ; line++ {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return runs, nil
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return runs, &CutError{Line: line}
		}
		if err == nil {
			runs, err = addLine(runs, raw)
		}
		if err != nil {
			return runs, fmt.Errorf("trace line %d: %w", line, err)
		}
	}
}

// CutError is a trace whose last line is torn: its writing stopped part way (a full disk, a
// killed ward). ReadTrace returns the runs read before it, every record in them whole.
type CutError struct{ Line int }

func (e *CutError) Error() string {
	return fmt.Sprintf("trace line %d is cut short: the trace stops there", e.Line)
}

func addLine(runs []TraceRun, raw json.RawMessage) ([]TraceRun, error) {
	var kind struct{ Kind string }
	if err := json.Unmarshal(raw, &kind); err != nil {
		return runs, err
	}
	if kind.Kind == KindHeader {
		runs = append(runs, TraceRun{})
	} else if len(runs) == 0 {
		return runs, errors.New("the trace does not open with a header line: it was written by an older ward, which traced calls only")
	}
	run := &runs[len(runs)-1]
	switch kind.Kind {
	case KindHeader:
		return runs, json.Unmarshal(raw, &run.Header)
	case KindInput:
		var in TraceInput
		err := json.Unmarshal(raw, &in)
		run.Inputs = append(run.Inputs, in)
		return runs, err
	case KindCall:
		var rec TraceRecord
		err := json.Unmarshal(raw, &rec)
		run.Calls = append(run.Calls, rec)
		return runs, err
	case KindRetrieval:
		var r TraceRetrieval
		err := json.Unmarshal(raw, &r)
		run.Retrievals = append(run.Retrievals, r)
		return runs, err
	case KindPruning:
		var p TracePruning
		err := json.Unmarshal(raw, &p)
		run.Prunings = append(run.Prunings, p)
		return runs, err
	}
	return runs, fmt.Errorf("unknown kind %q", kind.Kind)
}
