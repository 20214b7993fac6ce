package session

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/analyzer"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/agents/offline"
	"github.com/ward-sim/ward/agents/ollama"
	"github.com/ward-sim/ward/agents/ollamatest"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/session/records"
)

// The UI sees the reply's own words as they arrive: JSON output streams only its reply, a plain
// answer streams whole, and whitespace before the JSON does not make it plain.
func TestReplyStreamShowsOnlyTheWords(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		want   string
	}{
		{"json", []string{`{"re`, `ply": "Tight `, `chest… \"bad\"`, `", "entities_to_update": {}}`}, `Tight chest… "bad"`},
		{"plain text", []string{"Tight ", "chest.", ""}, "Tight chest."},
		{"whitespace before json", []string{"\n ", ` {"reply": "ok"`, `}`}, "ok"},
		{"json without a reply yet", []string{`{"entities_to_update": {}`}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got strings.Builder
			r := replyStream{emit: func(s string) {
				if s == "" {
					t.Error("emitted an empty delta")
				}
				got.WriteString(s)
			}}
			for _, c := range tt.chunks {
				r.add(c)
			}
			r.flush()
			if got.String() != tt.want {
				t.Fatalf("streamed %q, want %q", got.String(), tt.want)
			}
		})
	}
}

// A streamed sentence is shown only once it passes the check the whole reply is held to, and
// cleaned: the first that fails stops the stream, so nothing after it shows either.
func TestReplyStreamHoldsBackWhatFailsTheCheck(t *testing.T) {
	var got strings.Builder
	r := replyStream{emit: func(s string) { got.WriteString(s) }, clean: func(s string) bool { return !strings.Contains(s, "212") }}
	for _, c := range []string{`{"reply": "I feel \u202eodd. My heart`, ` rate is 212. And`, ` more."}`} {
		r.add(c)
	}
	r.flush()
	if got.String() != "I feel odd." {
		t.Errorf("streamed %q, want only the first sentence, cleaned", got.String())
	}
}

// scripted answers every call with the next response or error, the last repeating, and counts
// the calls. It embeds Backend so it overrides only Chat.
type scripted struct {
	llm.Backend
	replies []llm.Response
	errs    []error
	calls   int
}

func (m *scripted) Chat(_ context.Context, _ llm.Request, onDelta func(string)) (llm.Response, error) {
	i := min(m.calls, len(m.replies)-1)
	m.calls++
	if onDelta != nil && m.replies[i].Message.Content != "" {
		onDelta(m.replies[i].Message.Content)
	}
	return m.replies[i], m.errs[i]
}

// A reply the model did not finish is kept and shown, and the trainee is told why in words; a
// model that sends nothing is not waited for twice.
func TestUnfinishedRepliesAreKeptAndSaid(t *testing.T) {
	tests := []struct {
		name  string
		reply llm.Response
		err   error
		code  string
		words string
		kept  string
		calls int
	}{
		{"output budget", llm.Response{Message: memory.Message{Role: "assistant", Content: `{"reply":"It hurts when I breathe in and`}, DoneReason: "length"},
			nil, "LLM_CUT", "output budget", "It hurts when I breathe in and", 1},
		{"stalled mid-reply", llm.Response{Message: memory.Message{Role: "assistant", Content: "My chest is"}, DoneReason: llm.DoneStalled},
			nil, "LLM_CUT", "stalled", "My chest is", 1},
		{"stalled before a word", llm.Response{}, &llm.StallError{After: 30 * time.Second}, "LLM_STALLED", "sent nothing for 30s", "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := &scripted{Backend: offline.New(), replies: []llm.Response{tt.reply}, errs: []error{tt.err}}
			r := newRigWith(t, func(c *Config) { c.Backend = model })
			r.turn("/admit patient_1 asthma-exacerbation")
			model.calls = 0
			events := r.turn("how are you feeling?")
			var got ErrorEvent
			for _, e := range only[ErrorEvent](events) {
				if e.Code == tt.code {
					got = e
				}
			}
			if !strings.Contains(got.Message, tt.words) {
				t.Errorf("errors %+v: want %s saying %q", only[ErrorEvent](events), tt.code, tt.words)
			}
			if model.calls != tt.calls {
				t.Errorf("%d calls, want %d", model.calls, tt.calls)
			}
			h := r.dump().Histories["patient_1"]
			if last := h[len(h)-1]; tt.kept != "" && last.Content != tt.kept {
				t.Errorf("kept %q, want %q", last.Content, tt.kept)
			}
		})
	}
}

// toolCallingModel calls check_vitals on its first request and answers on the second, recording
// what it was sent. It embeds Backend so it overrides only Chat.
type toolCallingModel struct {
	llm.Backend
	requests []llm.Request
}

