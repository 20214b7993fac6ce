package analyzer

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/agents/ollama"
	"github.com/ward-sim/ward/agents/ollamatest"
)

// testStall keeps stall tests short. Only a reply scripted to stall meets it: every other test
// waits an hour for a chunk, so a loaded machine cannot fail it.
const testStall = 100 * time.Millisecond

func testBackend(f *ollamatest.Fake, stalls bool) *ollama.Backend {
	stall := time.Hour
	if stalls {
		stall = testStall
	}
	return ollama.New(f.Client(), ollamatest.TestModel, ollama.Options{StallTimeout: stall, FirstCall: stall})
}

func newTestLLMAnalyzer(f *ollamatest.Fake, cfg LLMAnalyzerConfig) *LLMAnalyzer {
	return NewLLMAnalyzer(testBackend(f, false), cfg)
}

// answer streams a JSON decision in two pieces, as a model would.
func answer(decision string) ollamatest.Reply {
	half := len(decision) / 2
	return ollamatest.Streamed(decision[:half], decision[half:])
}

var twoPatients = AnalyzerInput{
	Text:          "go back to the first patient we saw",
	ActivePatient: "patient_15",
	Roster:        []string{"patient_15", "patient_4"},
}

func TestLLMAnalyzerDecisions(t *testing.T) {
	tests := []struct {
		name   string
		in     AnalyzerInput
		reply  string
		action Action
		id     string
		reason string // substring of Reasoning
	}{
		{"switch to roster patient", twoPatients,
			`{"action":"SWITCH_EXISTING","patient_id":"patient_4","reasoning":"the first patient was patient_4"}`,
			ActionSwitchExisting, "patient_4", "first patient"},
		{"new patient named in text", AnalyzerInput{Text: "and then there's Patient 9 in bay two", ActivePatient: "patient_4", Roster: []string{"patient_4"}},
			`{"action":"SWITCH_EXISTING","patient_id":"Patient 9","reasoning":"names patient 9"}`,
			ActionActivateNew, "patient_9", "names"},
		{"invented id dropped", AnalyzerInput{Text: "let's look at someone new", ActivePatient: "patient_4", Roster: []string{"patient_4"}},
			`{"action":"ACTIVATE_NEW","patient_id":"patient_15","reasoning":"new patient"}`,
			ActionActivateNew, "", "dropped"},
		{"switch without id", twoPatients,
			`{"action":"SWITCH_EXISTING","patient_id":null,"reasoning":"some patient"}`,
			ActionActivateNew, "", "some patient"},
		{"unchanged", twoPatients,
			`{"action":"UNCHANGED","patient_id":null,"reasoning":"carries on"}`,
			ActionUnchanged, "patient_15", "carries on"},
		{"unchanged with none active is none", AnalyzerInput{Text: "hello there everyone"},
			`{"action":"UNCHANGED","patient_id":null,"reasoning":"carries on"}`,
			ActionNone, "", "carries on"},
		{"clear", AnalyzerInput{Text: "ok let's start the whole thing over", ActivePatient: "patient_4"},
			`{"action":"CLEAR","patient_id":null,"reasoning":"asks to start over"}`,
			ActionClear, "", "start over"},
		{"active named", twoPatients,
			`{"action":"SWITCH_EXISTING","patient_id":"patient_15","reasoning":"same patient"}`,
			ActionUnchanged, "patient_15", "same"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := ollamatest.NewFake(t, answer(tt.reply))
			d := newTestLLMAnalyzer(f, LLMAnalyzerConfig{}).Analyze(context.Background(), tt.in)
			if d.Action != tt.action || d.PatientID != tt.id || d.Source != SourceLLM || !strings.Contains(d.Reasoning, tt.reason) {
				t.Fatalf("got %+v; want %s %q from llm, reasoning with %q", d, tt.action, tt.id, tt.reason)
			}
		})
	}
}

