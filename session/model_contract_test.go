package session

import (
	"slices"
	"strings"
	"testing"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/analyzer"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/agents/ollama"
	"github.com/ward-sim/ward/agents/ollamatest"
	"github.com/ward-sim/ward/session/records"
)

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
	report, err := records.ReadStats(r.store)
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