func (m *toolCallingModel) Chat(_ context.Context, req llm.Request, onDelta func(string)) (llm.Response, error) {
	m.requests = append(m.requests, req)
	if len(m.requests) == 1 {
		call := memory.ToolCall{Name: agents.ToolCheckVitals, Args: map[string]any{}}
		return llm.Response{Message: memory.Message{Role: "assistant", ToolCalls: []memory.ToolCall{call}}, DoneReason: "stop"}, nil
	}
	reply := `{"reply":"Heart rate as measured.","entities_to_update":{},"derived_entities_to_update":{}}`
	onDelta(reply)
	return llm.Response{Message: memory.Message{Role: "assistant", Content: reply}, DoneReason: "stop"}, nil
}

func TestToolCallRoundTrip(t *testing.T) {
	r := newRig(t)
	model := &toolCallingModel{Backend: offline.New()}
	r.cfg.Backend, r.cfg.Tools = model, true
	r.restart()
	r.turn("/admit patient_1 asthma-exacerbation")
	model.requests = nil
	events := r.turn("@Monitor what are her numbers now?")

	if len(model.requests) != 2 {
		t.Fatalf("want a tool call then a second call, got %d requests", len(model.requests))
	}
	first, second := model.requests[0], model.requests[1]
	if len(first.Tools) != 1 || first.Tools[0].Name != agents.ToolCheckVitals || first.Format != nil {
		t.Errorf("first call should offer check_vitals without a JSON format: tools %v format %s", first.Tools, first.Format)
	}
	last := second.Messages[len(second.Messages)-1]
	if last.Role != "tool" || !strings.Contains(last.Content, `"spo2"`) || len(second.Tools) != 1 || second.Format == nil {
		t.Errorf("second call should end with the engine's reading, offer the same tools (the cached prompt start) and ask for the output format: %+v", last)
	}
	var vitals int
	for _, e := range events {
		if se, ok := e.(SimEvent); ok && se.Kind() == "vitals" {
			vitals++
		}
	}
	if vitals != 1 {
		t.Errorf("the tool's check should report one vitals event, got %d", vitals)
	}
	h := r.dump().Histories["patient_1"]
	var sawCall, sawResult bool
	for _, m := range h {
		sawCall = sawCall || (len(m.ToolCalls) == 1 && m.ToolCalls[0].Name == agents.ToolCheckVitals)
		sawResult = sawResult || (m.Role == "tool" && m.ToolName == agents.ToolCheckVitals && m.ToolCallID != "")
	}
	if !sawCall || !sawResult {
		t.Errorf("the interaction log lacks the tool call (%v) or its result (%v)", sawCall, sawResult)
	}
	if h[len(h)-1].Content != "Heart rate as measured." {
		t.Errorf("stored reply %q", h[len(h)-1].Content)
	}
}

// A message too long for the context is refused before any call, with a clear error; the text
// itself is stored.
func TestMessageTooLongForTheContext(t *testing.T) {
	r := newRig(t)
	r.turn("/admit patient_1 asthma-exacerbation")
	huge := strings.Repeat("she says the pain is everywhere and ", 2000) // about 18,000 tokens
	events := r.turn(huge)
	var code string
	for _, e := range events {
		if ee, ok := e.(ErrorEvent); ok {
			code = ee.Code
		}
		if _, ok := e.(LLMCallEvent); ok {
			t.Error("a prompt over num_ctx was sent")
		}
	}
	if code != "PROMPT_TOO_LONG" {
		t.Errorf("error code %q, want PROMPT_TOO_LONG", code)
	}
	h := r.dump().Histories["patient_1"]
	if h[len(h)-1].Content != huge {
		t.Error("the long message was not stored")
	}
}

// onFake is a rig whose model is a fake Ollama server answering with replies; tools says the
// model can call tools, and ask wires the model's analyzer and router as main does.
func onFake(t *testing.T, tools, ask bool, replies ...ollamatest.Reply) (*rig, *ollamatest.Fake) {
	f := ollamatest.NewFake(t, replies...)
	r := newRigWith(t, func(c *Config) {
		c.Backend, c.Tools = ollama.New(f.Client(), ollamatest.TestModel, ollama.Options{}), tools
		if ask {
			askModel(c)
		}
	})
	return r, f
}

const hardToBreathe = `{"reply":"It is hard to breathe.","entities_to_update":{},"derived_entities_to_update":{}}`

