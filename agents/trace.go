package agents

import (
	"encoding/json"
	"errors"
	"os"
	"sync"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/ward-sim/ward/memory"
)

// TraceRecord is one LLM call as --trace writes it: everything sent, what
// came back, and what it cost. Durations are nanoseconds, as in Ollama's API.
type TraceRecord struct {
	At          time.Time           `json:"at"`
	Agent       string              `json:"agent"`
	PatientID   string              `json:"patient_id,omitempty"` // set by the session
	Backend     string              `json:"backend"`
	Model       string              `json:"model"`
	Options     map[string]any      `json:"options"`
	KeepAlive   string              `json:"keep_alive,omitempty"`
	Format      json.RawMessage     `json:"format,omitempty"`
	Tools       []string            `json:"tools,omitempty"` // names of the tools offered
	Messages    []api.Message       `json:"messages"`
	Sections    map[string]int      `json:"sections,omitempty"`
	RecallRules []string            `json:"recall_rules,omitempty"` // set by the session
	Merge       *memory.MergeResult `json:"merge,omitempty"`        // the reply's entity merge, set by the session
	Reply       api.Message         `json:"reply"`
	DoneReason  string              `json:"done_reason,omitempty"`
	Error       string              `json:"error,omitempty"`
	ElapsedMS   float64             `json:"elapsed_ms"`
	Metrics     TraceMetrics        `json:"metrics"`
}

// TraceMetrics are Ollama's timings. All zero means nothing was measured
// (the offline backend, or a failed call).
type TraceMetrics struct {
	PromptEvalCount    int           `json:"prompt_eval_count"`
	PromptEvalDuration time.Duration `json:"prompt_eval_duration"`
	EvalCount          int           `json:"eval_count"`
	EvalDuration       time.Duration `json:"eval_duration"`
	LoadDuration       time.Duration `json:"load_duration"`
	TotalDuration      time.Duration `json:"total_duration"`
}

// NewTraceRecord describes one finished call. The caller adds what only it
// knows (PatientID, RecallRules).
func NewTraceRecord(b Backend, req Request, resp Response, err error, elapsed time.Duration) TraceRecord {
	rec := TraceRecord{
		At:         time.Now().UTC(),
		Agent:      req.Agent,
		Backend:    b.Name(),
		Model:      b.Model(),
		Options:    req.Options,
		Format:     req.Format,
		Messages:   req.Messages,
		Sections:   req.Sections,
		Reply:      resp.Message,
		DoneReason: resp.DoneReason,
		ElapsedMS:  float64(elapsed.Microseconds()) / 1000,
		Metrics: TraceMetrics{
			PromptEvalCount:    resp.Metrics.PromptEvalCount,
			PromptEvalDuration: resp.Metrics.PromptEvalDuration,
			EvalCount:          resp.Metrics.EvalCount,
			EvalDuration:       resp.Metrics.EvalDuration,
			LoadDuration:       resp.Metrics.LoadDuration,
			TotalDuration:      resp.Metrics.TotalDuration,
		},
	}
	if req.KeepAlive != nil {
		rec.KeepAlive = req.KeepAlive.String()
	}
	for _, t := range req.Tools {
		rec.Tools = append(rec.Tools, t.Function.Name)
	}
	if err != nil {
		rec.Error = err.Error()
		var empty *EmptyError
		if errors.As(err, &empty) {
			rec.Error += " (" + empty.Reason + ")" // the user sees one message; the trace says which emptiness
		}
	}
	return rec
}

// TraceWriter appends records to a file as JSON lines. It is safe for
// concurrent use; a nil *TraceWriter writes nothing, so tracing can stay
// off without checks at every call.
type TraceWriter struct {
	mu   sync.Mutex
	file *os.File
}

// OpenTrace opens path for appending, creating it if needed. The file holds
// whole prompts, so only the user may read it.
func OpenTrace(path string) (*TraceWriter, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	return &TraceWriter{file: f}, nil
}

// Write appends one record as one line, in a single write so that lines
// never interleave.
func (w *TraceWriter) Write(rec TraceRecord) error {
	if w == nil {
		return nil
	}
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	_, err = w.file.Write(append(line, '\n'))
	return err
}

func (w *TraceWriter) Close() error {
	if w == nil {
		return nil
	}
	return w.file.Close()
}
