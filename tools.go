package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/analyzer"
	"github.com/ward-sim/ward/agents/backend"
	"github.com/ward-sim/ward/agents/eval"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/agents/ollama"
	"github.com/ward-sim/ward/agents/replay"
	"github.com/ward-sim/ward/memory/knowledge"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/persist/outfile"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/live"
	"github.com/ward-sim/ward/session/playback"
	"github.com/ward-sim/ward/session/scenario"
	"github.com/ward-sim/ward/themes"
	"github.com/ward-sim/ward/ui"
)

func scenariosList(_ context.Context, c *call) error {
	lib, err := session.LoadLibrary(c.o.scenarios)
	if err != nil {
		return err
	}
	for _, sc := range lib.List() {
		fmt.Fprintf(c.stdout, "%-28s %-11s %s  (%s)\n", sc.ID, sc.Where(), sc.Title, sc.Source)
	}
	return nil
}

// formulary writes the formulary, or one drug's entry found by any of its names.
func formulary(_ context.Context, c *call) error {
	if len(c.args) == 0 {
		return scenario.WriteFormulary(c.stdout, scenario.Formulary())
	}
	e, ok := scenario.LookupDoses(c.args[0])
	if !ok {
		return fmt.Errorf("no formulary entry for %q — `ward formulary` lists them", c.args[0])
	}
	return scenario.WriteFormulary(c.stdout, []*scenario.DrugDoses{e})
}

func kbList(_ context.Context, c *call) error {
	lib, err := knowledge.Load(c.o.knowledge)
	if err != nil {
		return err
	}
	return knowledge.WriteList(c.stdout, lib)
}

func kbShow(_ context.Context, c *call) error {
	lib, err := knowledge.Load(c.o.knowledge)
	if err != nil {
		return err
	}
	return knowledge.WriteShow(c.stdout, lib, c.args[0])
}

func kbSearch(ctx context.Context, c *call) error {
	kb, err := backend.Knowledge(c.o.knowledge, c.o.embedModel, nil)
	if err != nil {
		return err
	}
	r, err := kb.Retrieve(ctx, strings.Join(c.args, " "), 5)
	if err != nil {
		return err
	}
	return knowledge.WriteSearch(c.stdout, r)
}

// evalSuite runs one eval, within --timeout, and holds it to --min; knowledge scores the cards'
// retrieval (recall@3 over its question set, full-text or fused with --embed-model's ranking), the
// others a backend.
func evalSuite(ctx context.Context, c *call, suite string) error {
	o := c.o
	if o.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.timeout)
		defer cancel()
		defer func() {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				toStderr(c.stderr)(fmt.Sprintf("note: the %s eval stopped at --timeout %s: the cases it had not reached failed unrun", suite, o.timeout))
			}
		}()
	}
	var report eval.Report
	if suite == "knowledge" {
		kb, err := backend.Knowledge(o.knowledge, o.embedModel, nil)
		if err != nil {
			return err
		}
		if report, err = eval.EvalKnowledge(ctx, kb); err != nil {
			return err
		}
	} else {
		model, tools, err := backend.Choose(ctx, o.backend, o.model, o.stall, toStderr(c.stderr))
		if err != nil {
			return err
		}
		switch {
		case suite == "delta":
			report = eval.EvalDelta(ctx, model)
		case suite == "patient", suite == "debrief", suite == "arrest":
			team, err := agents.LoadTeam("")
			if err != nil {
				return err
			}
			play := playback.ScriptPlayer(session.Config{Backend: model, Tools: tools, Team: team, NumCtx: o.numCtx, OutputBudget: o.outputBudget}, session.AskModel)
			run := map[string]func(context.Context, llm.Backend, eval.Player) eval.Report{"patient": eval.EvalPatient,
				"debrief": eval.EvalDebrief, "arrest": eval.EvalArrest}
			report = run[suite](ctx, model, play)
		case model.Name() == "ollama": // score the model alone, not the rules in front of it
			report = eval.EvalAnalyzer(ctx, analyzer.NewLLMAnalyzer(model, analyzer.LLMAnalyzerConfig{NumCtx: o.numCtx}))
		default:
			report = eval.EvalAnalyzer(ctx, analyzer.RulesAnalyzer{})
		}
	}
	report.Min = o.min
	if err := writeOut(c, report, report.String(), report.Markdown()); err != nil {
		return err
	}
	return report.Gate()
}

