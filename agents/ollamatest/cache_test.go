package ollamatest_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/template"
	"github.com/ward-sim/ward/agents/ollamatest"
	"github.com/ward-sim/ward/memory"
)

// The KV-cache test plays one 20-turn scenario three times, once per history strategy, and
// measures prompt_eval_duration per prompt token. prompt_eval_count counts the whole prompt even
// when Ollama reused its cache, so a cache hit shows as a small duration per token.

const (
	cacheTurns      = 20
	turnSimSeconds  = 120 // each turn is two sim minutes, so the seed's window grows to 10 at turn 6
	replyNumPredict = 48
)

// The strategies are ward's own windows (memory package) and, for comparison, no window at all.
type historyStrategy struct {
	name   string
	window func(history []api.Message, elapsed float64) []api.Message
}

var strategies = []historyStrategy{
	{"cache-aware block window", memory.DefaultWindow().Apply},
	{"seed sliding window", memory.SeedWindow().Apply},
	{"full history", func(h []api.Message, _ float64) []api.Message { return h }},
}

// staticSystem stands in for ward's core instructions and scenario baseline: byte-identical on
// every turn, and the bulk of the prompt, as in ward.
var staticSystem = strings.Join([]string{
	"You play a patient in a clinical training simulation. Stay in character, answer as the patient",
	"would, in plain words, and never give medical advice to the trainee. Describe only what the",
	"patient can feel, see or remember. When the trainee examines you, react to the examination.",
	"When the trainee gives a treatment, describe how you feel afterwards, not what the drug does.",
	"Keep answers short: two to four sentences unless the trainee asks for a story.",
	"",
	"Scenario baseline. Name: Ruth Okafor, 67 years old, retired school teacher. Brought in by",
	"ambulance after two hours of central chest pressure that spreads to the left arm and jaw,",
	"with sweating and nausea. History: type 2 diabetes on metformin, high blood pressure on",
	"ramipril, a hip replacement eight years ago. Allergy: penicillin, which gave her a widespread",
	"rash. Smoked twenty a day until ten years ago. Lives with her husband, who drove behind the",
	"ambulance and is in the waiting room. She is frightened, speaks in short sentences when the pain",
	"peaks, and keeps asking whether she is having a heart attack. She took one aspirin at home",
	"because her neighbour told her to. Arrival vitals: heart rate 104, blood pressure 158/94,",
	"respiratory rate 22, oxygen saturation 94% on air, temperature 36.9, alert, pain 8 out of 10.",
	"",
	"Rules of the simulation. Vitals come only from the engine; never invent numbers. If the trainee",
	"asks about something the patient would not know, say so. If the trainee is rude, the patient",
	"becomes quieter. If the trainee explains what is happening, the patient calms a little.",
}, "\n")

var traineeTurns = []string{
	"Hello, I'm one of the nurses. Can you tell me what brought you in today?",
	"Where exactly is the pain, and does it go anywhere else?",
	"I'm going to put you on the monitor and check your vitals.",
	"Do you have any allergies to medicines?",
	"What medications do you take every day?",
	"Give aspirin 300 mg chewed, and attach oxygen via nasal cannula at 2 L/min.",
	"How is the pain now, from 0 to 10?",
	"Has anything like this happened before?",
	"Checking vitals again.",
	"Give GTN 400 micrograms sublingual.",
	"Any shortness of breath or dizziness?",
	"When did you last eat or drink anything?",
	"I'm drawing bloods for troponin now.",
	"Your husband is outside; would you like him to come in?",
	"Give morphine 2.5 mg IV for the pain.",
	"Checking vitals.",
	"Does the pain change when you breathe in deeply?",
	"The cardiology team is on the way. Any questions for me?",
	"How are you feeling now?",
	"We're taking you to the cath lab. Is there anything you need?",
}

// dynamicContext stands in for the per-turn section: measured vitals, selected memory, snapshot.
func dynamicContext(turn int) string {
	return fmt.Sprintf("Sim time T+%02d:00. Measured vitals: HR %d, BP %d/%d, RR %d, SpO2 %d%%. "+
		"Remember: penicillin allergy (rash). Last actions: %s",
		turn*turnSimSeconds/60, 104-turn, 158-turn, 94-turn/2, 22-turn/4, 94+turn/5, traineeTurns[max(0, turn-1)])
}

type turnTiming struct {
	promptTokens int
	promptEval   time.Duration
	uncached     float64 // share of the rendered prompt that is not a prefix of the previous turn's
}

func (tt turnTiming) perToken() time.Duration {
	return tt.promptEval / time.Duration(max(1, tt.promptTokens))
}

