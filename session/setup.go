package session

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"time"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/analyzer"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/memory/knowledge"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session/records"
	"github.com/ward-sim/ward/session/scenario"
)

// Flags are the command line's choices for a shift. Given names the flags that were typed: a
// trainee's preferences fill in the theme, window and model of the others.
type Flags struct {
	Backend, Model       string
	Stall                time.Duration
	NumCtx, OutputBudget int
	Window, Theme        string
	Shift                string
	Seed                 int64
	Fresh                bool // --new: start a shift instead of resuming the latest
	Scenarios, Agents    string
	Trace                string
	ConfirmAdmissions    bool // a person at the TUI
	Instructor           bool // the engine's secrets show (Config.Instructor)
	Given                map[string]bool
}

// Wiring is what the composition root (main) hands a setup, so that the turn links no backend:
// how a model's backend is made, and the protocol cards.
type Wiring struct {
	// Backends makes the backend for --backend (auto, offline, ollama) and a model, and says
	// whether the model can call tools; auto may fall back with a notice (agents/backend.Choose).
	Backends func(ctx context.Context, backend, model string, stall time.Duration, notices func(string)) (llm.Backend, bool, error)
	// Knowledge is the protocol cards every shift answers from; nil for none.
	Knowledge *knowledge.KB
}

// Setup wires shifts on one store: it loads what every shift shares (the scenarios, the team,
// the trace), takes the cards and the backends main wired (Wiring), and chooses the backend,
// once; each trainee signed in gets their own preferences on top (Config).
type Setup struct {
	flags  Flags
	wiring Wiring
	base   Config
	// theme is the TUI theme of the trainee Config last applied.
	theme string
}

// NewSetup wires shifts for flags on store, which is signed in. notices hears one-line notes for
// the user, such as why the offline backend is in use, or that the trace stopped being written.
func NewSetup(ctx context.Context, store *persist.Store, f Flags, w Wiring, notices func(string)) (*Setup, error) {
	s := &Setup{flags: f, wiring: w}
	if err := s.wire(ctx, store, notices); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Setup) wire(ctx context.Context, store *persist.Store, notices func(string)) error {
	f := s.flags
	cfg := Config{Store: store, NumCtx: f.NumCtx, OutputBudget: f.OutputBudget, Shift: f.Shift, Seed: f.Seed,
		ConfirmAdmissions: f.ConfirmAdmissions, Audit: store.Audit(), Instructor: f.Instructor, Knowledge: s.wiring.Knowledge}
	var err error
	if cfg.Pattern, err = PatientPattern(); err != nil {
		return err
	}
	if cfg.Scenarios, err = LoadLibrary(f.Scenarios); err != nil {
		return err
	}
	if cfg.Team, err = agents.LoadTeam(f.Agents); err != nil {
		return err
	}
	if f.Trace != "" {
		if cfg.Trace, err = llm.OpenTrace(f.Trace); err != nil {
			return err
		}
		s.base.Trace = cfg.Trace
	}
	prefs, err := LoadPrefs(store, store.Person().Trainee)
	if err != nil {
		return err
	}
	if cfg.Backend, cfg.Tools, err = s.wiring.Backends(ctx, f.Backend, s.preferred(prefs).model, f.Stall, notices); err != nil {
		return err
	}
	AskModel(&cfg)
	s.base = cfg
	return nil
}

// ForTrainee is s for one trainee of a server: the same scenarios, team, cards and trace, with
// store (a view signed in as them) and backend (the server's, as they share it). The model stays
// the one the server chose, whatever the trainee prefers. The trace is s's: close s, not this.
func (s *Setup) ForTrainee(store *persist.Store, backend llm.Backend) *Setup {
	t := &Setup{flags: s.flags, wiring: s.wiring, base: s.base}
	t.flags.Given = maps.Clone(s.flags.Given)
	if t.flags.Given == nil {
		t.flags.Given = map[string]bool{}
	}
	t.flags.Given["model"] = true
	team := *s.base.Team // the router follows the backend
	t.base.Team, t.base.Store, t.base.Audit, t.base.Backend = &team, store, store.Audit(), backend
	t.base.Observer = nil
	AskModel(&t.base)
	return t
}

// Open resumes the signed-in trainee's latest shift, or starts one (--new and --shift always
// start); resumed says which.
func (s *Setup) Open(ctx context.Context) (sess *Session, resumed bool, err error) {
	cfg, err := s.Config(ctx)
	if err != nil {
		return nil, false, err
	}
	if !s.flags.Fresh && s.flags.Shift == "" {
		sess, err := Resume(cfg)
		if !errors.Is(err, records.ErrNoShift) {
			return sess, err == nil, err
		}
	}
	sess, err = Start(cfg)
	return sess, false, err
}