// replayCommand replays a trace with the definitions --scenarios and --agents load, on a store
// of its own that it deletes after. A trace cut short replays its whole turns, and says so.
func replayCommand(ctx context.Context, c *call) error {
	path := c.args[0]
	runs, err := readTraceFile(path)
	var cut *llm.CutError
	if errors.As(err, &cut) {
		var turn int
		runs, turn = replay.Whole(runs)
		toStderr(c.stderr)(fmt.Sprintf("note: %v; replaying what is whole: %d run(s), the last up to turn %d", err, len(runs), turn))
	} else if err != nil {
		return err
	}
	lib, err := session.LoadLibrary(c.o.scenarios)
	if err != nil {
		return err
	}
	team, err := agents.LoadTeam(c.o.agents)
	if err != nil {
		return err
	}
	cards, err := backend.Knowledge(c.o.knowledge, "", nil) // a replay searches the cards' full text only
	if err != nil {
		return err
	}
	cardsHash, err := cards.Hash()
	if err != nil {
		return err
	}
	version, _ := llm.Version()
	for _, note := range replay.VersionNotes(runs, version) {
		toStderr(c.stderr)(note)
	}
	if err := replay.Check(runs, replay.Setup{ScenariosHash: lib.Hash(), AgentsHash: team.Hash(), KnowledgeHash: cardsHash}); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	dir, err := os.MkdirTemp("", "ward-replay-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	store, err := persist.Open(filepath.Join(dir, "replay.db"))
	if err != nil {
		return err
	}
	defer store.Close()
	d, err := playback.ReplayTrace(ctx, session.Config{Store: store, Scenarios: lib, Team: team, Knowledge: cards}, runs, session.AskModel)
	switch {
	case err != nil:
		return fmt.Errorf("%s: %w", path, err)
	case d != nil:
		fmt.Fprint(c.stdout, d)
		return fmt.Errorf("%s: the replay sent a request the trace did not record (call %d of run %d)", path, d.Call, d.Run)
	}
	inputs, calls := 0, 0
	for _, run := range runs {
		inputs, calls = inputs+len(run.Inputs), calls+len(run.Calls)
	}
	_, err = fmt.Fprintf(c.stdout, "%s: replayed %d run(s) of %d inputs: all %d calls sent byte for byte as recorded\n", path, len(runs), inputs, calls)
	return err
}

func diffCommand(_ context.Context, c *call) error {
	a, err := readTraceFile(c.args[0])
	if err != nil {
		return err
	}
	b, err := readTraceFile(c.args[1])
	if err != nil {
		return err
	}
	report := replay.Diff(a, b, c.args[0], c.args[1], c.o.exact)
	return writeOut(c, report, report.String(), report.Markdown())
}

func inspectCommand(ctx context.Context, c *call) error {
	defer outfile.Hold(c.args[0])() // the inspector's saves never replace the trace it shows
	runs, err := readTraceFile(c.args[0])
	if err != nil {
		return err
	}
	turns := live.RecordedTurns(runs)
	if turns.Len() == 0 {
		return fmt.Errorf("%s holds no turn to inspect", c.args[0])
	}
	theme, err := themes.New(c.o.theme, themes.NoColorRequested())
	if err != nil {
		return err
	}
	return ui.RunInspector(ctx, turns, ui.Options{Theme: theme})
}

// readTraceFile reads a trace; a trace cut short is what it holds whole and an *llm.CutError.
func readTraceFile(path string) ([]llm.TraceRun, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	runs, err := llm.ReadTrace(f)
	if err != nil {
		return runs, fmt.Errorf("%s: %w", path, err)
	}
	return runs, nil
}

// doctor checks the setup a user has and says what to change. A failed piece of advice does not
// fail it: ward works without it, only slower.
func doctor(ctx context.Context, c *call) error {
	model, err := ollama.FromEnvironment(c.o.model, ollama.Options{})
	if err != nil {
		return err
	}
	failed := false
	for _, check := range model.Doctor(ctx, c.o.numCtx) {
		mark := "ok  "
		switch {
		case !check.OK && check.Advice:
			mark = "tip "
		case !check.OK:
			mark, failed = "FAIL", true
		}
		fmt.Fprintf(c.stdout, "%s %-12s %s\n", mark, check.Name, check.Detail)
		if !check.OK && check.Fix != "" {
			fmt.Fprintf(c.stdout, "     %-12s → %s\n", "", check.Fix)
		}
	}
	if failed {
		return errors.New("the setup needs the change above before ward can use this model")
	}
	return nil
}