// playScenario runs the 20 turns with one history strategy. It starts from a freshly loaded model
// warmed up by a request of the same length that shares no prefix with the scenario, so turn 1
// is cold for the KV cache but pays no one-off start-up costs: the cold figure measures what the
// cache saves, not what loading costs. Every prompt is: static system text, window, dynamic
// context, user message.
func playScenario(ctx context.Context, c *api.Client, s historyStrategy) ([]turnTiming, error) {
	if err := unload(ctx, c); err != nil {
		return nil, err
	}
	warmUp := []api.Message{{Role: "user", Content: staticSystem}}
	if _, err := chat(ctx, c, &api.ChatRequest{Model: ollamatest.ModelName, Messages: warmUp, Options: options(replyNumPredict)}); err != nil {
		return nil, err
	}
	tmpl, err := template.Parse(ollamatest.Template)
	if err != nil {
		return nil, err
	}
	var history []api.Message
	var timings []turnTiming
	var cached string // what the server's KV cache holds after the previous turn
	for turn := range cacheTurns {
		user := api.Message{Role: "user", Content: traineeTurns[turn]}
		msgs := []api.Message{{Role: "system", Content: staticSystem}}
		msgs = append(msgs, s.window(history, float64(turn*turnSimSeconds))...)
		msgs = append(msgs, api.Message{Role: "system", Content: dynamicContext(turn)}, user)

		r, err := chat(ctx, c, &api.ChatRequest{Model: ollamatest.ModelName, Messages: msgs, Options: options(replyNumPredict)})
		if err != nil {
			return nil, fmt.Errorf("%s, turn %d: %w", s.name, turn+1, err)
		}
		var b strings.Builder
		if err := tmpl.Execute(&b, template.Values{Messages: msgs}); err != nil {
			return nil, err
		}
		prompt := b.String()
		timings = append(timings, turnTiming{
			promptTokens: r.final.PromptEvalCount,
			promptEval:   r.final.PromptEvalDuration,
			uncached:     1 - float64(commonPrefix(cached, prompt))/float64(len(prompt)),
		})
		cached = prompt + r.content
		history = append(history, user, api.Message{Role: "assistant", Content: r.content})
	}
	return timings, nil
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

type cacheResult struct {
	name                string
	firstTokens         int
	lastTokens          int
	cold                time.Duration // per token, turn 1
	laterMean, laterMed time.Duration // per token, turns 2–20
	laterUncached       float64       // mean over turns 2–20
	laterTurn           time.Duration // median prompt_eval_duration of turns 2–20
}

func summarise(name string, ts []turnTiming) cacheResult {
	later := make([]time.Duration, 0, len(ts)-1)
	var whole []time.Duration
	var sum time.Duration
	var uncached float64
	for _, t := range ts[1:] {
		later = append(later, t.perToken())
		whole = append(whole, t.promptEval)
		sum += t.perToken()
		uncached += t.uncached
	}
	return cacheResult{
		name:          name,
		firstTokens:   ts[0].promptTokens,
		lastTokens:    ts[len(ts)-1].promptTokens,
		cold:          ts[0].perToken(),
		laterMean:     sum / time.Duration(len(later)),
		laterMed:      median(later),
		laterUncached: uncached / float64(len(later)),
		laterTurn:     median(whole),
	}
}

func median(ds []time.Duration) time.Duration {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return ds[len(ds)/2]
}

func TestLiveKVCacheReuse(t *testing.T) {
	c := liveClient(t)
	var results []cacheResult
	var colds []time.Duration
	for _, s := range strategies {
		ts, err := playScenario(t.Context(), c, s)
		if err != nil {
			t.Fatal(err)
		}
		r := summarise(s.name, ts)
		results = append(results, r)
		colds = append(colds, r.cold)
	}
	// Turn 1 is the same prompt for every strategy. Other work on the machine can only slow a
	// run down, so the fastest of the three cold runs is the best estimate of the cold cost; it
	// also errs against the cache (a lower cold figure makes the later/cold ratio larger).
	cold := slices.Min(colds)

	report := cacheReport(results, cold)
	if path := os.Getenv("WARD_CACHE_REPORT"); path != "" {
		if err := os.WriteFile(path, []byte(report), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Log("\n" + report)

	if aware := results[0]; aware.laterMed >= cold {
		t.Errorf("cache-aware window: later turns take %s per prompt token, cold turn %s: the KV cache was not reused",
			aware.laterMed, cold)
	}
}

func cacheReport(results []cacheResult, cold time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "KV-cache reuse against `ollama serve` v0.6.5 and the tiny model (%s), %d CPU cores, num_ctx %d. ",
		ollamatest.ModelName, runtime.NumCPU(), numCtx)
	fmt.Fprintf(&b, "%d turns per history: static system text of %d characters, dynamic context of about %d, "+
		"replies of %d tokens. ", cacheTurns, len(staticSystem), len(dynamicContext(cacheTurns/2)), replyNumPredict)
	b.WriteString("Per-token figures are prompt_eval_duration / prompt_eval_count. ")
	fmt.Fprintf(&b, "Turn 1 is cold (a loaded, warmed-up model whose KV cache shares no prefix with it): "+
		"%.2f µs/token (%d ms), the fastest of the three cold runs (%s µs/token) of its %d-token prompt. ",
		micros(cold), (cold * time.Duration(results[0].firstTokens)).Milliseconds(), coldList(results), results[0].firstTokens)
	fmt.Fprintf(&b, "Later = turns 2–%d. \"New\" is the share of the rendered prompt that is not a prefix of the "+
		"previous turn's prompt and reply: the part the cache cannot cover. ", cacheTurns)
	b.WriteString("Target: later ≤ 15% of cold, cache-aware.\n\n")

	b.WriteString("| history | prompt tokens turn 1 → 20 | new (later, mean) | later mean µs/token | " +
		"later median µs/token | later median / cold | later median prompt eval per turn |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, r := range results {
		fmt.Fprintf(&b, "| %s | %d → %d | %.0f%% | %.2f | %.2f | %.1f%% | %d ms |\n",
			r.name, r.firstTokens, r.lastTokens, 100*r.laterUncached, micros(r.laterMean), micros(r.laterMed),
			100*float64(r.laterMed)/float64(cold), r.laterTurn.Milliseconds())
	}
	return b.String()
}

func coldList(results []cacheResult) string {
	var parts []string
	for _, r := range results {
		parts = append(parts, fmt.Sprintf("%.2f", micros(r.cold)))
	}
	return strings.Join(parts, ", ")
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