// Resume resumes the signed-in trainee's latest shift; false when they have none.
func (s *Setup) Resume(ctx context.Context) (*Session, bool, error) {
	cfg, err := s.Config(ctx)
	if err != nil {
		return nil, false, err
	}
	sess, err := Resume(cfg)
	if errors.Is(err, records.ErrNoShift) {
		return nil, false, nil
	}
	return sess, err == nil, err
}

// Start starts a shift of the given roster for whoever the store is signed in as now (the start
// dialog may have signed another trainee in): their preferences, the backend chosen once.
func (s *Setup) Start(ctx context.Context, shift string) (*Session, error) {
	cfg, err := s.Config(ctx)
	if err != nil {
		return nil, err
	}
	cfg.Shift = shift
	return Start(cfg)
}

// Config is the configuration of a shift for whoever the store is signed in as: their window
// and, on Ollama, their model, unless the command line chose them. A model other than the one
// chosen at start must be one Ollama has: Ollama answered at start, so one it lacks is an error,
// not a fall back to offline.
func (s *Setup) Config(ctx context.Context) (Config, error) {
	cfg := s.base
	prefs, err := LoadPrefs(cfg.Store, cfg.Store.Person().Trainee)
	if err != nil {
		return cfg, err
	}
	chosen := s.preferred(prefs)
	s.theme = chosen.theme
	if cfg.Window, err = WindowMode(chosen.window); err != nil {
		return cfg, err
	}
	if cfg.Backend.Name() != "ollama" || chosen.model == cfg.Backend.Model() {
		return cfg, nil
	}
	team := *cfg.Team // the router follows the model; a shift already running keeps its own
	cfg.Team = &team
	if cfg.Backend, cfg.Tools, err = s.wiring.Backends(ctx, "ollama", chosen.model, s.flags.Stall, func(string) {}); err != nil {
		return cfg, err
	}
	AskModel(&cfg)
	return cfg, nil
}

// choices are the flags with a trainee's preferences where the command line left them unset.
type choices struct{ theme, window, model string }

func (s *Setup) preferred(prefs Prefs) choices {
	f := s.flags
	take := func(name string, flag, pref string) string {
		if pref != "" && !f.Given[name] {
			return pref
		}
		return flag
	}
	c := choices{theme: take("theme", f.Theme, prefs.Theme), window: take("window", f.Window, prefs.Window), model: f.Model}
	if os.Getenv("WARD_MODEL") == "" { // the environment chose the model as a flag would
		c.model = take("model", f.Model, prefs.Model)
	}
	return c
}

// Theme is the TUI theme of the trainee Config last configured: theirs, unless --theme.
func (s *Setup) Theme() string { return s.theme }

// Store is the database the shifts are played on.
func (s *Setup) Store() *persist.Store { return s.base.Store }

// Backend is the backend chosen once.
func (s *Setup) Backend() llm.Backend { return s.base.Backend }

// Library is the scenarios and shifts every shift may use.
func (s *Setup) Library() *scenario.Library { return s.base.Scenarios }

// Trace is the trace being written, nil for none.
func (s *Setup) Trace() *llm.TraceWriter { return s.base.Trace }

// Close releases the trace file.
func (s *Setup) Close() error { return s.base.Trace.Close() }

// AskModel lets a model decide what the rules leave open: with Ollama, the analyzer asks it when
// the rules are unsure and the router places questions for the team. Their calls go to the trace.
func AskModel(cfg *Config) {
	cfg.Analyzer = analyzer.NewAnalyzer(nil)
	if cfg.Backend.Name() == "ollama" {
		cfg.Observer = &llm.Observer{}
		traced := llm.Traced(cfg.Backend, cfg.Trace, cfg.Observer)
		cfg.Analyzer = analyzer.NewAnalyzer(analyzer.NewLLMAnalyzer(traced, analyzer.LLMAnalyzerConfig{NumCtx: cfg.NumCtx}))
		cfg.Team.Router = traced
	}
}

// LoadLibrary is the built-in scenarios, with those in dir ("" for none).
func LoadLibrary(dir string) (*scenario.Library, error) {
	if dir == "" {
		return scenario.Load()
	}
	return scenario.Load(dir)
}

// PatientPattern is PATIENT_ID_PATTERN, or the default.
func PatientPattern() (*regexp.Regexp, error) {
	expr := os.Getenv("PATIENT_ID_PATTERN")
	if expr == "" {
		return analyzer.DefaultPatientIDPattern, nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("PATIENT_ID_PATTERN %q is not a valid regular expression: %w", expr, err)
	}
	return re, nil
}

// WindowMode is the message window --window names.
func WindowMode(name string) (memory.Window, error) {
	switch memory.WindowMode(name) {
	case memory.WindowBlock:
		return memory.DefaultWindow(), nil
	case memory.WindowSliding:
		return memory.SlidingWindow(), nil
	}
	return memory.Window{}, fmt.Errorf("--window must be block or sliding, not %q", name)
}
