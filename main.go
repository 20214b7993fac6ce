// Command ward is a terminal clinical simulation: a shift of patients played by a local LLM over a
// deterministic physiology engine. This file only parses flags and wires the packages together.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/scenario"
	"github.com/ward-sim/ward/themes"
	"github.com/ward-sim/ward/ui"
)

const usage = `ward — clinical simulation on a local LLM

usage:
  ward [flags]                      open the TUI (resumes the latest shift)
  ward run [flags]                  headless: one turn per stdin line, one JSON event per stdout line
  ward dump                         print the latest shift as JSON
  ward aar [--patient ID] [--format md|json] [--out FILE]
                                    After Action Review of a patient (default: the active one)
  ward archive list|show ID|restore ID
  ward scenarios list|validate FILE
  ward stats                        entity and agent-team counters of the latest shift
  ward recover --out NEW            copy what is readable of a damaged --db into a new file
  ward eval delta|analyzer          conformance of a model (or the offline backend) to ward's formats

flags:
`

// options are the flags; every command reads the ones it needs.
type options struct {
	db, backend, model, trace       string
	scenarios, agents, shift, theme string
	window, patient, format, out    string
	numCtx, outputBudget            int
	seed                            int64
	newSession                      bool
}

func main() {
	if err := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "ward:", err)
		os.Exit(1)
	}
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd := ""
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	fs, o := flags(stderr)
	rest, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil // the usage is printed; asking for it is not a failure
	}
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	switch cmd {
	case "run":
		return runHeadless(ctx, o, stdin, stdout, stderr)
	case "dump":
		return withStore(o, func(st *persist.Store, lib *scenario.Library) error {
			doc, err := session.Dump(st, lib)
			if err == nil {
				err = writeJSON(stdout, doc)
			}
			return err
		})
	case "aar":
		return aar(o, stdout)
	case "archive":
		return withStore(o, func(st *persist.Store, _ *scenario.Library) error {
			return session.ArchiveCommand(st, rest, stdout)
		})
	case "scenarios":
		return scenarios(o, rest, stdout)
	case "stats":
		return withStore(o, func(st *persist.Store, _ *scenario.Library) error {
			stats, err := session.Stats(st)
			if err == nil {
				err = writeJSON(stdout, stats)
			}
			return err
		})
	case "eval":
		return eval(ctx, o, rest, stdout, stderr)
	case "recover":
		return recoverDB(o, stdout)
	case "":
		return tui(ctx, o)
	}
	fs.Usage()
	return fmt.Errorf("unknown command %q", cmd)
}

func flags(stderr io.Writer) (*flag.FlagSet, *options) {
	o := &options{}
	fs := flag.NewFlagSet("ward", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.db, "db", defaultDBPath(), "database file (env WARD_DB)")
	fs.StringVar(&o.backend, "backend", "auto", "auto (Ollama if it answers, else offline), offline or ollama")
	fs.StringVar(&o.model, "model", envOr("WARD_MODEL", "llama3.2"), "Ollama model (env WARD_MODEL)")
	fs.StringVar(&o.trace, "trace", "", "append one JSON line per LLM call to this file")
	fs.StringVar(&o.scenarios, "scenarios", "", "directory of extra scenario YAML files")
	fs.StringVar(&o.agents, "agents", "", "YAML file overriding the built-in agent team")
	fs.StringVar(&o.shift, "shift", "", "start a new shift with this roster: quiet-night, busy-ed, multi-casualty or a FILE")
	fs.StringVar(&o.theme, "theme", "dark", "dark, light or high-contrast")
	fs.StringVar(&o.window, "window", string(memory.WindowBlock), "message window: block (cache-aware) or sliding (the seed's)")
	fs.IntVar(&o.numCtx, "num-ctx", agents.DefaultNumCtx, "context size sent to Ollama; kept constant so the model is never reloaded")
	fs.IntVar(&o.outputBudget, "num-predict", memory.BaseNumPredict, "output budget of a simple turn; compound turns get 1.5× and 2× (lower it on a slow CPU)")
	fs.BoolVar(&o.newSession, "new", false, "start a new, empty shift instead of resuming the latest")
	fs.Int64Var(&o.seed, "seed", 0, "seed of a new shift's physiology noise, for reproducible runs (0: from the clock)")
	fs.StringVar(&o.patient, "patient", "", "aar: the patient (default: the active one)")
	fs.StringVar(&o.format, "format", "md", "aar: md or json")
	fs.StringVar(&o.out, "out", "", "aar: write the review to this file instead of stdout; recover: the new database")
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	return fs, o
}

// parseInterspersed lets flags follow positional arguments (`ward archive show ID --db x`).
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

