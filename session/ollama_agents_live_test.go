package session

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/analyzer"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/agents/ollama"
	"github.com/ward-sim/ward/agents/ollamatest"
)

// cacheRun is one cache measurement: a script that interleaves the model's callers as a
// trainee's questions do, so one's call sits between two of another's, and the
// OLLAMA_NUM_PARALLEL settings it is played on (more than one: with OLLAMA_MULTIUSER_CACHE, which
// the test server then sets).
type cacheRun struct {
	script  []string
	callers []string // the report's columns
	slots   []int
	wired   func(*Config, llm.Backend)
}

// threeAgents alternates the Patient (bedside talk) with the Monitor and the Pharmacist
// (mentions), on one sequence and on one per agent.
var threeAgents = cacheRun{
	script: []string{
		"How is your breathing now?",
		"@Monitor read me her latest vitals.",
		"Do you have any allergies to medicines?",
		"@Pharmacist is she on anything that matters for the nebulisers?",
		"When did this start?",
		"@Monitor what is the trend?",
		"What medications do you take?",
		"@Pharmacist anything else I should know about her medicines?",
		"Is the tightness in your chest any better?",
		"@Monitor any change since?",
		"Have you been in hospital with your asthma before?",
		"@Pharmacist thank you, anything to watch for?",
	},
	callers: []string{agents.AgentPatient, agents.AgentMonitor, agents.AgentPharmacist},
	slots:   []int{1, 5},
	wired:   func(*Config, llm.Backend) {},
}

// everyCaller adds the Preceptor and the Orchestrator (mentions), the router (a question for the
// team) and the analyzer (talk of "context" without a patient), in three rounds, on one sequence,
// the five the README advised before this was measured, and one per caller.
var everyCaller = cacheRun{
	script: slices.Repeat([]string{
		"How is your breathing now?",
		"@Monitor read me her latest vitals.",
		"@Pharmacist is she on anything that matters for the nebulisers?",
		"What should we be doing for her now?",
		"@Preceptor what does the guidance say about her next step?",
		"Keeping the context of your last admission in mind, is the tightness any better?",
		"@Orchestrator where are we with the plan?",
	}, 3),
	callers: []string{agents.AgentPatient, agents.AgentMonitor, agents.AgentPharmacist, agents.AgentPreceptor,
		agents.AgentOrchestrator, "analyzer", "router"},
	slots: []int{1, 5, 7},
	wired: func(c *Config, backend llm.Backend) {
		c.Observer = &llm.Observer{}
		traced := llm.Traced(capped{backend}, nil, c.Observer)
		c.Analyzer = analyzer.NewAnalyzer(analyzer.NewLLMAnalyzer(traced, analyzer.LLMAnalyzerConfig{NumCtx: c.NumCtx}))
		c.Team, _ = agents.LoadTeam("")
		c.Team.Router = traced
	},
}

// TestLiveCachePerAgent measures, per agent, how much of its prompt the server evaluates again on
// its later calls when other agents speak in between: with one sequence each call evicts the
// others' cache; with one per agent each keeps its own. Per token = prompt_eval_duration /
// prompt_eval_count; an agent's first call (after an unrelated warm-up) is its cold reference.
// It takes about five minutes on two cores, so CI leaves it out (BENCHMARKS.md has its figures).
func TestLiveCachePerAgent(t *testing.T) {
	if !ollamatest.Live() || !ollamatest.Full() {
		t.Skip("set " + ollamatest.LiveEnv + "=1 and " + ollamatest.FullEnv + "=1 to run it")
	}
	for slots, all := range measureCache(t, threeAgents) {
		if slots > 1 && medianOf(all) >= 0.5 {
			t.Errorf("with %d sequences, later calls still take %s of their agent's cold call per token: the server did not keep each agent's cache",
				slots, percent(all))
		}
	}
}

