package live

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/agents/ollama"
	"github.com/ward-sim/ward/agents/ollamatest"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/records"
	sc "github.com/ward-sim/ward/session/scenario"
	"github.com/ward-sim/ward/session/sessiontest"
)

// leaky is what a model that ignores its facts might say: vitals it made up, the diagnosis, an
// allergy before anyone asked, and a right-to-left override that makes "61" read "16".
var inventedRate = regexp.MustCompile(`(^|[^0-9.:])212($|[^0-9])`)

const leaky = "My heart rate is 212 and my SpO2 \u202e61\u202c %. I think I have anaphylaxis. I'm allergic to peanuts."

// A model speaking Ollama's NDJSON over HTTP says nothing but leaks: none of it reaches the
// screen, the store or an export. Each reply is refused, asked again once, then the engine's own
// line stands in; ward stats counts every case.
func TestALeakingModelReachesNoScreenStoreOrExport(t *testing.T) {
	body, _ := json.Marshal(map[string]any{"reply": leaky, "entities_to_update": map[string]any{}, "derived_entities_to_update": map[string]any{}})
	f := ollamatest.NewFake(t, ollamatest.Streamed(string(body[:40]), string(body[40:90]), string(body[90:])))
	tracePath := filepath.Join(t.TempDir(), "trace.jsonl")
	trace, err := llm.OpenTrace(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	r := sessiontest.New(t, func(c *session.Config) {
		c.Backend, c.Trace = ollama.New(f.Client(), ollamatest.TestModel, ollama.Options{}), trace
	})
	lib, err := sc.Load()
	if err != nil {
		t.Fatal(err)
	}
	index := slices.IndexFunc(lib.List(), func(s *sc.Scenario) bool { return s.ID == "anaphylaxis" })
	l := NewLive(r.S, nil)
	var screen []string
	for _, line := range []string{"/admit patient_1 " + strconv.Itoa(index+1), "hello, what happened today?", "check vitals", "how is your breathing?"} {
		for _, u := range drain(l.Submit(context.Background(), line)) {
			screen = append(screen, u.Text)
		}
	}
	for _, m := range l.Snapshot().Chat {
		screen = append(screen, m.Content)
	}
	dump, err := r.Store.Dump(r.S.ID())
	if err != nil {
		t.Fatal(err)
	}
	// What the store holds of what was said: the messages, memory and entities. (The engine's own
	// snapshot and the registry name the scenario: they are the engine's, not a model's.)
	stored, _ := json.Marshal([]any{dump.SessionHistory, dump.Histories, dump.Memory, dump.Entities})
	transcript, err := records.Export(r.Store, "patient_1")
	if err != nil {
		t.Fatal(err)
	}
	for where, text := range map[string]string{"the screen": strings.Join(screen, "\n"), "the store": string(stored), "the export": transcript.Markdown()} {
		lower := strings.ToLower(text)
		// 212 as a number of its own: a stored time's fraction of a second may hold the digits.
		if inventedRate.MatchString(lower) {
			t.Errorf("%s holds the invented heart rate 212", where)
		}
		for _, leak := range []string{"spo2 61", "anaphylaxis", "allergic to peanuts", "\u202e", `\u202e`} {
			if strings.Contains(lower, leak) {
				t.Errorf("%s holds %q", where, leak)
			}
		}
	}
	if len(f.Requests()) < 6 {
		t.Errorf("%d calls: each refused reply should be asked again once", len(f.Requests()))
	}
	stats, err := records.ReadStats(r.Store, records.Window{}, records.SeedThresholds)
	if err != nil {
		t.Fatal(err)
	}
	held := stats.Total.Held
	if held["invented_number"] == 0 || held["replaced_by_engine"] == 0 {
		t.Errorf("ward stats counts %v, want the invented numbers and the replacements counted", held)
	}
	if traced, _ := os.ReadFile(tracePath); !strings.Contains(string(traced), `"held":"the reply quoted a number the record does not hold twice; the engine's own line replaced it"`) {
		t.Error("the trace does not say how the reply was held")
	}
	patient := slices.IndexFunc(dump.Histories["patient_1"], func(m memory.Message) bool { return m.Agent == agents.AgentPatient })
	if patient < 0 {
		t.Fatal("the Patient's replacement line was not stored")
	}
}
