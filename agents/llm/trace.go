package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/ward-sim/ward/memory"
)

// TraceRecord is one call as --trace writes it: everything sent, what came back, and what it
// cost. Durations are nanoseconds.
type TraceRecord struct {
	At          time.Time           `json:"at"`
	Agent       string              `json:"agent"`
	PatientID   string              `json:"patient_id,omitempty"` // set by the session
	Backend     string              `json:"backend"`
	Model       string              `json:"model"`
	Options     Options             `json:"options"`
	KeepAlive   string              `json:"keep_alive,omitempty"`
	Format      json.RawMessage     `json:"format,omitempty"`
	Tools       []string            `json:"tools,omitempty"` // names of the tools offered
	Messages    []memory.Message    `json:"messages"`
	Sections    map[string]int      `json:"sections,omitempty"`     // set by the session
	RecallRules []string            `json:"recall_rules,omitempty"` // set by the session
	Merge       *memory.MergeResult `json:"merge,omitempty"`        // the reply's entity merge, set by the session
	Reply       memory.Message      `json:"reply"`
	DoneReason  string              `json:"done_reason,omitempty"`
	Error       string              `json:"error,omitempty"`
	ElapsedMS   float64             `json:"elapsed_ms"`
	// Metrics all zero means nothing was measured (the offline backend, or a failed call).
	Metrics Metrics `json:"metrics"`
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
		Reply:      resp.Message,
		DoneReason: resp.DoneReason,
		ElapsedMS:  float64(elapsed.Microseconds()) / 1000,
		Metrics:    resp.Metrics,
	}
	rec.KeepAlive = req.KeepAlive.String()
	for _, t := range req.Tools {
		rec.Tools = append(rec.Tools, t.Name)
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

// ReadTrace decodes a trace file's records, in order.
func ReadTrace(r io.Reader) ([]TraceRecord, error) {
	var recs []TraceRecord
	dec := json.NewDecoder(r)
	for {
		var rec TraceRecord
		err := dec.Decode(&rec)
		if errors.Is(err, io.EOF) {
			return recs, nil
		}
		if err != nil {
			return recs, fmt.Errorf("trace record %d: %w", len(recs)+1, err)
		}
		recs = append(recs, rec)
	}
}
