package session

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ward-sim/ward/agents/ollama"
	"github.com/ward-sim/ward/agents/ollamatest"
)

// agentScript interleaves the agents as a trainee's questions do: the rules send bedside talk to
// the Patient and a mention to its agent, so one agent's call sits between two of another's.
var agentScript = []string{
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
}

// agentSlots are the OLLAMA_NUM_PARALLEL settings compared: one sequence, and one per agent (with
// OLLAMA_MULTIUSER_CACHE, which the test server sets whenever there is more than one).
var agentSlots = []int{1, 5}

// TestLiveCachePerAgent measures, per agent, how much of its prompt the server evaluates again on
// its later calls when other agents speak in between: with one sequence each call evicts the
// others' cache; with one per agent each keeps its own. Per token = prompt_eval_duration /
// prompt_eval_count; an agent's first call (after an unrelated warm-up) is its cold reference.
func TestLiveCachePerAgent(t *testing.T) {
	if !ollamatest.Live() {
		t.Skip("set " + ollamatest.LiveEnv + "=1 to run against a real ollama serve")
	}
	var report strings.Builder
	report.WriteString("\n### Cache per agent: later calls / that agent's cold call, per prompt token (median)\n\n")
	report.WriteString("| OLLAMA_NUM_PARALLEL (more than 1: with OLLAMA_MULTIUSER_CACHE=1) | Patient | Monitor | Pharmacist | all agents |\n| --- | --- | --- | --- | --- |\n")
	for _, slots := range agentSlots {
		ratios := playAgents(t, slots)
		all := slices.Concat(slices.Collect(maps.Values(ratios))...)
		fmt.Fprintf(&report, "| %d | %s | %s | %s | %s |\n", slots,
			percent(ratios["Patient"]), percent(ratios["Monitor"]), percent(ratios["Pharmacist"]), percent(all))
		if slots > 1 && medianOf(all) >= 0.5 {
			t.Errorf("with %d sequences, later calls still take %s of their agent's cold call per token: the server did not keep each agent's cache",
				slots, percent(all))
		}
	}
	t.Log(report.String())
	if path := os.Getenv("WARD_CACHE_REPORT"); path != "" {
		appendFile(t, path, report.String())
	}
}

// playAgents plays agentScript on a server with slots sequences and returns, per agent, each later
// call's per-token prompt evaluation as a share of that agent's first call.
func playAgents(t *testing.T, slots int) map[string][]float64 {
	srv := ollamatest.StartForTest(t, slots)
	backend := ollama.New(srv.Client, ollamatest.ModelName, ollama.Options{})
	r := scriptRig(t, func(c *Config) {
		c.Backend, c.NumCtx, c.OutputBudget = backend, liveNumCtx, liveOutputBudget
	})
	if err := coldStart(t.Context(), srv, backend); err != nil {
		t.Fatal(err)
	}
	cold := map[string]time.Duration{}
	ratios := map[string][]float64{}
	for i, line := range agentScript {
		if i > 0 {
			r.mustTurn("/wait 1m")
		}
		r.mustTurn(line)
		turns := r.s.Turns()
		for _, c := range turns[len(turns)-1].Calls {
			m := c.Trace.Metrics
			if m.PromptEvalCount == 0 {
				t.Fatalf("%q: %s's call carried no prompt metrics", line, c.Trace.Agent)
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
