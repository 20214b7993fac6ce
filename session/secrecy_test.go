package session

import (
	"context"
	"errors"
	"maps"
	"path/filepath"
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
	"github.com/ward-sim/ward/persist"
	sc "github.com/ward-sim/ward/session/scenario"
)

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

// secretsOf are what no prompt may hold before the debrief: the scenarios' identifiers and
// titles, the words that name their diagnoses, and their states' names, save a state named by
// what the trainee is told of some patient at admission ("severe pain", "worsening breath") or
// finds at the bedside (a state's signs or examination findings: "seizing", "each paced beat").
func secretsOf(scenarios ...*sc.Scenario) []string {
	told := ""
	for _, s := range scenarios {
		told += " " + strings.ToLower(s.Presentation+" "+s.ChiefComplaint+" "+strings.Join(slices.Collect(maps.Values(s.Findings)), " "))
		for _, st := range s.States {
			told += " " + strings.ToLower(strings.Join(st.Signs, " ")+" "+strings.Join(slices.Collect(maps.Values(st.Findings)), " "))
		}
	}
	var out []string
	for _, s := range scenarios {
		out = append(out, s.ID, s.Title)
		out = append(out, s.DiagnosisTerms()...)
		for _, name := range s.StateNames() {
			if !sc.ContainsWord(told, name) {
				out = append(out, name)
			}
		}
	}
	return out
}

// What a model sees is what it may say: for every built-in scenario (the library as it is, so a
// scenario added later is covered) and every agent of the team, the analyzer and the router
// included, no prompt before the debrief holds the scenario's identifier, title, diagnosis or
// state names — neither for the patient being seen nor for another on the roster.
func TestNoPromptBeforeTheDebriefHoldsTheDiagnosis(t *testing.T) {
	t.Parallel() // its own rigs: see sample_test.go
	list := newRig(t).s.cfg.Scenarios.List()
	team, err := agents.LoadTeam("")
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range list {
		if !checkedUnderRace(i, 4) {
			continue
		}
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
			// The other patient's diagnosis may be a word of this patient's own story ("childhood
			// asthma"), which their persona rightly holds.
			story := strings.ToLower(strings.Join(s.History, " "))
			for _, d := range s.Disclosures {
				story += " " + strings.ToLower(d.Text)
			}
			var secrets []string
			for _, secret := range secretsOf(s, other) {
				if !slices.Contains(secretsOf(s), secret) && sc.ContainsWord(story, strings.ToLower(secret)) {
					continue
				}
				secrets = append(secrets, secret)
			}
			seen := map[string]bool{}
			for _, req := range rec.reqs {
				seen[req.Agent] = true
				for _, m := range req.Messages {
					lower := strings.ToLower(m.Content)
					for _, secret := range secrets {
						if sc.ContainsWord(lower, strings.ToLower(secret)) {
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

// A trainee's inspector shows the engine's line and the Patient's persona masked, with a note
// that they are, and a reply ward held back masked too; the instructor's shows them as they are.
func TestTheInspectorMasksTheEnginesSecretsForATrainee(t *testing.T) {
	for _, instructor := range []bool{false, true} {
		r := newRigWith(t, func(c *Config) { c.Instructor = instructor })
		r.turn("/admit patient_1 anaphylaxis")
		r.turn("hello, what's happened today?")
		rec := r.s.Turns()[len(r.s.Turns())-1]
		var static string
		for _, c := range rec.Calls {
			if c.Trace.Agent == agents.AgentPatient {
				static = c.Trace.Messages[0].Content + c.Trace.SectionTexts[agents.SectionStatic]
			}
		}
		if static == "" {
			t.Fatal("the Patient was not called")
		}
		secretShown := strings.Contains(rec.Engine, "anaphylaxis") || strings.Contains(static, "peanuts")
		noted := strings.Contains(rec.Engine, "masked in a trainee's view") && strings.Contains(static, agents.PersonaHeading+"[masked in a trainee's view")
		if instructor != secretShown || instructor == noted {
			t.Errorf("instructor %v: engine %q, persona shown %v, masked noted %v", instructor, rec.Engine, secretShown, noted)
		}
	}
	if got := maskTrace(llm.TraceRecord{Reply: memory.Message{Content: "SpO2 61 %"}}, true).Reply.Content; strings.Contains(got, "61") {
		t.Errorf("a held reply shows in a trainee's inspector: %q", got)
	}
}

// The decision event's reasoning, which a model writes, names no roster patient's diagnosis in a
// trainee's view.
func TestTheDecisionsReasoningIsMaskedForATrainee(t *testing.T) {
	f := ollamatest.NewFake(t, ollamatest.Answer(`{"action":"SWITCH_EXISTING","patient_id":"patient_1","reasoning":"patient_1 is the anaphylaxis case"}`))
	for _, instructor := range []bool{false, true} {
		r := newRigWith(t, func(c *Config) {
			c.Instructor = instructor
			c.Analyzer = analyzer.NewAnalyzer(analyzer.NewLLMAnalyzer(ollama.New(f.Client(), ollamatest.TestModel, ollama.Options{}), analyzer.LLMAnalyzerConfig{}))
		})
		r.turn("/admit patient_1 anaphylaxis")
		r.turn("/admit patient_2 asthma-exacerbation")
		var reasoning string
		for _, d := range only[DecisionEvent](r.turn("let's compare patient_1 and patient_2")) {
			reasoning = d.Reasoning
		}
		if shown := strings.Contains(reasoning, "anaphylaxis"); shown != instructor || reasoning == "" {
			t.Errorf("instructor %v: the decision's reasoning is %q", instructor, reasoning)
		}
	}
}

// A shift of an encrypted database is not traced: a trace would hold its prompts in plain text.
func TestAnEncryptedShiftIsNotTraced(t *testing.T) {
	store, err := persist.Open(filepath.Join(t.TempDir(), "ward.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if err := store.Protect([]byte("the night sister holds the keys")); err != nil {
		t.Fatal(err)
	}
	if err := store.Enrol("alice", []byte("alice on the night shift")); err != nil {
		t.Fatal(err)
	}
	trace, err := llm.OpenTrace(filepath.Join(t.TempDir(), "trace.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Start(Config{Store: store, Trace: trace}); !errors.Is(err, ErrTraceOfEncrypted) || !strings.Contains(err.Error(), "plain text") {
		t.Errorf("a traced shift of an encrypted database: %v", err)
	}
}

// What the Patient may not say yet: an allergen before allergies are asked about, a medicine
// before medicines are; once asked, or once the trainee names it, it may be said.
func TestUntoldFollowsTheQuestions(t *testing.T) {
	r := newRig(t)
	r.turn("/admit patient_1 anaphylaxis")
	e := r.engine("patient_1")
	if got := untold(e, nil, ""); !slices.Contains(got, "peanuts") || !slices.Contains(got, "peanut") {
		t.Errorf("before any question the Patient may say %v", got)
	}
	if got := untold(e, nil, "is it a peanut allergy?"); slices.Contains(got, "peanut") {
		t.Errorf("the trainee named it, yet it is held back: %v", got)
	}
	r.turn("any allergies?")
	if got := untold(e, nil, ""); slices.Contains(got, "peanuts") {
		t.Errorf("allergies were asked about, yet the allergen is held back: %v", got)
	}
}