// A model that can call tools is offered them without the output format, so it may answer in
// plain words: ward counts the broken format for that agent and asks again under the format,
// with the same tools so the prompt's start stays cached, and the trainee gets the reply object's
// reply. The first call says the model may be loading.
func TestAToolCapableModelStillMeetsTheOutputContract(t *testing.T) {
	r, f := onFake(t, true, false, ollamatest.Answer("It hurts to breathe, doctor."), ollamatest.Answer(hardToBreathe))
	r.turn("/admit patient_1 asthma-exacerbation")
	events := r.turn("how are you feeling?")
	said := onlyOne(t, agentMessages(events), "reply")
	if said.Agent != agents.AgentPatient || said.Text != "It is hard to breathe." {
		t.Errorf("said %+v, want the Patient's reply from the constrained call", said)
	}
	reqs := f.Requests()
	if len(reqs) != 2 || len(reqs[0].Tools) == 0 || len(reqs[0].Format) != 0 || len(reqs[1].Tools) != len(reqs[0].Tools) || len(reqs[1].Format) == 0 {
		t.Fatalf("requests: %d; want tools without a format, then the same tools (the cached prompt start) with the format", len(reqs))
	}
	var loading []string
	for _, ev := range events {
		if p, ok := ev.(ProgressEvent); ok && p.Stage == "load" {
			loading = append(loading, p.Text)
		}
	}
	if len(loading) != 1 || !strings.Contains(loading[0], ollamatest.TestModel) {
		t.Errorf("load notes %q, want one, before the model's first call only", loading)
	}
	if n := r.s.entities().Stats.FormatFailures[agents.AgentPatient]; n != 1 {
		t.Errorf("%d format failures counted for the Patient, want 1", n)
	}
	report, err := records.ReadStats(r.store, records.Window{}, records.SeedThresholds)
	if err != nil || report.Total.FormatFailures[agents.AgentPatient] != 1 {
		t.Errorf("ward stats: %+v (%v), want the Patient's format failure", report.Total, err)
	}
}

// Every call to a model is a turn's llm_call event with its latency and an entry in the
// inspector: the analyzer's and the router's too, not only the agents'.
func TestAnalyzerAndRouterCallsAreCounted(t *testing.T) {
	r, _ := onFake(t, false, true,
		ollamatest.Answer(`{"action":"SWITCH_EXISTING","patient_id":"patient_1","reasoning":"the first patient"}`),
		ollamatest.Answer(hardToBreathe),
		ollamatest.Answer(`{"verdict":"Preceptor","reasoning":"coaching"}`),
		ollamatest.Answer(hardToBreathe))
	r.turn("/admit patient_1 asthma-exacerbation")
	r.turn("/admit patient_2 anaphylaxis")
	for _, tc := range []struct{ line, want string }{ // in the order of the fake's replies
		{"let's compare patient_1 and patient_2", "analyzer"},
		{"hmm, what do you all think we should be doing for her now?", "router"},
	} {
		line, want := tc.line, tc.want
		var called []string
		loadNotes := 0
		for _, ev := range r.turn(line) {
			if p, ok := ev.(ProgressEvent); ok && p.Stage == "load" {
				loadNotes++
			}
			if c, ok := ev.(LLMCallEvent); ok {
				// The analyzer's is the model's first call: the trainee hears it may be loading
				// before it, not only before an agent's.
				if len(called) == 0 && want == "analyzer" && loadNotes != 1 {
					t.Errorf("%d load notes before the model's first call (the %s's), want 1", loadNotes, c.Agent)
				}
				called = append(called, c.Agent)
				if c.LatencyMS <= 0 {
					t.Errorf("the %s call reports no latency", c.Agent)
				}
			}
		}
		if !slices.Contains(called, want) {
			t.Errorf("%q: llm_call events for %v, want the %s's among them", line, called, want)
		}
		if want == "router" && loadNotes != 0 {
			t.Errorf("%q: %d load notes once the model has answered, want none", line, loadNotes)
		}
		turns := r.s.turns
		var inspected []string
		for _, c := range turns[len(turns)-1].Calls {
			inspected = append(inspected, c.Trace.Agent)
		}
		if !slices.Equal(inspected, called) {
			t.Errorf("%q: the inspector shows calls %v, the events %v", line, inspected, called)
		}
	}
}

// The Patient hears what was said to them: a line that only takes the trainee to a patient
// reaches the Patient as their arrival, while a line with more in it reaches them whole.
func TestTheFirstPatientCallHearsTheArrivalNotTheCommand(t *testing.T) {
	r, f := onFake(t, false, false, ollamatest.Answer(hardToBreathe))
	for _, line := range []string{"review patient_1", "switch to patient_2 and ask how she is feeling"} {
		before := len(f.Requests())
		r.turn(line)
		reqs := f.Requests()[before:]
		if len(reqs) == 0 {
			t.Fatalf("%q made no call", line)
		}
		heard := reqs[0].Messages[len(reqs[0].Messages)-1].Content
		want := arrivalCue
		if strings.Contains(line, "ask") {
			want = line
		}
		if heard != want {
			t.Errorf("after %q the Patient heard %q, want %q", line, heard, want)
		}
	}
}

// askModel wires the model's analyzer and router, as main does.
func askModel(c *Config) {
	c.Observer = &llm.Observer{}
	traced := llm.Traced(c.Backend, c.Trace, c.Observer)
	c.Analyzer = analyzer.NewAnalyzer(analyzer.NewLLMAnalyzer(traced, analyzer.LLMAnalyzerConfig{NumCtx: c.NumCtx}))
	if c.Team == nil {
		c.Team, _ = agents.LoadTeam("")
	}
	c.Team.Router = traced
}
