package replay

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aymanbagabas/go-udiff"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
)

// request is a small Patient request whose user message is text.
func request(agent, text string) llm.Request {
	return llm.Request{
		Agent:     agent,
		Messages:  []memory.Message{{Role: "system", Content: "You are the patient."}, {Role: "user", Content: text}},
		Options:   llm.Options{NumCtx: llm.DefaultNumCtx, NumPredict: 2000},
		KeepAlive: llm.DefaultKeepAlive,
	}
}

// recorded is the trace record of req answered with reply, streamed as chunks.
func recorded(req llm.Request, reply string, chunks ...string) llm.TraceRecord {
	resp := llm.Response{Message: memory.Message{Role: "assistant", Content: reply}, DoneReason: "stop",
		Metrics: llm.Metrics{PromptEvalCount: 40, EvalCount: 5}}
	rec := llm.NewTraceRecord(named{}, req, resp, nil, 0)
	rec.Chunks = chunks
	return rec
}

// named is a backend that only has a name, for records that need one.
type named struct{ llm.Backend }

func (named) Name() string  { return "ollama" }
func (named) Model() string { return "tiny" }

func TestBackendAnswersAsRecorded(t *testing.T) {
	first, second := request("Patient", "hello"), request("Monitor", "/vitals")
	failed := llm.NewTraceRecord(named{}, second, llm.Response{}, &llm.EmptyError{Reason: "stalled"}, 0)
	b := NewBackend(llm.TraceRun{Header: llm.TraceHeader{Backend: "ollama", Model: "tiny"},
		Calls: []llm.TraceRecord{recorded(first, "Hi there", "Hi ", "there"), failed}})
	if b.Name() != "ollama" || b.Model() != "tiny" {
		t.Fatalf("named %s %s, want the recording's backend", b.Name(), b.Model())
	}
	var streamed []string
	resp, err := b.Chat(context.Background(), first, func(s string) { streamed = append(streamed, s) })
	if err != nil || resp.Message.Content != "Hi there" || resp.Metrics.PromptEvalCount != 40 || strings.Join(streamed, "|") != "Hi |there" {
		t.Fatalf("first call: %+v, %v, streamed %q", resp, err, streamed)
	}
	var empty *llm.EmptyError
	if _, err := b.Chat(context.Background(), second, nil); !errors.As(err, &empty) || empty.Reason != "stalled" {
		t.Fatalf("second call: err %v, want the recorded empty answer", err)
	}
	if b.Stopped() {
		t.Fatal("a replay that sent what was recorded stopped")
	}
}

func TestBackendStopsAtTheFirstDifference(t *testing.T) {
	tests := []struct {
		name string
		send []llm.Request
		want int
	}{
		{"changed text", []llm.Request{request("Patient", "hello"), request("Patient", "how are you?")}, 1},
		{"other agent", []llm.Request{request("Monitor", "hello")}, 0},
		{"changed option", []llm.Request{func() llm.Request { r := request("Patient", "hello"); r.Options.NumCtx = 4096; return r }()}, 0},
		{"a call too many", []llm.Request{request("Patient", "hello"), request("Patient", "how is the pain?"), request("Patient", "more")}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBackend(llm.TraceRun{Calls: []llm.TraceRecord{
				recorded(request("Patient", "hello"), "Hi"), recorded(request("Patient", "how is the pain?"), "Bad"),
			}})
			var err error
			for _, req := range tt.send {
				_, err = b.Chat(context.Background(), req, nil)
			}
			i, ok := b.Diverged()
			if !errors.Is(err, ErrDiverged) || !ok || i != tt.want {
				t.Fatalf("err %v, diverged at %d (%v), want %d", err, i, ok, tt.want)
			}
			if _, err := b.Chat(context.Background(), request("Patient", "hello"), nil); !errors.Is(err, ErrDiverged) {
				t.Fatalf("a call after the divergence was answered: %v", err)
			}
		})
	}
}

func TestCheckSaysWhyATraceCannotBeReplayed(t *testing.T) {
	setup := Setup{ScenariosHash: "aaa", AgentsHash: "bbb"}
	ok := llm.TraceHeader{Format: llm.TraceFormat, Version: "(devel)", ScenariosHash: "aaa", AgentsHash: "bbb", SessionID: "s1"}
	with := func(change func(*llm.TraceHeader)) llm.TraceHeader { h := ok; change(&h); return h }
	tests := []struct {
		name string
		runs []llm.TraceHeader
		want string
	}{
		{"replayable", []llm.TraceHeader{ok, with(func(h *llm.TraceHeader) { h.Resumed = true })}, ""},
		{"no run", nil, "it holds no run"},
		{"format", []llm.TraceHeader{with(func(h *llm.TraceHeader) { h.Format = 2 })}, "run 1 is in trace format 2"},
		{"another version", []llm.TraceHeader{with(func(h *llm.TraceHeader) { h.Version = "v0.0.0-20261124190350-2865faa0ef66" })}, ""},
		{"scenarios", []llm.TraceHeader{with(func(h *llm.TraceHeader) { h.ScenariosHash = "ccc" })}, "another scenario library"},
		{"agents", []llm.TraceHeader{ok, with(func(h *llm.TraceHeader) { h.AgentsHash = "ccc" })}, "run 2 used other agent definitions"},
		{"resumed elsewhere", []llm.TraceHeader{with(func(h *llm.TraceHeader) { h.Resumed = true })}, "resumes shift s1, which the trace does not start"},
	}
	for _, tt := range tests {
		var runs []llm.TraceRun
		for _, h := range tt.runs {
			runs = append(runs, llm.TraceRun{Header: h})
		}
		err := Check(runs, setup)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && (!errors.Is(err, ErrUnreplayable) || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: err %v, want %q", tt.name, err, tt.want)
		}
	}
}

