package playback

import (
	"bytes"
	"context"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/analyzer"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/agents/ollama"
	"github.com/ward-sim/ward/agents/ollamatest"
	"github.com/ward-sim/ward/agents/replay"
	"github.com/ward-sim/ward/memory/knowledge"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/live"
	"github.com/ward-sim/ward/session/scenario"
	"github.com/ward-sim/ward/session/sessiontest"
)

// bedsideShift is a recorded shift that takes most of the paths a prompt can take: two patients,
// questions, a compound action, slash commands, the clock passing by /wait and by the screen's
// ticks, a keyboard switch, a retry, the review and the drafts.
func bedsideShift(t *testing.T, s *session.Session) {
	t.Helper()
	ctx := context.Background()
	ignore := func(session.Event) {}
	for _, line := range []string{
		"/admit patient_1 asthma-exacerbation",
		"Hello Maya, what brought you in today?",
		"Do you have any allergies to medicines?",
		"I'm putting an oxygen mask on you at 15 litres and checking your vitals",
		"/vitals",
		"/wait 2m",
		"Give salbutamol 5 mg nebulised.",
		"@Pharmacist is prednisolone 40 mg ok for her?",
		"what should I do next?",
		"/admit patient_2 anaphylaxis",
		"What happened to you?",
	} {
		s.Turn(ctx, line, ignore)
	}
	s.Tick(1500*time.Millisecond, ignore)
	s.Switch("patient_1", ignore)
	s.Tick(2*time.Second, ignore)
	s.Turn(ctx, "How is your breathing now?", ignore)
	s.Retry(ctx, ignore)
	for _, line := range []string{"/aar", "/note", "/handoff sbar"} {
		s.Turn(ctx, line, ignore)
	}
}