func TestLLMAnalyzerRequest(t *testing.T) {
	f := ollamatest.NewFake(t, answer(`{"action":"NONE","patient_id":null,"reasoning":"general"}`))
	in := AnalyzerInput{Text: "what now?", ActivePatient: "MRN1234567", Roster: []string{"MRN1234567", "MRN7654321"}, Pattern: mrnPattern}
	newTestLLMAnalyzer(f, LLMAnalyzerConfig{}).Analyze(context.Background(), in)

	sent := f.Requests()
	if len(sent) != 1 {
		t.Fatalf("%d requests", len(sent))
	}
	req := sent[0]
	var gotSchema, wantSchema any
	if err := json.Unmarshal(req.Format, &gotSchema); err != nil {
		t.Fatalf("format %s: %v", req.Format, err)
	}
	if err := json.Unmarshal(DecisionSchema, &wantSchema); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotSchema, wantSchema) {
		t.Errorf("format = %s", req.Format)
	}
	if req.Options["temperature"] != float64(0) || req.Options["num_predict"] != float64(defaultAnalyzerPredict) || req.Options["num_ctx"] != float64(llm.DefaultNumCtx) {
		t.Errorf("options = %v", req.Options)
	}
	if req.KeepAlive == nil || req.KeepAlive.Duration != llm.DefaultKeepAlive {
		t.Errorf("keep_alive = %v", req.KeepAlive)
	}
	if len(req.Messages) != 2 || req.Messages[1].Role != "user" || req.Messages[1].Content != "what now?" {
		t.Fatalf("messages = %+v", req.Messages)
	}
	system := req.Messages[0].Content
	for _, want := range []string{"^MRN[0-9]{7}$", "MRN4827163", "Active patient: MRN1234567", "Roster: MRN1234567, MRN7654321", "SWITCH_EXISTING"} {
		if !strings.Contains(system, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, system)
		}
	}
	if strings.Contains(system, "patient_4") {
		t.Errorf("system prompt shows IDs of another pattern:\n%s", system)
	}
}

func TestLLMAnalyzerConfiguredExamples(t *testing.T) {
	f := ollamatest.NewFake(t, answer(`{"action":"NONE","patient_id":null,"reasoning":"general"}`))
	newTestLLMAnalyzer(f, LLMAnalyzerConfig{Examples: []string{"MRN0000042"}}).
		Analyze(context.Background(), AnalyzerInput{Text: "hm", Pattern: mrnPattern})
	if system := f.Requests()[0].Messages[0].Content; !strings.Contains(system, "MRN0000042") || strings.Contains(system, "MRN4827163") {
		t.Errorf("configured examples not used:\n%s", system)
	}
}

// Every failure ends in the rules' decision, marked as a fallback.
func TestLLMAnalyzerFallback(t *testing.T) {
	in := AnalyzerInput{Text: "check on the patient", ActivePatient: "patient_4", Roster: []string{"patient_4"}}
	tests := []struct {
		name   string
		reply  ollamatest.Reply
		cfg    LLMAnalyzerConfig
		reason string
	}{
		{"invalid JSON", answer(`{"action":"SWITCH_EXISTING",`), LLMAnalyzerConfig{}, "invalid JSON"},
		{"prose", ollamatest.Streamed("Sure! The patient is unchanged."), LLMAnalyzerConfig{}, "invalid JSON"},
		{"unknown action", answer(`{"action":"DISCHARGE","patient_id":null,"reasoning":"x"}`), LLMAnalyzerConfig{}, `unknown action "DISCHARGE"`},
		{"empty answer", ollamatest.Streamed(), LLMAnalyzerConfig{}, "empty answer"},
		{"length stop", ollamatest.Stopped("length"), LLMAnalyzerConfig{}, "num_predict reached"},
		{"404", ollamatest.NotFound(ollamatest.TestModel), LLMAnalyzerConfig{}, "model tiny not found — ollama pull tiny"},
		{"server error", ollamatest.Reply{Status: http.StatusInternalServerError, Body: `{"error":"boom"}`}, LLMAnalyzerConfig{}, "boom"},
		{"stall", ollamatest.Reply{Stall: true}, LLMAnalyzerConfig{}, "stalled"},
		{"trickle past the timeout", ollamatest.Reply{Chunks: ollamatest.Streamed(`{"action":`).Chunks[:1], Stall: true},
			LLMAnalyzerConfig{}, "stalled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := ollamatest.NewFake(t, tt.reply)
			d := NewLLMAnalyzer(testBackend(f, tt.reply.Stall), tt.cfg).Analyze(context.Background(), in)
			assertFallback(t, d, tt.reason)
		})
	}
}

func TestLLMAnalyzerTimeout(t *testing.T) {
	f := ollamatest.NewFake(t, ollamatest.Reply{Stall: true})
	backend := testBackend(f, false)
	a := NewLLMAnalyzer(backend, LLMAnalyzerConfig{Timeout: testStall})
	d := a.Analyze(context.Background(), AnalyzerInput{Text: "check on the patient", ActivePatient: "patient_4"})
	assertFallback(t, d, "no answer within 100ms")
}

func TestLLMAnalyzerRefused(t *testing.T) {
	backend := ollama.New(ollamatest.RefusedClient(t), ollamatest.TestModel, ollama.Options{})
	d := NewLLMAnalyzer(backend, LLMAnalyzerConfig{}).
		Analyze(context.Background(), AnalyzerInput{Text: "check on the patient", ActivePatient: "patient_4"})
	assertFallback(t, d, "Ollama is not reachable at http://127.0.0.1:")
}