func defaultDBPath() string {
	if p := os.Getenv("WARD_DB"); p != "" {
		return p
	}
	base := os.Getenv("XDG_DATA_HOME")
	if base == "" {
		home, _ := os.UserHomeDir()
		base = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(base, "ward", "ward.db")
}

func library(o *options) (*scenario.Library, error) {
	if o.scenarios == "" {
		return scenario.Load()
	}
	return scenario.Load(o.scenarios)
}

// withStore opens the database and the scenario library for a read-side command.
func withStore(o *options, fn func(*persist.Store, *scenario.Library) error) error {
	lib, err := library(o)
	if err != nil {
		return err
	}
	store, err := persist.Open(o.db)
	if err != nil {
		return err
	}
	defer store.Close()
	return fn(store, lib)
}

// openSession opens the store and resumes the latest shift, or starts one; resumed says which.
// notices hears one-line notes for the user. closeAll releases the trace file and the store.
func openSession(ctx context.Context, o *options, notices func(string)) (s *session.Session, cfg session.Config, resumed bool, closeAll func(), err error) {
	store, err := persist.Open(o.db)
	if err != nil {
		return nil, cfg, false, nil, err
	}
	if cfg, err = sessionConfig(ctx, o, store, notices); err == nil {
		s, resumed, err = startOrResume(cfg, o.newSession || o.shift != "")
	}
	if err != nil {
		cfg.Trace.Close()
		store.Close()
		return nil, cfg, false, nil, err
	}
	return s, cfg, resumed, func() { cfg.Trace.Close(); store.Close() }, nil
}

func startOrResume(cfg session.Config, fresh bool) (*session.Session, bool, error) {
	if !fresh {
		s, err := session.Resume(cfg)
		if !errors.Is(err, session.ErrNoSession) {
			return s, err == nil, err
		}
	}
	s, err := session.Start(cfg)
	return s, false, err
}

// sessionConfig builds a session's configuration; notices hears one-line notes for the user,
// such as why the offline backend is in use.
func sessionConfig(ctx context.Context, o *options, store *persist.Store, notices func(string)) (session.Config, error) {
	cfg := session.Config{Store: store, NumCtx: o.numCtx, OutputBudget: o.outputBudget, Shift: o.shift, Seed: o.seed}
	var err error
	if cfg.Pattern, err = patientPattern(); err != nil {
		return cfg, err
	}
	if cfg.Window, err = windowMode(o.window); err != nil {
		return cfg, err
	}
	if cfg.Scenarios, err = library(o); err != nil {
		return cfg, err
	}
	if cfg.Team, err = agents.LoadTeam(o.agents); err != nil {
		return cfg, err
	}
	if o.trace != "" {
		if cfg.Trace, err = agents.OpenTrace(o.trace); err != nil {
			return cfg, err
		}
	}
	if cfg.Backend, cfg.Tools, err = chooseBackend(ctx, o, notices); err != nil {
		return cfg, err
	}
	cfg.Analyzer = agents.NewAnalyzer(nil)
	if cfg.Backend.Name() == "ollama" {
		cfg.Analyzer = agents.NewAnalyzer(agents.NewLLMAnalyzer(cfg.Backend, agents.LLMAnalyzerConfig{NumCtx: o.numCtx, Trace: cfg.Trace}))
		cfg.Team.Router = cfg.Backend
	}
	return cfg, nil
}

func patientPattern() (*regexp.Regexp, error) {
	expr := envOr("PATIENT_ID_PATTERN", agents.DefaultPatientIDPattern.String())
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("PATIENT_ID_PATTERN %q is not a valid regular expression: %w", expr, err)
	}
	return re, nil
}

func windowMode(name string) (memory.Window, error) {
	switch memory.WindowMode(name) {
	case memory.WindowBlock:
		return memory.DefaultWindow(), nil
	case memory.WindowSliding:
		return memory.SeedWindow(), nil
	}
	return memory.Window{}, fmt.Errorf("--window must be block or sliding, not %q", name)
}

// chooseBackend honours --backend, and reports whether the model can call tools. auto prefers
// Ollama and falls back to offline with a one-line notice that says why.
func chooseBackend(ctx context.Context, o *options, notices func(string)) (agents.Backend, bool, error) {
	switch o.backend {
	case "offline":
		return agents.NewOffline(), false, nil
	case "auto", "ollama":
	default:
		return nil, false, fmt.Errorf("--backend must be auto, offline or ollama, not %q", o.backend)
	}
	client, err := api.ClientFromEnvironment()
	if err != nil {
		return nil, false, fmt.Errorf("OLLAMA_HOST: %w", err)
	}
	ollama := agents.NewOllama(client, o.model, agents.OllamaOptions{})
	probeCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	caps, err := ollama.Probe(probeCtx)
	if err != nil {
		if o.backend == "ollama" {
			return nil, false, err
		}
		notices("using the offline backend: " + err.Error())
		return agents.NewOffline(), false, nil
	}
	return ollama, caps.Tools, nil
}

