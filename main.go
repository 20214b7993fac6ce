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
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session"
)

const usage = `ward — clinical simulation on a local LLM

usage:
  ward [flags]                      open the TUI (resumes the latest shift)
  ward run [flags]                  headless: one turn per stdin line, one JSON event per stdout line
  ward dump [--db PATH]             print the latest shift as JSON
  ward archive list|show ID|restore ID [--db PATH]

flags (all commands):
`

// options are the flags shared by every subcommand.
type options struct {
	db, backend, model, trace string
	newSession                bool
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
	fs, opts := flags(stderr)
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	switch cmd {
	case "run":
		return runHeadless(ctx, opts, stdin, stdout, stderr)
	case "dump":
		return dump(opts, stdout)
	case "archive":
		return archive(opts, positional, stdout)
	case "", "tui":
		return errors.New("the TUI is not wired yet; use `ward run`")
	default:
		fs.Usage()
		return fmt.Errorf("unknown command %q", cmd)
	}
}

func flags(stderr io.Writer) (*flag.FlagSet, *options) {
	o := &options{}
	fs := flag.NewFlagSet("ward", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.db, "db", defaultDBPath(), "database file (env WARD_DB)")
	fs.StringVar(&o.backend, "backend", "auto", "auto, offline or ollama")
	fs.StringVar(&o.model, "model", envOr("WARD_MODEL", "llama3.2"), "Ollama model (env WARD_MODEL)")
	fs.StringVar(&o.trace, "trace", "", "write one JSON line per LLM call to this file")
	fs.BoolVar(&o.newSession, "new", false, "start a new shift instead of resuming the latest")
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

func patientPattern() (*regexp.Regexp, error) {
	expr := envOr("PATIENT_ID_PATTERN", session.DefaultPatientIDPattern)
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("PATIENT_ID_PATTERN %q is not a valid regular expression: %w", expr, err)
	}
	return re, nil
}

// openSession opens the store and resumes the latest shift, or starts one.
func openSession(ctx context.Context, o *options, stderr io.Writer) (*session.Session, func(), error) {
	store, err := persist.Open(o.db)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := sessionConfig(ctx, o, store, stderr)
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	s, err := session.Resume(cfg)
	if o.newSession || errors.Is(err, session.ErrNoSession) {
		s, err = session.Start(cfg)
	}
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	return s, func() { store.Close() }, nil
}

func sessionConfig(ctx context.Context, o *options, store *persist.Store, stderr io.Writer) (session.Config, error) {
	pattern, err := patientPattern()
	if err != nil {
		return session.Config{}, err
	}
	backend, err := chooseBackend(ctx, o, stderr)
	if err != nil {
		return session.Config{}, err
	}
	cfg := session.Config{Store: store, Backend: backend, Pattern: pattern, Analyzer: agents.NewAnalyzer(nil)}
	if o.trace != "" {
		if cfg.Trace, err = agents.OpenTrace(o.trace); err != nil {
			return session.Config{}, err
		}
	}
	if backend.Name() == "ollama" {
		cfg.Analyzer = agents.NewAnalyzer(agents.NewLLMAnalyzer(backend, agents.LLMAnalyzerConfig{Trace: cfg.Trace}))
	}
	return cfg, nil
}

// chooseBackend honours --backend. auto prefers Ollama and falls back to offline with a one-line
// notice that says why.
func chooseBackend(ctx context.Context, o *options, stderr io.Writer) (agents.Backend, error) {
	if o.backend == "offline" {
		return agents.NewOffline(), nil
	}
	if o.backend != "auto" && o.backend != "ollama" {
		return nil, fmt.Errorf("--backend must be auto, offline or ollama, not %q", o.backend)
	}
	client, err := api.ClientFromEnvironment()
	if err != nil {
		return nil, fmt.Errorf("OLLAMA_HOST: %w", err)
	}
	ollama := agents.NewOllama(client, o.model, agents.OllamaOptions{})
	probeCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if _, err := ollama.Probe(probeCtx); err != nil {
		if o.backend == "ollama" {
			return nil, err
		}
		fmt.Fprintf(stderr, "ward: using the offline backend: %v\n", err)
		return agents.NewOffline(), nil
	}
	return ollama, nil
}

func runHeadless(ctx context.Context, o *options, stdin io.Reader, stdout, stderr io.Writer) error {
	s, closeStore, err := openSession(ctx, o, stderr)
	if err != nil {
		return err
	}
	defer closeStore()
	return s.RunLines(ctx, stdin, stdout)
}

func dump(o *options, stdout io.Writer) error {
	store, err := persist.Open(o.db)
	if err != nil {
		return err
	}
	defer store.Close()
	doc, err := session.Dump(store)
	if err != nil {
		return err
	}
	return writeJSON(stdout, doc)
}

func archive(o *options, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: ward archive list | show ID | restore ID")
	}
	store, err := persist.Open(o.db)
	if err != nil {
		return err
	}
	defer store.Close()
	return session.ArchiveCommand(store, args, stdout)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