// recordShift plays a shift on a fresh session configured by change and returns its trace.
func recordShift(t *testing.T, change func(*session.Config), play func(*testing.T, *session.Session)) []llm.TraceRun {
	t.Helper()
	runs, err := llm.ReadTrace(bytes.NewReader(recordTrace(t, change, play)))
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

// recordTrace is recordShift's trace as written.
func recordTrace(t *testing.T, change func(*session.Config), play func(*testing.T, *session.Session)) []byte {
	t.Helper()
	var trace bytes.Buffer
	r := sessiontest.New(t, func(c *session.Config) {
		c.Trace, c.Seed = llm.NewTraceWriter(&trace), 7
		change(c)
	})
	play(t, r.S)
	return trace.Bytes()
}

// replayShift replays runs on a fresh store with the built-in definitions (or team, when not
// nil); wire completes each run's configuration.
func replayShift(t *testing.T, runs []llm.TraceRun, team *agents.Team, wire func(*session.Config)) *replay.Divergence {
	t.Helper()
	store, err := persist.Open(filepath.Join(t.TempDir(), "replay.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if team == nil {
		if team, err = agents.LoadTeam(""); err != nil {
			t.Fatal(err)
		}
	}
	d, err := ReplayTrace(context.Background(), session.Config{Store: store, Team: team}, runs, wire)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestReplayOfflineShift(t *testing.T) {
	runs := recordShift(t, func(*session.Config) {}, bedsideShift)
	if len(runs) != 1 || len(runs[0].Calls) < 10 {
		t.Fatalf("recorded %d runs, %d calls", len(runs), len(runs[0].Calls))
	}
	var ops []string
	for _, in := range runs[0].Inputs {
		ops = append(ops, in.Op)
	}
	if got := strings.Join(ops, " "); !strings.Contains(got, "tick switch tick turn retry") {
		t.Fatalf("inputs: %s", got)
	}
	if d := replayShift(t, runs, nil, func(*session.Config) {}); d != nil {
		t.Fatalf("the replay diverged:\n%s", d)
	}
}

// The header carries every setting a prompt depends on.
func TestTraceHeaderRecordsTheSettings(t *testing.T) {
	runs := recordShift(t, func(c *session.Config) { c.Shift, c.NumCtx, c.OutputBudget = "busy-ed", 4096, 500 }, func(*testing.T, *session.Session) {})
	h := runs[0].Header
	lib, err := scenario.Load()
	if err != nil {
		t.Fatal(err)
	}
	team := mustTeam(t)
	if h.Seed != 7 || h.Shift != "busy-ed" || h.NumCtx != 4096 || h.OutputBudget != 500 || h.Backend != "offline" ||
		h.Window.Mode != "block" || h.PatientIDPattern != analyzer.DefaultPatientIDPattern.String() || h.Resumed ||
		h.ScenariosHash != lib.Hash() || h.AgentsHash != team.Hash() || h.StartedAt.IsZero() || !strings.HasPrefix(h.SessionID, "s2026") {
		t.Fatalf("header = %+v", h)
	}
}

// A shift that ends and is resumed by a second run of ward replays on the same store.
func TestReplayResumedShift(t *testing.T) {
	var trace bytes.Buffer
	r := sessiontest.New(t, func(c *session.Config) { c.Trace, c.Seed = llm.NewTraceWriter(&trace), 3 })
	r.Turn("/admit patient_1 opioid-overdose")
	r.Turn("Can you hear me?")
	r.Restart()
	r.S.Restore(func(session.Event) {})
	r.Turn("Give naloxone 400 micrograms IM.")
	r.Turn("/vitals")
	runs, err := llm.ReadTrace(&trace)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || !runs[1].Header.Resumed || runs[1].Header.SessionID != runs[0].Header.SessionID {
		t.Fatalf("runs: %d, second header %+v", len(runs), runs[len(runs)-1].Header)
	}
	if d := replayShift(t, runs, nil, func(*session.Config) {}); d != nil {
		t.Fatalf("the replay diverged:\n%s", d)
	}
}

// A deliberately changed prompt — the Patient's instructions, from an agents file — stops the
// replay at the Patient's first call and names the static section, with a diff of the change.
func TestReplayOfChangedPromptNamesTheSection(t *testing.T) {
	runs := recordShift(t, func(*session.Config) {}, bedsideShift)
	file := filepath.Join(t.TempDir(), "agents.yaml")
	override := "agents:\n  - name: Patient\n    instructions: You are the patient. Answer in one short sentence.\n"
	if err := os.WriteFile(file, []byte(override), 0o600); err != nil {
		t.Fatal(err)
	}
	team, err := agents.LoadTeam(file)
	if err != nil {
		t.Fatal(err)
	}
	d := replayShift(t, runs, team, func(*session.Config) {})
	if d == nil {
		t.Fatal("a changed prompt replayed as recorded")
	}
	if d.Turn != 2 || d.Agent != agents.AgentPatient || d.Input != "Hello Maya, what brought you in today?" ||
		len(d.Sections) != 1 || d.Sections[0].Name != agents.SectionStatic {
		t.Fatalf("divergence:\n%s", d)
	}
	diff := d.Sections[0].Diff
	if !strings.Contains(diff, "--- recorded static") || !strings.Contains(diff, "+You are the patient. Answer in one short sentence.") {
		t.Fatalf("diff:\n%s", diff)
	}
	if !strings.HasPrefix(d.String(), `diverged at call 1 of run 1: turn 2 "Hello Maya, what brought you in today?", agent Patient, section static`) {
		t.Fatalf("report:\n%s", d)
	}
}

// A trace recorded with the Ollama backend (a fake server streaming NDJSON) replays too: the
// model's analyzer and router calls, a tool call and its second call, streamed chunks.
func TestReplayOllamaShift(t *testing.T) {
	delta := `{"reply":"It is hard to breathe.","entities_to_update":{},"derived_entities_to_update":{}}`
	f := ollamatest.NewFake(t, ollamatest.CallsTool(agents.ToolCheckVitals, map[string]any{}),
		ollamatest.Streamed(delta[:20], delta[20:]))
	backend := ollama.New(f.Client(), ollamatest.TestModel, ollama.Options{})
	runs := recordShift(t, func(c *session.Config) { c.Backend, c.Tools = backend, true; askModel(c) }, func(t *testing.T, s *session.Session) {
		for _, line := range []string{
			"/admit patient_1 asthma-exacerbation",
			"I'm checking your vitals now.",
			"what should I do next?",
			"/admit patient_2 anaphylaxis",
			"let's compare patient_1 and patient_2",
			"Give salbutamol 5 mg nebulised.",
		} {
			s.Turn(context.Background(), line, func(session.Event) {})
		}
	})
	agentsCalled := map[string]int{}
	for _, c := range runs[0].Calls {
		agentsCalled[c.Agent]++
		if c.Error != "" {
			t.Fatalf("call %d (%s) failed: %s", c.Seq, c.Agent, c.Error)
		}
	}
	call := runs[0].Calls[0]
	if agentsCalled["analyzer"] == 0 || agentsCalled["router"] == 0 || len(call.Reply.ToolCalls) != 1 || len(runs[0].Calls[1].Chunks) != 2 {
		t.Fatalf("the recording lacks a path: agents %v, first reply %+v, chunks %q", agentsCalled, call.Reply, runs[0].Calls[1].Chunks)
	}
	if d := replayShift(t, runs, nil, askModel); d != nil {
		t.Fatalf("the replay diverged:\n%s", d)
	}
}

// askModel wires a model's analyzer and router as main does.
func askModel(c *session.Config) {
	c.Observer = &llm.Observer{}
	traced := llm.Traced(c.Backend, c.Trace, c.Observer)
	c.Analyzer = analyzer.NewAnalyzer(analyzer.NewLLMAnalyzer(traced, analyzer.LLMAnalyzerConfig{NumCtx: c.NumCtx}))
	if c.Team == nil {
		c.Team, _ = agents.LoadTeam("")
	}
	c.Team.Router = traced
}

func mustTeam(t *testing.T) *agents.Team {
	t.Helper()
	team, err := agents.LoadTeam("")
	if err != nil {
		t.Fatal(err)
	}
	return team
}

// TestWriteTraceFixture records a short shift to the file WARD_TRACE_FIXTURE: three vitals checks
// of an asthmatic patient over eleven minutes, on the test clock, so two recordings differ only where ward's code
// does. It is how agents/replay/testdata's traces were made; without the variable it is skipped.
func TestWriteTraceFixture(t *testing.T) {
	path := os.Getenv("WARD_TRACE_FIXTURE")
	if path == "" {
		t.Skip("set WARD_TRACE_FIXTURE to write the trace")
	}
	trace := recordTrace(t, func(*session.Config) {}, func(t *testing.T, s *session.Session) {
		for _, line := range []string{"/admit patient_1 asthma-exacerbation", "/vitals", "/wait 6m", "/vitals", "/wait 5m", "/vitals"} {
			s.Turn(context.Background(), line, func(session.Event) {})
		}
	})
	if err := os.WriteFile(path, trace, 0o644); err != nil {
		t.Fatal(err)
	}
}

// hashedEmbedder is a deterministic embedding model: each word of a text adds one to a hashed
// dimension, so its ranking differs from full-text search's.
type hashedEmbedder struct{}

func (hashedEmbedder) Embed(_ context.Context, _ string, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, text := range texts {
		v := make([]float32, 16)
		for _, w := range strings.Fields(strings.ToLower(text)) {
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%16]++
		}
		v[15] += 0.01 // never the zero vector
		out[i] = v
	}
	return out, nil
}

// A shift whose protocol cards an embedding model ranked replays with no model: each turn's
// retrieval comes from the trace. Replayed with full-text search alone, it diverges, so the
// recorded retrievals are what made it identical.
func TestReplayOfCardsRankedByAnEmbeddingModel(t *testing.T) {
	runs := recordShift(t, func(c *session.Config) {
		c.Knowledge = knowledge.New(knowledge.Options{Embedder: hashedEmbedder{}, Model: "hashed"})
	}, func(t *testing.T, s *session.Session) {
		for _, line := range []string{"/admit patient_1 anaphylaxis", "what is the adult IM dose of adrenaline in anaphylaxis?",
			"@Preceptor what oxygen saturation should I aim for in COPD?", "@Pharmacist which opioid is safe with a morphine allergy?"} {
			s.Turn(context.Background(), line, func(session.Event) {})
		}
	})
	if len(runs[0].Retrievals) < 3 || runs[0].Header.EmbedModel != "hashed" {
		t.Fatalf("recorded %d retrievals with embedding model %q", len(runs[0].Retrievals), runs[0].Header.EmbedModel)
	}
	replayWithCards := func(runs []llm.TraceRun) *replay.Divergence {
		store, err := persist.Open(filepath.Join(t.TempDir(), "replay.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		team, err := agents.LoadTeam("")
		if err != nil {
			t.Fatal(err)
		}
		d, err := ReplayTrace(context.Background(), session.Config{Store: store, Team: team, Knowledge: knowledge.New(knowledge.Options{})}, runs, func(*session.Config) {})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if d := replayWithCards(runs); d != nil {
		t.Fatalf("the replay diverged:\n%s", d)
	}
	runs[0].Header.EmbedModel = ""
	if d := replayWithCards(runs); d == nil || len(d.Sections) == 0 || d.Sections[0].Name != "dynamic" {
		t.Errorf("replayed with full-text search alone, the prompts were the same (%v): the test shows nothing", d)
	}
}

// A trainee's shift replays as recorded although the replay's store holds none of their earlier
// shifts: the trace's header carries their preferences and the findings the Preceptor was told.
func TestReplayOfATraineesShiftWithEarlierFindings(t *testing.T) {
	var trace bytes.Buffer
	r := sessiontest.Trainee(t, "alice")
	if err := (session.Prefs{Handoff: "ipass"}).Save(r.Store, "alice"); err != nil {
		t.Fatal(err)
	}
	playAsthma(r, true)
	r.Turn("/aar")
	r.NewShift()
	playAsthma(r, true)
	r.Turn("/aar")
	r.Cfg.Trace = llm.NewTraceWriter(&trace)
	r.NewShift()
	playAsthma(r, false)
	for _, line := range []string{"/aar", "/handoff"} {
		r.Turn(line)
	}
	runs, err := llm.ReadTrace(&trace)
	if err != nil {
		t.Fatal(err)
	}
	h := runs[0].Header
	if h.Trainee != "alice" || len(h.Recurring) == 0 || !strings.Contains(string(h.Prefs), `"handoff":"ipass"`) {
		t.Fatalf("header: trainee %q, recurring %q, prefs %s", h.Trainee, h.Recurring, h.Prefs)
	}
	if d := replayShift(t, runs, nil, func(*session.Config) {}); d != nil {
		t.Fatalf("the replay diverged:\n%s", d)
	}
}

// What the screen does is recorded too: the restore at start, the question before free text
// admits a patient, keyboard switches, the clock's ticks, a retry, and a new shift from the
// start dialog, which opens a second run.
func TestReplayOfAScreenSession(t *testing.T) {
	var cfg session.Config
	screen := func(c *session.Config) {
		c.ConfirmAdmissions = true
		cfg = *c
	}
	runs := recordShift(t, screen, func(t *testing.T, s *session.Session) {
		ctx := context.Background()
		current := s // the session on screen, which the start dialog replaces
		restart := func(shift, _ string) (*session.Session, error) {
			cfg := cfg
			cfg.Shift = shift
			started, err := session.Start(cfg)
			current = started
			return started, err
		}
		e := live.NewLive(s, restart)
		drain(e.Submit(ctx, "/admit patient_1 sepsis-urosepsis"))
		drain(e.Submit(ctx, "review patient_2")) // asks; the trainee says no, then admits
		drain(e.Submit(ctx, "/admit patient_2 copd-exacerbation"))
		current.Tick(1200*time.Millisecond, func(session.Event) {})
		if err := e.Switch(ctx, "patient_1"); err != nil {
			t.Fatal(err)
		}
		drain(e.Submit(ctx, "Any allergies?"))
		drain(e.Retry(ctx))
		if err := e.Start(ctx, "busy-ed", ""); err != nil {
			t.Fatal(err)
		}
		drain(e.Submit(ctx, "review patient_1"))
		current.Tick(3*time.Second, func(session.Event) {})
		drain(e.Submit(ctx, "/vitals"))
	})
	if len(runs) != 2 || runs[1].Header.Shift != "busy-ed" || runs[0].Inputs[0].Op != llm.InputRestore || len(runs[1].Calls) < 2 ||
		!runs[0].Header.ConfirmAdmissions {
		t.Fatalf("recorded %d runs: %+v", len(runs), runs[len(runs)-1].Header)
	}
	if d := replayShift(t, runs, nil, func(*session.Config) {}); d != nil {
		t.Fatalf("the replay diverged:\n%s", d)
	}
}

// The inspector reads a recorded trace as turns, the analyzer's call as the turn's decision.
func TestRecordedTurnsForTheInspector(t *testing.T) {
	runs := recordShift(t, func(*session.Config) {}, bedsideShift)
	rec := live.RecordedTurns(runs)
	inputs := 0
	for _, in := range runs[0].Inputs {
		if in.Op != llm.InputTick {
			inputs++
		}
	}
	if rec.Len() != inputs {
		t.Fatalf("%d turns for %d inputs", rec.Len(), inputs)
	}
	last, ok := rec.Trace(0)
	if !ok || last.Input != "/handoff sbar" || last.Turn != inputs {
		t.Fatalf("last turn: %+v", last)
	}
	second, _ := rec.Trace(inputs - 2)
	if second.Input != "Hello Maya, what brought you in today?" || len(second.Calls) != 1 {
		t.Fatalf("turn 2: %+v", second)
	}
	var names []string
	for _, s := range second.Calls[0].Sections {
		names = append(names, s.Name)
	}
	if strings.Join(names, " ") != "static window dynamic memory user" || second.Calls[0].Sections[0].Tokens == 0 {
		t.Fatalf("sections: %+v", second.Calls[0].Sections)
	}
	if _, ok := rec.Trace(inputs); ok {
		t.Fatal("a turn before the first")
	}
	var pruned []string
	for back := range inputs {
		tr, _ := rec.Trace(back)
		pruned = append(pruned, tr.Pruned...)
	}
	if len(pruned) == 0 || len(pruned) != len(runs[0].Prunings) || !strings.Contains(strings.Join(pruned, "\n"), " tokens saved: ") {
		t.Fatalf("the recorded turns show prunings %q, the trace holds %d", pruned, len(runs[0].Prunings))
	}
	f := ollamatest.NewFake(t, ollamatest.Answer(`{"action":"SWITCH_EXISTING","patient_id":"patient_1","reasoning":"the first patient"}`))
	backend := ollama.New(f.Client(), ollamatest.TestModel, ollama.Options{})
	runs = recordShift(t, func(c *session.Config) { c.Backend = backend; askModel(c) }, func(t *testing.T, s *session.Session) {
		for _, line := range []string{"/admit patient_1 asthma-exacerbation", "/admit patient_2 anaphylaxis", "let's compare patient_1 and patient_2"} {
			s.Turn(context.Background(), line, func(session.Event) {})
		}
	})
	third, _ := live.RecordedTurns(runs).Trace(0) // the third of three turns
	if a := third.Analyzer; a.Source != "llm" || a.Action != "SWITCH_EXISTING" || a.PatientID != "patient_1" {
		t.Fatalf("the analyzer's decision: %+v", a)
	}
}

// playAsthma plays one asthma patient: salbutamol given before anyone asked about allergies
// when careless, after when not; oxygen always.
func playAsthma(r *sessiontest.Rig, careless bool) {
	r.T.Helper()
	r.Turn("/admit patient_1 asthma-exacerbation")
	r.Turn("/vitals")
	if !careless {
		r.Turn("any allergies?")
	}
	r.Turn("applying oxygen via non-rebreather at 15 L/min")
	r.Turn("give salbutamol 5 mg nebulised")
	r.Turn("/wait 2m")
	r.Turn("/vitals")
}

func drain(ch <-chan live.Update) {
	for range ch {
	}
}
