package session

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/analyzer"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/agents/offline"
	"github.com/ward-sim/ward/agents/ollama"
	"github.com/ward-sim/ward/agents/ollamatest"
	"github.com/ward-sim/ward/memory"
	sc "github.com/ward-sim/ward/session/scenario"
)

// leaky is what a model that ignores its facts might say: vitals it made up, the diagnosis, an
// allergy before anyone asked, and a right-to-left override that makes "61" read "16".
const leaky = "My heart rate is 212 and my SpO2 \u202e61\u202c %. I think I have anaphylaxis. I'm allergic to peanuts."

// A model speaking Ollama's NDJSON over HTTP says nothing but leaks: none of it reaches the
// screen, the store or an export. Each reply is refused, asked again once, then the engine's own
// line stands in; ward stats counts every case.
func TestALeakingModelReachesNoScreenStoreOrExport(t *testing.T) {
	body, _ := json.Marshal(map[string]any{"reply": leaky, "entities_to_update": map[string]any{}, "derived_entities_to_update": map[string]any{}})
	f := ollamatest.NewFake(t, ollamatest.Streamed(string(body[:40]), string(body[40:90]), string(body[90:])))
	r := newRigWith(t, func(c *Config) { c.Backend = ollama.New(f.Client(), ollamatest.TestModel, ollama.Options{}) })
	index := slices.IndexFunc(r.s.cfg.Scenarios.List(), func(s *sc.Scenario) bool { return s.ID == "anaphylaxis" })
	l := NewLive(r.s, nil)
	var screen []string
	for _, line := range []string{"/admit patient_1 " + strconv.Itoa(index+1), "hello, what happened today?", "check vitals", "how is your breathing?"} {
		for _, u := range drain(l.Submit(context.Background(), line)) {
			screen = append(screen, u.Text)
		}
	}
	for _, m := range l.Snapshot().Chat {
		screen = append(screen, m.Content)
	}
	dump, err := r.store.Dump(r.s.ID())
	if err != nil {
		t.Fatal(err)
	}
	// What the store holds of what was said: the messages, memory and entities. (The engine's own
	// snapshot and the registry name the scenario: they are the engine's, not a model's.)
	stored, _ := json.Marshal([]any{dump.SessionHistory, dump.Histories, dump.Memory, dump.Entities})
	transcript, err := Export(r.store, "patient_1")
	if err != nil {
		t.Fatal(err)
	}
	for where, text := range map[string]string{"the screen": strings.Join(screen, "\n"), "the store": string(stored), "the export": transcript.Markdown()} {
		lower := strings.ToLower(text)
		for _, leak := range []string{"212", "spo2 61", "anaphylaxis", "allergic to peanuts", "\u202e", `\u202e`} {
			if strings.Contains(lower, leak) {
				t.Errorf("%s holds %q", where, leak)
			}
		}
	}
	if len(f.Requests()) < 6 {
		t.Errorf("%d calls: each refused reply should be asked again once", len(f.Requests()))
	}
	stats, err := ReadStats(r.store)
	if err != nil {
		t.Fatal(err)
	}
	held := stats.Total.Held
	if held[heldNumber] == 0 || held[heldReplaced] == 0 {
		t.Errorf("ward stats counts %v, want the invented numbers and the replacements counted", held)
	}
	patient := slices.IndexFunc(dump.Histories["patient_1"], func(m memory.Message) bool { return m.Agent == agents.AgentPatient })
	if patient < 0 {
		t.Fatal("the Patient's replacement line was not stored")
	}
}

// recorder keeps every request a backend is sent.
type recorder struct {
	llm.Backend
	mu   sync.Mutex
	reqs []llm.Request
}

func (r *recorder) Chat(ctx context.Context, req llm.Request, onDelta func(string)) (llm.Response, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	return r.Backend.Chat(ctx, req, onDelta)
}

// secretsOf are what no prompt may hold before the debrief: the scenario's identifier and title,
// the words that name its diagnosis, and its states' names that say more than an everyday word.
func secretsOf(s *sc.Scenario) []string {
	out := append([]string{s.ID, s.Title}, diagnosisTerms(s)...)
	for _, name := range s.StateNames() {
		if strings.Contains(name, "-") {
			out = append(out, name)
		}
	}
	return out
}

// What a model sees is what it may say: for every built-in scenario (the library as it is, so a
// scenario added later is covered) and every agent of the team, the analyzer and the router
// included, no prompt before the debrief holds the scenario's identifier, title, diagnosis or
// state names — neither for the patient being seen nor for another on the roster.
func TestNoPromptBeforeTheDebriefHoldsTheDiagnosis(t *testing.T) {
	list := newRig(t).s.cfg.Scenarios.List()
	team := mustTeam(t)
	for i, s := range list {
		other := list[(i+1)%len(list)]
		t.Run(s.ID, func(t *testing.T) {
			rec := &recorder{Backend: offline.New()}
			r := newRigWith(t, func(c *Config) {
				c.Backend, c.Seed = rec, 1
				c.Team, _ = agents.LoadTeam("")
				c.Team.Router = rec
				c.Analyzer = analyzer.NewAnalyzer(analyzer.NewLLMAnalyzer(rec, analyzer.LLMAnalyzerConfig{}))
			})
			for _, line := range []string{
				"/admit patient_2 " + strconv.Itoa((i+1)%len(list)+1), "/admit patient_1 " + strconv.Itoa(i+1),
				"hello, what's happened today?", "any allergies? what medicines do you take?", "check vitals",
				"@Nurse what do you see?", "@Pharmacist anything I should avoid giving?", "@Monitor how are the numbers?",
				"@Preceptor any hints?", "/wait 20m", "how are you feeling now?", "what should I do next?", "let's compare patient_1 and patient_2",
			} {
				r.turn(line)
			}
			seen := map[string]bool{}
			for _, req := range rec.reqs {
				seen[req.Agent] = true
				for _, m := range req.Messages {
					lower := strings.ToLower(m.Content)
					for _, secret := range append(secretsOf(s), secretsOf(other)...) {
						if containsWord(lower, strings.ToLower(secret)) {
							t.Errorf("the %s's prompt holds %q:\n%s", req.Agent, secret, m.Content)
						}
					}
				}
			}
			for _, name := range append(team.Names(), "analyzer") {
				if !seen[name] {
					t.Errorf("no prompt of the %s was seen; the test must reach every agent", name)
				}
			}
		})
	}
}
