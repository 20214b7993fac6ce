package llm

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ward-sim/ward/memory"
)

func TestTraceWriterConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	w, err := OpenTrace(path)
	if err != nil {
		t.Fatal(err)
	}
	const writers, each = 4, 25
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range each {
				rec := TraceRecord{Agent: fmt.Sprintf("agent-%d", g), Messages: []memory.Message{{Role: "user", Content: fmt.Sprint(i)}}}
				if err := w.Write(rec); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := len(readTrace(t, path)); got != writers*each {
		t.Fatalf("%d records, want %d", got, writers*each)
	}
}

// Reopening appends: a trace spans several runs.
func TestTraceAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	for range 2 {
		w, err := OpenTrace(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(TraceRecord{Agent: "patient"}); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if got := len(readTrace(t, path)); got != 2 {
		t.Fatalf("%d records after two runs", got)
	}
}

func TestNilTraceWriter(t *testing.T) {
	var w *TraceWriter
	if err := w.Write(TraceRecord{}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestNewTraceRecord(t *testing.T) {
	req := Request{
		Agent:     "patient",
		Messages:  []memory.Message{{Role: "system", Content: "static"}, {Role: "user", Content: "hi"}},
		Tools:     []Tool{{Name: "check_vitals"}},
		Options:   Options{NumCtx: DefaultNumCtx},
		KeepAlive: DefaultKeepAlive,
	}
	resp := Response{
		Message:    memory.Message{Role: "assistant", Content: "hello"},
		DoneReason: "stop",
		Metrics:    Metrics{PromptEvalCount: 20, PromptEvalDuration: 5 * time.Millisecond, EvalCount: 3, EvalDuration: time.Millisecond, LoadDuration: 2 * time.Millisecond},
	}
	rec := NewTraceRecord(namedBackend{}, req, resp, nil, 1500*time.Microsecond)
	if rec.Agent != "patient" || rec.Backend != "offline" || rec.KeepAlive != "30m0s" || rec.ElapsedMS != 1.5 ||
		len(rec.Tools) != 1 || rec.Tools[0] != "check_vitals" || rec.Options.NumCtx != DefaultNumCtx || rec.Reply.Content != "hello" ||
		rec.Metrics.PromptEvalDuration != 5*time.Millisecond || rec.Metrics.LoadDuration != 2*time.Millisecond || rec.Error != "" {
		t.Fatalf("record = %+v", rec)
	}
	failed := NewTraceRecord(namedBackend{}, req, Response{}, &EmptyError{Reason: "stalled"}, 0)
	if failed.Error != ErrEmpty.Error()+" (stalled)" {
		t.Fatalf("error = %q", failed.Error)
	}
}

// namedBackend is a Backend that only has a name, for records that need one.
type namedBackend struct{ Backend }

func (namedBackend) Name() string  { return "offline" }
func (namedBackend) Model() string { return "" }

func readTrace(t *testing.T, path string) []TraceRecord {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := ReadTrace(f)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}