// tui opens the terminal UI. With no shift to resume (and no --new or --shift) it offers the
// built-in shifts in a start dialog.
func tui(ctx context.Context, o *options) error {
	theme, err := themes.New(o.theme, themes.NoColorRequested())
	if err != nil {
		return err
	}
	opts := ui.Options{Theme: theme}
	s, cfg, resumed, closeAll, err := openSession(ctx, o, func(note string) { opts.Notice = note })
	if err != nil {
		return err
	}
	defer closeAll()
	for _, c := range session.Commands() {
		opts.Commands = append(opts.Commands, ui.Command{Name: c.Name, Args: c.Args, Summary: c.Help})
	}
	if !resumed && !o.newSession && o.shift == "" {
		for _, sh := range cfg.Scenarios.Shifts() {
			opts.StartShifts = append(opts.StartShifts, ui.Shift{ID: sh.ID, Title: sh.Title, Summary: fmt.Sprintf("%d patients", len(sh.Patients))})
		}
	}
	restart := func(shift string) (*session.Session, error) {
		fresh := cfg
		fresh.Shift = shift
		return session.Start(fresh)
	}
	engine := ui.NewSessionEngine(s, restart)
	defer engine.Close()
	return ui.Run(ctx, engine, opts)
}

// toStderr prints notices as ward's one-line diagnostics.
func toStderr(stderr io.Writer) func(string) {
	return func(note string) { fmt.Fprintln(stderr, "ward:", note) }
}

func runHeadless(ctx context.Context, o *options, stdin io.Reader, stdout, stderr io.Writer) error {
	s, _, _, closeAll, err := openSession(ctx, o, toStderr(stderr))
	if err != nil {
		return err
	}
	defer closeAll()
	return s.RunLines(ctx, stdin, stdout)
}

func aar(o *options, stdout io.Writer) error {
	if o.format != "md" && o.format != "json" {
		return fmt.Errorf("--format must be md or json, not %q", o.format)
	}
	return withStore(o, func(st *persist.Store, lib *scenario.Library) error {
		report, err := session.AAR(st, lib, o.patient)
		if err != nil {
			return err
		}
		out := stdout
		if o.out != "" {
			f, err := os.Create(o.out)
			if err != nil {
				return err
			}
			defer f.Close()
			out = f
		}
		if o.format == "json" {
			return writeJSON(out, report)
		}
		_, err = io.WriteString(out, report.Markdown())
		return err
	})
}

func scenarios(o *options, args []string, stdout io.Writer) error {
	switch {
	case len(args) == 1 && args[0] == "list":
		lib, err := library(o)
		if err != nil {
			return err
		}
		for _, sc := range lib.List() {
			fmt.Fprintf(stdout, "%-28s %s  (%s)\n", sc.ID, sc.Title, sc.Source)
		}
		return nil
	case len(args) == 2 && args[0] == "validate":
		data, err := os.ReadFile(args[1])
		if err != nil {
			return err
		}
		if errs := scenario.Validate(data); len(errs) > 0 {
			for _, err := range errs {
				var e scenario.Error
				if errors.As(err, &e) {
					fmt.Fprintf(stdout, "%s:%d: %s\n", args[1], e.Line, e.Msg)
				} else {
					fmt.Fprintf(stdout, "%s: %v\n", args[1], err)
				}
			}
			return fmt.Errorf("%s: %d problem(s)", args[1], len(errs))
		}
		_, err = fmt.Fprintf(stdout, "%s: ok\n", args[1])
		return err
	}
	return errors.New("usage: ward scenarios list | validate FILE")
}

func eval(ctx context.Context, o *options, args []string, stdout, stderr io.Writer) error {
	if len(args) != 1 || (args[0] != "delta" && args[0] != "analyzer") {
		return errors.New("usage: ward eval delta|analyzer [--backend offline|ollama] [--model NAME]")
	}
	backend, _, err := chooseBackend(ctx, o, toStderr(stderr))
	if err != nil {
		return err
	}
	var report agents.Report
	switch {
	case args[0] == "delta":
		report = agents.EvalDelta(ctx, backend)
	case backend.Name() == "ollama": // score the model alone, not the rules in front of it
		report = agents.EvalAnalyzer(ctx, agents.NewLLMAnalyzer(backend, agents.LLMAnalyzerConfig{NumCtx: o.numCtx}))
	default:
		report = agents.EvalAnalyzer(ctx, agents.RulesAnalyzer{})
	}
	_, err = fmt.Fprintln(stdout, report.String())
	return err
}

// recoverDB copies what is readable of a damaged database into a new file and says what was lost.
func recoverDB(o *options, stdout io.Writer) error {
	if o.out == "" {
		return errors.New("usage: ward recover --db DAMAGED --out NEW")
	}
	report, err := persist.Recover(o.db, o.out)
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(stdout, report)
	return err
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
