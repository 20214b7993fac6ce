package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/ward-sim/ward/persist/outfile"
)

// TraceWriter appends a trace to a file or a stream as JSON lines. It is safe for concurrent use;
// a nil *TraceWriter writes nothing, so tracing can stay off without checks at every call.
type TraceWriter struct {
	mu     sync.Mutex
	w      io.Writer
	closer io.Closer
	turn   int
	seq    int
	// err is the first write that failed: from there the trace is incomplete, and nothing more
	// is written, since a line after a torn one could not be read. reported says Failure has
	// handed it out.
	err      error
	reported bool
}

// OpenTrace opens path for appending, creating it if needed. The file holds whole prompts, so
// only the user may read it. A trace cut short (its last line torn) is refused: a run appended
// after the torn line could not be read back.
func OpenTrace(path string) (*TraceWriter, error) {
	if err := outfile.Appendable(path); err != nil {
		return nil, fmt.Errorf("--trace: %w", err)
	}
	f, err := outfile.OpenLog(path)
	if err != nil {
		return nil, err
	}
	if err := endsWhole(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--trace %s: %w", path, err)
	}
	return &TraceWriter{w: f, closer: closeAll{f, outfile.Hold(path)}}, nil
}

// endsWhole refuses a file whose last line has no end: it was cut short.
func endsWhole(f *os.File) error {
	info, err := f.Stat()
	if err != nil || info.Size() == 0 {
		return err
	}
	r, err := os.Open(f.Name())
	if err != nil {
		return err
	}
	defer r.Close()
	last := make([]byte, 1)
	if _, err := r.ReadAt(last, info.Size()-1); err != nil {
		return err
	}
	if last[0] != '\n' {
		return errors.New("its last line is cut short, so a run appended to it could not be read back: name a new file (`ward replay` still replays what it holds)")
	}
	return nil
}

// closeAll closes the trace file and lets outputs name it again.
type closeAll struct {
	f       *os.File
	release func()
}

func (c closeAll) Close() error {
	c.release()
	return c.f.Close()
}

// NewTraceWriter writes a trace to w.
func NewTraceWriter(w io.Writer) *TraceWriter { return &TraceWriter{w: w} }

// WriteHeader opens a run; its inputs and calls are numbered from 1.
func (w *TraceWriter) WriteHeader(h TraceHeader) error {
	if w == nil {
		return nil
	}
	h.Kind, h.Format = KindHeader, TraceFormat
	if h.Version == "" {
		h.Version, h.Revision = Version()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.turn, w.seq = 0, 0
	return w.line(h)
}

// WriteInput records one input. Every input but a clock tick starts a turn.
func (w *TraceWriter) WriteInput(in TraceInput) error {
	if w == nil {
		return nil
	}
	in.Kind = KindInput
	w.mu.Lock()
	defer w.mu.Unlock()
	if in.Op != InputTick {
		w.turn++
	}
	return w.line(in)
}

// Write records one call, numbered within its run.
func (w *TraceWriter) Write(rec TraceRecord) error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seq++
	rec.Kind, rec.Turn, rec.Seq = KindCall, w.turn, w.seq
	return w.line(rec)
}

// WriteRetrieval records what the protocol cards gave the current turn.
func (w *TraceWriter) WriteRetrieval(r TraceRetrieval) error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	r.Kind, r.Turn = KindRetrieval, w.turn
	return w.line(r)
}

// WritePruning records what a pruning rule took out during the current turn.
func (w *TraceWriter) WritePruning(p TracePruning) error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	p.Kind, p.Turn = KindPruning, w.turn
	return w.line(p)
}

// line appends one line in a single write, so that lines never interleave. The caller holds mu.
func (w *TraceWriter) line(v any) error {
	if w.err != nil {
		return w.err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err = w.w.Write(append(b, '\n')); err != nil {
		w.err = fmt.Errorf("the trace is incomplete from here: %w", err)
	}
	return w.err
}

// Err is what made the trace incomplete; nil while every record was written whole.
func (w *TraceWriter) Err() error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Failure is Err the first time it is asked after a write failed, and nil every other time: the
// one report a failed trace gets, whichever call's write it was.
func (w *TraceWriter) Failure() error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil || w.reported {
		return nil
	}
	w.reported = true
	return w.err
}

func (w *TraceWriter) Close() error {
	if w == nil || w.closer == nil {
		return nil
	}
	return w.closer.Close()
}