func assertFallback(t *testing.T, d Decision, reason string) {
	t.Helper()
	if d.Source != SourceFallback || d.Action != ActionUnchanged || d.PatientID != "patient_4" {
		t.Fatalf("got %+v; want the rules' UNCHANGED patient_4 as fallback", d)
	}
	if !strings.Contains(d.Reasoning, reason) || !strings.Contains(d.Reasoning, "rules:") {
		t.Fatalf("reasoning %q lacks %q", d.Reasoning, reason)
	}
}

// The default analyzer asks the model only when the rules are unsure.
func TestAnalyzerAsksLLMOnlyWhenUnsure(t *testing.T) {
	f := ollamatest.NewFake(t, answer(`{"action":"SWITCH_EXISTING","patient_id":"patient_4","reasoning":"first patient"}`))
	analyzer := NewAnalyzer(newTestLLMAnalyzer(f, LLMAnalyzerConfig{}))
	ctx := context.Background()

	sure := analyzer.Analyze(ctx, AnalyzerInput{Text: "switch to patient_4", ActivePatient: "patient_15", Roster: twoPatients.Roster})
	if sure.Source != SourceRules || sure.Action != ActionSwitchExisting || len(f.Requests()) != 0 {
		t.Fatalf("sure case: %+v after %d model calls", sure, len(f.Requests()))
	}
	unsure := analyzer.Analyze(ctx, twoPatients)
	if unsure.Source != SourceLLM || unsure.PatientID != "patient_4" || len(f.Requests()) != 1 {
		t.Fatalf("unsure case: %+v after %d model calls", unsure, len(f.Requests()))
	}
	if unsure.Elapsed <= 0 {
		t.Errorf("elapsed not recorded")
	}
}

// The analyzer's calls reach the trace through a traced backend, as main wires it.
func TestLLMAnalyzerTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	trace, err := llm.OpenTrace(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := trace.WriteHeader(llm.TraceHeader{}); err != nil {
		t.Fatal(err)
	}
	f := ollamatest.NewFake(t, answer(`{"action":"NONE","patient_id":null,"reasoning":"general"}`), ollamatest.NotFound(ollamatest.TestModel))
	a := NewLLMAnalyzer(llm.Traced(testBackend(f, false), trace, nil), LLMAnalyzerConfig{})
	a.Analyze(context.Background(), AnalyzerInput{Text: "hello"})
	a.Analyze(context.Background(), AnalyzerInput{Text: "hello again"})
	if err := trace.Close(); err != nil {
		t.Fatal(err)
	}

	recs := readTrace(t, path)
	if len(recs) != 2 {
		t.Fatalf("%d trace lines", len(recs))
	}
	first, second := recs[0], recs[1]
	if first.Agent != "analyzer" || first.Backend != "ollama" || first.Model != ollamatest.TestModel || len(first.Format) == 0 ||
		first.Metrics.PromptEvalCount != 42 || first.Reply.Content == "" || first.KeepAlive != "30m0s" {
		t.Errorf("first record = %+v", first)
	}
	if second.Error != "model tiny not found — ollama pull tiny" {
		t.Errorf("second record error = %q", second.Error)
	}
}

func readTrace(t *testing.T, path string) []llm.TraceRecord {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	runs, err := llm.ReadTrace(f)
	if err != nil {
		t.Fatal(err)
	}
	return runs[0].Calls
}

// A reference that fits several patients is the model's to settle when there is one; it sees
// every patient as a trainee may name them. Without a model the rules keep the candidates, and
// the trainee is asked which.
func TestAmbiguousReferenceAsksTheModel(t *testing.T) {
	in := AnalyzerInput{Text: "switch to the other one", ActivePatient: "patient_2",
		Roster: []string{"patient_1", "patient_2", "patient_3"},
		Patients: []Patient{{ID: "patient_1", Name: "Liam Carter", Bed: "Resus 3"},
			{ID: "patient_2", Name: "Robert Chen", Bed: "Resus 4"}, {ID: "patient_3", Name: "Eleanor Price", Bed: "Majors 2"}}}
	rules, sure := RulesAnalyzer{}.Decide(in)
	if sure || len(rules.Candidates) != 2 || rules.PatientID != "" {
		t.Fatalf("rules: %+v sure %v; want the two others as candidates, unsure", rules, sure)
	}
	f := ollamatest.NewFake(t, answer(`{"action":"SWITCH_EXISTING","patient_id":"patient_3","reasoning":"the one not yet seen"}`))
	d := NewAnalyzer(newTestLLMAnalyzer(f, LLMAnalyzerConfig{})).Analyze(context.Background(), in)
	if d.Source != SourceLLM || d.PatientID != "patient_3" {
		t.Fatalf("decision %+v, want the model's patient_3", d)
	}
	if prompt := f.Requests()[0].Messages[0].Content; !strings.Contains(prompt, "patient_3: Eleanor Price") || !strings.Contains(prompt, "Majors 2") {
		t.Errorf("the model was not told the patients' names and beds:\n%s", prompt)
	}
}