// A trace recorded by another build of ward replays with a note for each other version.
func TestVersionNotesNameEachOtherVersion(t *testing.T) {
	var runs []llm.TraceRun
	for _, v := range []string{"(devel)", "v1.2.0", "(devel)", "v1.2.0", "v1.3.0"} {
		runs = append(runs, llm.TraceRun{Header: llm.TraceHeader{Version: v}})
	}
	want := []string{
		"note: trace recorded by ward v1.2.0, replaying with ward (devel)",
		"note: trace recorded by ward v1.3.0, replaying with ward (devel)",
	}
	if got := VersionNotes(runs, "(devel)"); !slices.Equal(got, want) {
		t.Fatalf("notes %q, want %q", got, want)
	}
	if got := VersionNotes(runs[:1], "(devel)"); got != nil {
		t.Fatalf("a trace of this version has notes %q", got)
	}
}

func TestDivergeNamesTheCall(t *testing.T) {
	hello, pain := recorded(request("Patient", "hello"), "Hi"), recorded(request("Patient", "how is the pain?"), "Bad")
	hello.Turn, pain.Turn = 1, 2
	run := llm.TraceRun{
		Inputs: []llm.TraceInput{{Op: llm.InputTurn, Text: "hello"}, {Op: llm.InputTick}, {Op: llm.InputTurn, Text: "how is the pain?"}},
		Calls:  []llm.TraceRecord{hello, pain},
	}
	changed := recorded(request("Patient", "how bad is the pain?"), "")
	changed.Turn = 2
	tests := []struct {
		name     string
		replayed []llm.TraceRecord
		stopped  int
		want     string
	}{
		{"identical", []llm.TraceRecord{hello, pain}, -1, ""},
		{"changed", []llm.TraceRecord{hello, changed}, 1, `call 2 of run 1: turn 2 "how is the pain?", agent Patient, section user`},
		{"missing", []llm.TraceRecord{hello}, -1, "the replay ended after 1 calls, and the recording goes on to 2"},
		{"extra", []llm.TraceRecord{hello, pain, changed}, 2, "ward made a call the recording does not have"},
	}
	for _, tt := range tests {
		d := Diverge(1, run, tt.replayed, tt.stopped)
		switch {
		case tt.want == "" && d != nil:
			t.Errorf("%s: %s", tt.name, d)
		case tt.want != "" && (d == nil || !strings.Contains(d.String(), tt.want)):
			t.Errorf("%s: %v, want %q", tt.name, d, tt.want)
		}
	}
}

// The analyzer's and the router's calls carry no sections; they are split by role.
func TestSectionsOfAnUnsectionedCall(t *testing.T) {
	req := request("analyzer", "go back to the first patient")
	req.Format = []byte(`{"type":"object"}`)
	secs := Sections(llm.NewTraceRecord(named{}, req, llm.Response{}, nil, 0))
	var names []string
	for _, s := range secs {
		names = append(names, s.Name)
	}
	if strings.Join(names, ",") != "static,window,user,tools,format,options" || secs[0].Text != "You are the patient." ||
		secs[2].Text != "go back to the first patient" || !strings.Contains(secs[4].Text, "\"type\": \"object\"") ||
		!strings.Contains(secs[5].Text, "num_ctx 8192") {
		t.Fatalf("sections: %+v", secs)
	}
}

// A diff points at the field of a JSON line that changed, not at the whole line.
func TestCompareCallsDiffsJSONByField(t *testing.T) {
	facts := func(spo2 int) llm.TraceRecord {
		rec := recorded(request("Monitor", "/vitals"), "")
		rec.SectionTexts = map[string]string{agents.SectionDynamic: fmt.Sprintf(`Engine facts: {"now":"T+02:00","spo2":%d}`, spo2)}
		return rec
	}
	a, b := facts(91), facts(94)
	diffs := CompareCalls(&a, &b, "a", "b")
	if len(diffs) != 1 || diffs[0].Name != agents.SectionDynamic {
		t.Fatalf("diffs: %+v", diffs)
	}
	if d := diffs[0].Diff; !strings.Contains(d, "-  \"spo2\": 91\n+  \"spo2\": 94\n") || strings.Contains(d, "-  \"now\"") {
		t.Fatalf("diff:\n%s", d)
	}
}

// Applying the line edits to a gives b, whatever the texts, and each edit spans whole lines.
func FuzzLineEdits(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nc\nd\n")
	f.Add("Vitals:\n- T+00:00 HR 128\n", "")
	f.Add("no newline", "no newline\nbut now one\n")
	f.Fuzz(func(t *testing.T, a, b string) {
		edits := lineEdits(a, b)
		got, err := udiff.Apply(a, edits)
		if err != nil || got != b {
			t.Fatalf("applying %v to %q gives %q (%v), want %q", edits, a, got, err, b)
		}
		for _, e := range edits {
			if e.Start > 0 && a[e.Start-1] != '\n' {
				t.Fatalf("edit %v starts inside a line of %q", e, a)
			}
		}
	})
}
