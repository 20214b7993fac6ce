package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
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
	if err := w.WriteHeader(TraceHeader{}); err != nil {
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
	recs := readTrace(t, path)
	if len(recs) != writers*each {
		t.Fatalf("%d records, want %d", len(recs), writers*each)
	}
	for i, rec := range recs {
		if rec.Seq != i+1 {
			t.Fatalf("line %d is call %d: numbers and lines disagree", i+1, rec.Seq)
		}
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
		if err := errors.Join(w.WriteHeader(TraceHeader{}), w.Write(TraceRecord{Agent: "patient"})); err != nil {
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
	if err := errors.Join(w.WriteHeader(TraceHeader{}), w.WriteInput(TraceInput{}), w.Write(TraceRecord{})); err != nil {
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
		len(rec.Tools) != 1 || rec.Tools[0].Name != "check_vitals" || rec.Options.NumCtx != DefaultNumCtx || rec.Reply.Content != "hello" ||
		rec.Metrics.PromptEvalDuration != 5*time.Millisecond || rec.Metrics.LoadDuration != 2*time.Millisecond || rec.Error != "" {
		t.Fatalf("record = %+v", rec)
	}
	failed := NewTraceRecord(namedBackend{}, req, Response{}, &EmptyError{Reason: "stalled"}, 0)
	if failed.Error != ErrEmpty.Error()+" (stalled)" {
		t.Fatalf("error = %q", failed.Error)
	}
}

// A replay fails a call the way it failed, so the session takes the same path: an empty answer
// is retried, an unreachable server is reported as one.
func TestTraceRecordErrRebuildsTheError(t *testing.T) {
	errs := []error{
		&EmptyError{Reason: "stalled"},
		&UnreachableError{URL: "http://127.0.0.1:11434"},
		&ModelNotFoundError{Model: "llama3.2"},
		context.Canceled,
		context.DeadlineExceeded,
		errors.New("ollama: 500 Internal Server Error"),
	}
	for _, want := range errs {
		rec := roundTrip(t, NewTraceRecord(namedBackend{}, Request{}, Response{}, want, 0))
		got := rec.Err()
		if got == nil || got.Error() != want.Error() || reflect.TypeOf(got) != reflect.TypeOf(want) {
			t.Errorf("%T %v came back as %T %v", want, want, got, got)
		}
	}
	if err := roundTrip(t, NewTraceRecord(namedBackend{}, Request{}, Response{}, nil, 0)).Err(); err != nil {
		t.Errorf("a reply came back as %v", err)
	}
}

// A request read back from a trace is byte for byte the request that was sent.
func TestRequestJSONMatchesSentAfterRoundTrip(t *testing.T) {
	req := Request{
		Agent: "Patient",
		Messages: []memory.Message{
			{Role: "system", Content: "static"},
			{Role: "assistant", ToolCalls: []memory.ToolCall{{ID: "call_1_0", Name: "check_vitals", Args: map[string]any{"flow": 15.0, "why": "<ok>"}}}},
			{Role: "tool", ToolCallID: "call_1_0", ToolName: "check_vitals", Content: "HR 90"},
			{Role: "user", Content: "héllo \u2028"},
		},
		Tools:     []Tool{{Name: "check_vitals", Description: "measured vitals", Parameters: json.RawMessage(`{ "type": "object" }`)}},
		Format:    json.RawMessage(`{"type":"object"}`),
		Options:   Options{NumCtx: DefaultNumCtx, NumPredict: 2000, Temperature: Zero()},
		KeepAlive: DefaultKeepAlive,
	}
	rec := roundTrip(t, NewTraceRecord(namedBackend{}, req, Response{}, nil, 0))
	if got, want := rec.Sent(), RequestJSON(req); string(got) != string(want) {
		t.Fatalf("recorded request differs:\n%s\n%s", got, want)
	}
	req.Messages[3].Content = "hello"
	if string(rec.Sent()) == string(RequestJSON(req)) {
		t.Fatal("a changed message compares equal")
	}
}

func TestCallRecordsChunksAndTime(t *testing.T) {
	var seen []string
	resp, rec, err := Call(context.Background(), chunkyBackend{}, Request{Agent: "Patient"}, func(s string) { seen = append(seen, s) })
	if err != nil || resp.Message.Content != "Hello there" {
		t.Fatalf("Call = %+v, %v", resp, err)
	}
	if strings.Join(rec.Chunks, "|") != "Hel|lo there" || strings.Join(seen, "|") != "Hel|lo there" || rec.Reply.Content != "Hello there" {
		t.Fatalf("chunks %q, seen %q, reply %q", rec.Chunks, seen, rec.Reply.Content)
	}
	if _, rec, _ := Call(context.Background(), chunkyBackend{}, Request{}, nil); rec.Chunks != nil {
		t.Fatalf("a call that did not stream recorded chunks %q", rec.Chunks)
	}
}

// An observer hears of every call through a traced backend, before it is sent and with its
// record after, and of none once it stops listening.
func TestObserverHearsTracedCalls(t *testing.T) {
	var order []string
	o := &Observer{}
	o.Hear(func() { order = append(order, "starting") }, func(rec TraceRecord) { order = append(order, "finished "+rec.Reply.Content) })
	stream := func(s string) { order = append(order, s) }
	b := Traced(chunkyBackend{}, nil, o)
	if _, err := b.Chat(context.Background(), Request{}, stream); err != nil {
		t.Fatal(err)
	}
	o.Hear(nil, nil)
	if _, err := b.Chat(context.Background(), Request{}, stream); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(order, "|"); got != "starting|Hel|lo there|finished Hello there|Hel|lo there" {
		t.Fatalf("order = %s", got)
	}
}

// chunkyBackend streams its answer in two chunks when asked to stream.
type chunkyBackend struct{ namedBackend }

func (chunkyBackend) Chat(_ context.Context, _ Request, onDelta func(string)) (Response, error) {
	if onDelta != nil {
		onDelta("Hel")
		onDelta("lo there")
	}
	return Response{Message: memory.Message{Role: "assistant", Content: "Hello there"}, DoneReason: "stop"}, nil
}

// The writer numbers a run's turns and calls; a header starts the count again, and a clock
// tick is no turn.
func TestTraceWriterNumbersRuns(t *testing.T) {
	var buf bytes.Buffer
	w := NewTraceWriter(&buf)
	steps := []func() error{
		func() error { return w.WriteHeader(TraceHeader{SessionID: "s1"}) },
		func() error { return w.WriteInput(TraceInput{Op: InputTurn, Text: "review patient_1"}) },
		func() error { return w.Write(TraceRecord{Agent: "Patient"}) },
		func() error { return w.WriteInput(TraceInput{Op: InputTick, Wall: time.Second}) },
		func() error { return w.WriteInput(TraceInput{Op: InputTurn, Text: "/vitals"}) },
		func() error { return w.Write(TraceRecord{Agent: "Monitor"}) },
		func() error { return w.Write(TraceRecord{Agent: "Patient"}) },
		func() error { return w.WriteHeader(TraceHeader{SessionID: "s2", Resumed: true}) },
		func() error { return w.WriteInput(TraceInput{Op: InputRestore}) },
		func() error { return w.Write(TraceRecord{Agent: "Patient"}) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := ReadTrace(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || len(runs[0].Inputs) != 3 || len(runs[0].Calls) != 3 || len(runs[1].Calls) != 1 {
		t.Fatalf("runs = %+v", runs)
	}
	var got []string
	for _, run := range runs {
		for _, c := range run.Calls {
			got = append(got, fmt.Sprintf("%s t%d #%d", c.Agent, c.Turn, c.Seq))
		}
	}
	if strings.Join(got, ", ") != "Patient t1 #1, Monitor t2 #2, Patient t2 #3, Patient t1 #1" {
		t.Fatalf("numbering: %s", strings.Join(got, ", "))
	}
	h := runs[1].Header
	if h.Format != TraceFormat || h.Kind != KindHeader || h.Version == "" || !h.Resumed || h.SessionID != "s2" {
		t.Fatalf("header = %+v", h)
	}
}

func TestReadTraceRefusesWhatItCannotPlace(t *testing.T) {
	tests := []struct{ name, trace, want string }{
		{"calls only", `{"agent":"Patient","messages":[]}` + "\n", "line 1: the trace does not open with a header"},
		{"unknown kind", `{"kind":"header","format":1}` + "\n" + `{"kind":"bogus"}` + "\n", `line 2: unknown kind "bogus"`},
		{"cut line", `{"kind":"header","format":1}` + "\n" + `{"kind":"call","agent":"Pat`, "trace line 2 is cut short"},
	}
	for _, tt := range tests {
		if _, err := ReadTrace(strings.NewReader(tt.trace)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
}

func roundTrip(t *testing.T, rec TraceRecord) TraceRecord {
	t.Helper()
	var buf bytes.Buffer
	w := NewTraceWriter(&buf)
	if err := w.WriteHeader(TraceHeader{}); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	runs, err := ReadTrace(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return runs[0].Calls[0]
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
	runs, err := ReadTrace(f)
	if err != nil {
		t.Fatal(err)
	}
	var recs []TraceRecord
	for _, run := range runs {
		recs = append(recs, run.Calls...)
	}
	return recs
}