// TestLiveCacheEveryCaller measures the same with every caller of the model between two of the
// Patient's turns. It takes about nine minutes on two cores (run it with -timeout 30m), so CI
// leaves it out. It asserts only that every call carried its figures: what it found is a result
// to report, not to hold (BENCHMARKS.md).
func TestLiveCacheEveryCaller(t *testing.T) {
	if !ollamatest.Live() || os.Getenv("WARD_CACHE_EVERY_CALLER") == "" {
		t.Skip("set " + ollamatest.LiveEnv + "=1 and WARD_CACHE_EVERY_CALLER=1 to run it")
	}
	measureCache(t, everyCaller)
}

// measureCache plays run on each of its settings and reports each caller's median; it returns
// every later call's ratio, by setting.
func measureCache(t *testing.T, run cacheRun) map[int][]float64 {
	var report strings.Builder
	report.WriteString("\n### Cache per agent: later calls / that agent's cold call, per prompt token (median)\n\n")
	report.WriteString("| OLLAMA_NUM_PARALLEL (more than 1: with OLLAMA_MULTIUSER_CACHE=1) | " + strings.Join(run.callers, " | ") + " | all |\n")
	report.WriteString(strings.Repeat("| --- ", len(run.callers)+2) + "|\n")
	bySetting := map[int][]float64{}
	for _, slots := range run.slots {
		ratios := playAgents(t, slots, run)
		all := slices.Concat(slices.Collect(maps.Values(ratios))...)
		bySetting[slots] = all
		fmt.Fprintf(&report, "| %d |", slots)
		for _, caller := range run.callers {
			fmt.Fprintf(&report, " %s |", percent(ratios[caller]))
		}
		fmt.Fprintf(&report, " %s |\n", percent(all))
	}
	t.Log(report.String())
	if path := os.Getenv("WARD_CACHE_REPORT"); path != "" {
		appendFile(t, path, report.String())
	}
	return bySetting
}

// playAgents plays run's script on a server with slots sequences and returns, per caller, each
// later call's per-token prompt evaluation as a share of that caller's first call.
func playAgents(t *testing.T, slots int, run cacheRun) map[string][]float64 {
	srv := ollamatest.StartForTest(t, slots)
	backend := ollama.New(srv.Client, ollamatest.ModelName, ollama.Options{})
	r := scriptRig(t, func(c *Config) {
		c.Backend, c.NumCtx, c.OutputBudget = backend, liveNumCtx, liveOutputBudget
		run.wired(c, backend)
	})
	if err := coldStart(t.Context(), srv, backend); err != nil {
		t.Fatal(err)
	}
	cold := map[string]time.Duration{}
	ratios := map[string][]float64{}
	for i, line := range run.script {
		if i > 0 {
			r.mustTurn("/wait 1m")
		}
		r.mustTurn(line)
		turns := r.s.turns
		for _, c := range turns[len(turns)-1].Calls {
			m := c.Trace.Metrics
			if m.PromptEvalCount == 0 {
				t.Fatalf("%q: %s's call carried no prompt metrics (done reason %q, error %q)", line, c.Trace.Agent, c.Trace.DoneReason, c.Trace.Error)
			}
			perToken := m.PromptEvalDuration / time.Duration(m.PromptEvalCount)
			agent := c.Trace.Agent
			if _, seen := cold[agent]; !seen {
				cold[agent] = perToken
				continue
			}
			ratios[agent] = append(ratios[agent], float64(perToken)/float64(cold[agent]))
		}
	}
	return ratios
}

// capped holds the analyzer's and router's calls to the live tests' output budget, as the
// session's are: a random model filling a JSON field up to their own larger budgets can end its
// stream without the done chunk, which carries the figures measured here.
type capped struct{ llm.Backend }

func (c capped) Chat(ctx context.Context, req llm.Request, onDelta func(string)) (llm.Response, error) {
	req.Options.NumPredict = min(req.Options.NumPredict, liveOutputBudget)
	return c.Backend.Chat(ctx, req, onDelta)
}

func medianOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	return s[len(s)/2]
}

func percent(xs []float64) string {
	if len(xs) == 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f%%", 100*medianOf(xs))
}

func appendFile(t *testing.T, path, text string) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}
