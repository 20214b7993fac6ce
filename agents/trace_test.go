package agents

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
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
				rec := TraceRecord{Agent: fmt.Sprintf("agent-%d", g), Messages: []api.Message{{Role: "user", Content: fmt.Sprint(i)}}}
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
	keepAlive := &api.Duration{Duration: DefaultKeepAlive}
	req := Request{
		Agent:     "patient",
		Messages:  []api.Message{{Role: "system", Content: "static"}, {Role: "user", Content: "hi"}},
		Sections:  map[string]int{"static": 10, "window": 0, "dynamic": 5, "memory": 3},
		Tools:     api.Tools{{Type: "function", Function: api.ToolFunction{Name: "check_vitals"}}},
		Options:   map[string]any{"num_ctx": DefaultNumCtx},
		KeepAlive: keepAlive,
	}
	resp := Response{
		Message:    api.Message{Role: "assistant", Content: "hello"},
		DoneReason: "stop",
		Metrics:    api.Metrics{PromptEvalCount: 20, PromptEvalDuration: 5 * time.Millisecond, EvalCount: 3, EvalDuration: time.Millisecond, LoadDuration: 2 * time.Millisecond},
	}
	rec := NewTraceRecord(NewOffline(), req, resp, nil, 1500*time.Microsecond)
	if rec.Agent != "patient" || rec.Backend != "offline" || rec.KeepAlive != "30m0s" || rec.ElapsedMS != 1.5 ||
		len(rec.Tools) != 1 || rec.Tools[0] != "check_vitals" || rec.Sections["dynamic"] != 5 || rec.Reply.Content != "hello" ||
		rec.Metrics.PromptEvalDuration != 5*time.Millisecond || rec.Metrics.LoadDuration != 2*time.Millisecond || rec.Error != "" {
		t.Fatalf("record = %+v", rec)
	}
	failed := NewTraceRecord(NewOffline(), req, Response{}, &EmptyError{Reason: "stalled"}, 0)
	if failed.Error != ErrEmpty.Error()+" (stalled)" {
		t.Fatalf("error = %q", failed.Error)
	}
}
