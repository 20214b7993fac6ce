// Command ward is a terminal clinical simulation: a shift of patients played by a local LLM over a
// deterministic physiology engine. This file only parses flags and wires the packages together.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/analyzer"
	"github.com/ward-sim/ward/agents/eval"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/agents/offline"
	"github.com/ward-sim/ward/agents/ollama"
	"github.com/ward-sim/ward/agents/replay"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/memory/knowledge"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/live"
	"github.com/ward-sim/ward/session/playback"
	"github.com/ward-sim/ward/session/records"
	"github.com/ward-sim/ward/session/scenario"
	"github.com/ward-sim/ward/themes"
	"github.com/ward-sim/ward/ui"
	"golang.org/x/term"
)

// options are the flags; every command reads the ones it declares.
type options struct {
	db, backend, model, trace       string
	scenarios, agents, shift, theme string
	window, patient, format, out    string
	knowledge, embedModel           string
	stall                           time.Duration
	numCtx, outputBudget            int
	seed                            int64
	min                             float64
	newSession, json, bell, exact   bool
	trainee                         string
	instructor, encrypt             bool
	// screen: a person at the TUI, who is asked before a typed line admits a new patient.
	screen bool
	// set are the flags given on the command line; the others may take a trainee's preference.
	set map[string]bool
}

// command is one subcommand: its flags, its usage and what it runs. Adding a command is adding
// one entry to commands.
type command struct {
	name    string // "" is ward with no subcommand: the TUI
	args    string // the synopsis of its arguments, after the flags
	summary string
	flags   []string // names in flagDefs
	// formats are the values its --format takes, the default first; nil for md and json.
	formats []string
	run     func(ctx context.Context, c *call) error
}

// call is one invocation of a command.
type call struct {
	cmd            command
	o              *options
	args           []string // positional arguments
	stdin          io.Reader
	stdout, stderr io.Writer
}

// sessionFlags are what a command that runs a shift accepts.
var sessionFlags = []string{"db", "trainee", "instructor", "encrypt", "backend", "model", "new", "shift", "seed",
	"scenarios", "agents", "trace", "window", "num-ctx", "num-predict", "stall", "knowledge", "embed-model"}

// readFlags are what a command that reads a trainee's shifts accepts.
var readFlags = []string{"db", "trainee", "instructor"}

var commands = []command{
	{name: "", summary: "open the TUI (resumes the latest shift)", flags: append([]string{"theme", "bell"}, sessionFlags...), run: tui},
	{name: "run", summary: "headless: one turn per stdin line, one JSON event per stdout line", flags: sessionFlags,
		run: func(ctx context.Context, c *call) error { return runHeadless(ctx, c.o, c.stdin, c.stdout, c.stderr) }},
	{name: "dump", summary: "print the latest shift as JSON", flags: append([]string{"scenarios"}, readFlags...), run: dump},
	{name: "aar", summary: "After Action Review of a patient (default: the active one)",
		flags: append([]string{"scenarios", "patient", "format", "out"}, readFlags...), run: aar},
	{name: "export", summary: "a patient's chat, or the whole shift's, with times and speakers",
		flags: append([]string{"patient", "format", "out"}, readFlags...), run: export},
	{name: "archive", args: "list | show N | restore N", summary: "the archives a clear made; N is the number list shows",
		flags: readFlags, run: archive},
	{name: "scenarios", args: "list | validate FILE", summary: "the scenario library", flags: []string{"scenarios"}, run: scenarios},
	{name: "formulary", args: "[DRUG]", summary: "the formulary: every drug's doses by route, or one drug's", run: formulary},
	{name: "stats", summary: "entity and agent-team counters of the latest shift", flags: append([]string{"json"}, readFlags...), run: stats},
	{name: "recover", summary: "copy what is readable of a damaged --db into a new file (--out)",
		flags: []string{"db", "out"}, run: recoverDB},
	{name: "progress", summary: "a trainee's shifts over time: scores, critical errors, time to critical actions",
		flags: append([]string{"scenarios", "json"}, readFlags...), run: progress},
	{name: "report", summary: "the class report: every trainee's shifts (the instructor's passphrase when encrypted)",
		flags: []string{"db", "scenarios", "format", "out"}, formats: []string{"md", "csv", "json"}, run: report},
	{name: "audit", summary: "who opened, exported, cleared or restored what, and failed passphrases",
		flags: []string{"db", "json"}, run: auditList},
	{name: "encrypt", summary: "encrypt a database's records under a new instructor's passphrase",
		flags: []string{"db", "trainee"}, run: encrypt},
	{name: "passwd", summary: "give a trainee a new passphrase (theirs, or with --instructor the instructor's, opens it); --instructor alone changes the instructor's",
		flags: []string{"db", "trainee", "instructor"}, run: passwd},
	{name: "doctor", summary: "check the Ollama setup ward will use, and say what to change",
		flags: []string{"model", "num-ctx"}, run: doctor},
	{name: "kb", args: "list | search QUERY | show ID", summary: "the protocol cards ward answers from, and what a query retrieves",
		flags: []string{"knowledge", "embed-model"}, run: kb},
	{name: "eval", args: "delta | analyzer | patient | debrief | arrest | knowledge", summary: "how well a model (or the offline backend) does what ward asks, or the cards' retrieval; exit 1 below --min",
		flags: []string{"backend", "model", "num-ctx", "num-predict", "min", "format", "out", "knowledge", "embed-model"}, formats: reportFormats, run: evalCommand},
	{name: "replay", args: "TRACE", summary: "replay a --trace file with no model: exit 0 when ward sends every request as recorded, 1 at the first that differs, 2 when it cannot replay",
		flags: []string{"scenarios", "agents", "knowledge"}, run: replayCommand},
	{name: "diff", args: "TRACE_A TRACE_B", summary: "compare two traces' calls, aligned by turn and agent, section by section",
		flags: []string{"format", "out", "exact"}, formats: reportFormats[:2], run: diffCommand},
	{name: "inspect", args: "TRACE", summary: "browse a trace's turns and calls in the prompt inspector", flags: []string{"theme"}, run: inspectCommand},
}

// reportFormats are what a report command writes: text for a terminal, markdown for a review, JSON.
var reportFormats = []string{"text", "md", "json"}

// flagDefs declares every flag once; a command's FlagSet takes the ones it names.
var flagDefs = map[string]func(fs *flag.FlagSet, o *options){
	"stall": func(fs *flag.FlagSet, o *options) {
		fs.DurationVar(&o.stall, "stall", ollama.DefaultStallTimeout, "how long ward waits for the model's next words once a reply has begun (`duration`)")
	},
	"knowledge": func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.knowledge, "knowledge", "", "`dir`ectory of your own protocol cards (.md or .txt), beside the built-in ones")
	},
	"embed-model": func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.embedModel, "embed-model", "", "Ollama embedding `model` (e.g. nomic-embed-text) for semantic search; none: full-text only")
	},
	"db": func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.db, "db", defaultDBPath(), "database `file` (env WARD_DB)")
	},
	"trainee": func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.trainee, "trainee", loginName(), "the trainee whose shifts ward opens, by `name` (encrypt: who gets the shifts that name no one)")
	},
	"instructor": func(fs *flag.FlagSet, o *options) {
		fs.BoolVar(&o.instructor, "instructor", false, "act as the instructor, whose passphrase opens every trainee's shifts (env "+envInstructorPassphrase+")")
	},
	"encrypt": func(fs *flag.FlagSet, o *options) {
		fs.BoolVar(&o.encrypt, "encrypt", false, "create the database encrypted: the instructor's passphrase, then the trainee's (env "+envPassphrase+")")
	},
	"backend": func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.backend, "backend", "auto", "which `backend`: auto (Ollama if it answers, else offline), offline or ollama")
	},
	"model": func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.model, "model", envOr("WARD_MODEL", "llama3.2"), "Ollama `model` (env WARD_MODEL)")
	},
	"trace": func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.trace, "trace", "", "append one JSON line per LLM call to this `file`")
	},
	"scenarios": func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.scenarios, "scenarios", "", "`dir`ectory of extra scenario YAML files")
	},
	"agents": func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.agents, "agents", "", "YAML `file` overriding the built-in agent team")
	},
	"shift": func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.shift, "shift", "", "start a new shift with this `roster`: quiet-night, busy-ed, multi-casualty or a file")
	},
	"theme": func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.theme, "theme", "dark", "colour `theme`: dark, light or high-contrast")
	},
	"window": func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.window, "window", string(memory.WindowBlock), "message `window`: block (cache-aware) or sliding (the last 8, then 10, messages)")
	},
	"num-ctx": func(fs *flag.FlagSet, o *options) {
		fs.IntVar(&o.numCtx, "num-ctx", llm.DefaultNumCtx, "context `size` sent to Ollama; kept constant so the model is never reloaded")
	},
	"num-predict": func(fs *flag.FlagSet, o *options) {
		fs.IntVar(&o.outputBudget, "num-predict", memory.BaseNumPredict, "output budget of a simple turn in `tokens`; compound turns get 1.5× and 2× (lower it on a slow CPU)")
	},
	"new": func(fs *flag.FlagSet, o *options) {
		fs.BoolVar(&o.newSession, "new", false, "start a new, empty shift instead of resuming the latest")
	},
	"seed": func(fs *flag.FlagSet, o *options) {
		fs.Int64Var(&o.seed, "seed", 0, "`seed` of a new shift's physiology noise, for reproducible runs (0: from the clock)")
	},
	"patient": func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.patient, "patient", "", "the patient `ID` (aar: default the active one; export: default every patient)")
	},
	"format": func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.format, "format", "md", "output `format`: md or json")
	},
	"min": func(fs *flag.FlagSet, o *options) {
		fs.Float64Var(&o.min, "min", eval.DefaultMin, "the `share` of cases that must pass, or ward exits 1; 0 makes a report that cannot fail")
	},
	"exact": func(fs *flag.FlagSet, o *options) {
		fs.BoolVar(&o.exact, "exact", false, "compare session IDs and wall-clock times too, which differ between any two runs")
	},
	"out": func(fs *flag.FlagSet, o *options) {
		fs.StringVar(&o.out, "out", "", "write to this `file` instead of stdout (recover: the new database)")
	},
	"bell": func(fs *flag.FlagSet, o *options) {
		fs.BoolVar(&o.bell, "bell", os.Getenv("WARD_BELL") != "off", "ring the terminal bell when an alarm or escalation sounds (env WARD_BELL=off)")
	},
	"json": func(fs *flag.FlagSet, o *options) {
		fs.BoolVar(&o.json, "json", false, "print JSON instead of a table")
	},
}

// usageError is a mistake on the command line: one line on stderr and exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func main() {
	os.Exit(runAndReport(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// runAndReport is a command line as the shell sees it: run, a failure as one line on stderr,
// and the exit status. The failure goes through terminalWriter too, for an error may quote a
// scenario file, an agents file, a trace or a file name.
func runAndReport(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	err := run(args, stdin, stdout, stderr)
	if err != nil {
		fmt.Fprintln(terminalWriter{stderr}, "ward:", err)
	}
	return exitCode(err)
}

// exitCode is 0 for success, 2 for a mistake on the command line or a trace that cannot be
// replayed, and 1 for any other failure (a replay that diverged, an eval below its bar).
func exitCode(err error) int {
	var usage usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &usage), errors.Is(err, replay.ErrUnreplayable):
		return 2
	}
	return 1
}

// run parses a command line, with flags before or after the command's name, and runs it.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	at, name := commandName(args)
	if name == "help" {
		return help(args[at+1:], stdout)
	}
	cmd, ok := findCommand(name)
	if !ok {
		return usageError{fmt.Sprintf("unknown command %q — see ward --help", name)}
	}
	if at >= 0 {
		args = append(args[:at:at], args[at+1:]...)
	}
	fs, o := flagSet(cmd)
	rest, err := parseInterspersed(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return printUsage(cmd, stdout)
	case err != nil:
		return usageError{fmt.Sprintf("%s — see %s --help", flagError(err), invocation(cmd))}
	case cmd.name == "" && len(rest) > 0:
		return usageError{fmt.Sprintf("unknown command %q — see ward --help", rest[0])}
	}
	o.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { o.set[f.Name] = true })
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return cmd.run(ctx, &call{cmd: cmd, o: o, args: rest, stdin: stdin, stdout: terminalWriter{stdout}, stderr: terminalWriter{stderr}})
}

// terminalWriter is how every command prints, on stdout and stderr alike: text from a scenario
// file, a card, a trace or a model may carry sequences a terminal would obey. C1 controls become
// JSON's escapes (in JSON output that is the right encoding; in text it shows them), then nothing
// else a terminal obeys is left.
type terminalWriter struct{ w io.Writer }

func (t terminalWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(t.w, themes.Printable(escapeC1(string(p)))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// escapeC1 writes the C1 controls (U+0080–U+009F), which encoding/json leaves raw, as \u00XX.
func escapeC1(s string) string {
	if !strings.ContainsFunc(s, isC1) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isC1(r) {
			fmt.Fprintf(&b, "\\u%04x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isC1(r rune) bool { return r >= 0x80 && r <= 0x9f }

// commandName finds the first argument that is not a flag or a flag's value, and its index; -1
// and "" when there is none. A flag's value is recognised by the flag's type, across every
// command's flags, so `ward --db x.db dump` names dump.
func commandName(args []string) (int, string) {
	all, _ := flagSet(command{flags: slices.Collect(maps.Keys(flagDefs))})
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--":
			if i+1 < len(args) {
				return i + 1, args[i+1]
			}
			return -1, ""
		case len(arg) > 1 && arg[0] == '-':
			name, _, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
			if f := all.Lookup(name); f != nil && !hasValue && !isBool(f) {
				i++ // the next argument is this flag's value
			}
		default:
			return i, arg
		}
	}
	return -1, ""
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

func findCommand(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// flagSet declares a command's flags. Errors and usage are printed by run, not by package flag.
func flagSet(cmd command) (*flag.FlagSet, *options) {
	o := &options{}
	fs := flag.NewFlagSet(invocation(cmd), flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	for _, name := range cmd.flags {
		flagDefs[name](fs, o)
	}
	if f := fs.Lookup("format"); f != nil && cmd.formats != nil {
		f.Usage = "output `format`: " + strings.Join(cmd.formats, ", ")
		f.DefValue = cmd.formats[0]
		o.format = cmd.formats[0]
	}
	return fs, o
}

// flagError rewrites package flag's messages as ward writes flags: --name.
func flagError(err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return "unknown flag --" + name
	}
	return strings.Replace(msg, " -", " --", 1)
}

// parseInterspersed lets flags follow positional arguments (`ward archive show 3 --db x`).
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

func invocation(cmd command) string {
	if cmd.name == "" {
		return "ward"
	}
	return "ward " + cmd.name
}

// help serves `ward help [COMMAND]`.
func help(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		cmd, _ := findCommand("")
		return printUsage(cmd, stdout)
	}
	cmd, ok := findCommand(args[0])
	if !ok {
		return usageError{fmt.Sprintf("unknown command %q — see ward --help", args[0])}
	}
	return printUsage(cmd, stdout)
}

// printUsage prints a command's synopsis and flags; for ward itself, the list of commands too.
func printUsage(cmd command, w io.Writer) error {
	synopsis := invocation(cmd) + " [flags]"
	if cmd.args != "" {
		synopsis += " " + cmd.args
	}
	fmt.Fprintf(w, "usage: %s\n\n%s\n", synopsis, cmd.summary)
	if cmd.name == "" {
		fmt.Fprintf(w, "\ncommands (flags go before or after the command; `ward COMMAND --help` for its own):\n")
		for _, c := range commands[1:] {
			fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
		}
		fmt.Fprintf(w, "  %-10s %s\n", "help", "help [COMMAND] is the same as COMMAND --help")
	}
	fs, _ := flagSet(cmd)
	var names, usages []string
	width := 0
	fs.VisitAll(func(f *flag.Flag) {
		kind, usage := flag.UnquoteUsage(f)
		name := "--" + f.Name
		if kind != "" && !isBool(f) {
			name += " " + strings.ToUpper(kind)
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		names, usages = append(names, name), append(usages, usage)
		width = max(width, len(name))
	})
	fmt.Fprintf(w, "\nflags:\n")
	for i, name := range names {
		fmt.Fprintf(w, "  %-*s  %s\n", width, name, usages[i])
	}
	if cmd.name == "" {
		fmt.Fprintf(w, "\nenvironment: WARD_DB, WARD_MODEL, %s, %s, %s, OLLAMA_HOST, PATIENT_ID_PATTERN, NO_COLOR\n",
			envPassphrase, envInstructorPassphrase, envNewPassphrase)
	}
	return nil
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

// readStore opens a snapshot of the database for a read-only command, signed in as the flags
// say: it works while another ward holds the file, and it never creates a database or a
// directory. Once fn has succeeded, the audit records action on the person's latest shift (on
// none for a report).
func readStore(c *call, action, detail string, fn func(*persist.Store) error) error {
	store, err := persist.OpenSnapshot(c.o.db)
	if err != nil {
		return err
	}
	defer store.Close()
	if err := signIn(c.o, store, false); err != nil {
		return err
	}
	if err := fn(store); err != nil {
		return err
	}
	shift := ""
	if info, ok, _ := store.LatestSession(); ok && action != persist.AuditReport {
		shift = info.ID
	}
	// The output is already printed: the command still fails, because an unaudited disclosure is
	// what the audit exists to catch, but it says what went out.
	if err := auditLog(c.o).Record(store.Person(), action, shift, detail); err != nil {
		return fmt.Errorf("%s was printed but is not in the audit record: %w", detail, err)
	}
	return nil
}

// The passphrases come from the environment (for scripts) or from the terminal, never echoed.
const (
	envPassphrase           = "WARD_PASSPHRASE"            // the trainee's
	envInstructorPassphrase = "WARD_INSTRUCTOR_PASSPHRASE" // the instructor's
	envNewPassphrase        = "WARD_NEW_PASSPHRASE"        // the one passwd gives
)

// person is whom the flags name. The instructor sees every trainee unless --trainee names one.
func person(o *options) persist.Person {
	p := persist.Person{Trainee: o.trainee, Instructor: o.instructor}
	if p.Instructor && !o.set["trainee"] {
		p.Trainee = ""
	}
	return p
}

// signIn makes store act for the person the flags name. An encrypted database takes their
// passphrase, and a trainee new to it chooses one when enrol is set (a command that runs a
// shift). A wrong passphrase is audited; the database is not written to.
func signIn(o *options, store *persist.Store, enrol bool) error {
	p := person(o)
	encrypted, err := store.Encrypted()
	if err != nil || !encrypted {
		if err == nil {
			err = store.SignIn(p, nil)
		}
		return err
	}
	audit := auditLog(o)
	if !p.Instructor && enrol {
		known, err := store.Enrolled(p.Trainee)
		if err != nil {
			return err
		}
		if !known {
			pass, err := askPassphrase(envPassphrase, fmt.Sprintf("Trainee %s is new to this database: choose a passphrase", p.Trainee), true)
			if err == nil {
				err = store.Enrol(p.Trainee, pass)
			}
			if err != nil {
				return err
			}
			return audit.Record(p, persist.AuditEnrol, "", "")
		}
	}
	env := envPassphrase
	if p.Instructor {
		env = envInstructorPassphrase
	}
	pass, err := askPassphrase(env, "Passphrase of "+p.String(), false)
	if err != nil {
		return err
	}
	err = store.SignIn(p, pass)
	if errors.Is(err, persist.ErrWrongPassphrase) {
		if aerr := audit.Record(p, persist.AuditFailed, "", ""); aerr != nil {
			return fmt.Errorf("%w; and %v", err, aerr)
		}
	}
	return err
}

// askPassphrase reads a passphrase from env, or asks for it on the terminal without echo; a new
// one is asked twice.
func askPassphrase(env, prompt string, isNew bool) ([]byte, error) {
	if v := os.Getenv(env); v != "" {
		return []byte(v), nil
	}
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("the database is encrypted: set %s, or run ward in a terminal to be asked for the passphrase", env)
	}
	defer tty.Close()
	read := func(label string) ([]byte, error) {
		fmt.Fprintf(tty, "%s: ", label)
		defer fmt.Fprintln(tty)
		return term.ReadPassword(int(tty.Fd()))
	}
	pass, err := read(prompt)
	switch {
	case err != nil:
		return nil, err
	case len(pass) == 0:
		return nil, errors.New("the passphrase is empty; nothing was changed")
	case !isNew:
		return pass, nil
	}
	again, err := read("The same again")
	if err == nil && !bytes.Equal(pass, again) {
		err = errors.New("the two passphrases differ; nothing was changed")
	}
	return pass, err
}

// auditLog appends to the audit record beside the database.
func auditLog(o *options) *persist.AuditLog {
	return &persist.AuditLog{Path: persist.AuditPath(o.db), User: loginName()}
}

// loginName is who runs ward, the default trainee.
func loginName() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return envOr("USER", "trainee")
}

// openStore opens the database for a command that runs a shift: encrypted first when --encrypt
// creates it, then signed in, with the trainee's preferences as the defaults of the flags not
// given.
func openStore(o *options) (*persist.Store, error) {
	store, err := persist.Open(o.db)
	if err != nil {
		return nil, err
	}
	if o.encrypt {
		err = protect(store)
	}
	if err == nil {
		err = signIn(o, store, true)
	}
	if err == nil {
		err = applyPrefs(o, store)
	}
	if err != nil {
		store.Close()
		return nil, err
	}
	return store, nil
}

// protect encrypts a new database for --encrypt; one encrypted already stays as it is.
func protect(store *persist.Store) error {
	encrypted, err := store.Encrypted()
	if err != nil || encrypted {
		return err
	}
	if shifts, err := store.Sessions(); err != nil || len(shifts) > 0 {
		if err == nil {
			err = errors.New("--encrypt creates an encrypted database, and this one holds shifts already: `ward encrypt` converts it")
		}
		return err
	}
	pass, err := askPassphrase(envInstructorPassphrase, "The instructor's passphrase for this new encrypted database", true)
	if err != nil {
		return err
	}
	return store.Protect(pass)
}

// applyPrefs takes the trainee's preferences for the theme, window and model the command line
// (and WARD_MODEL) left unset.
func applyPrefs(o *options, store *persist.Store) error {
	prefs, err := session.LoadPrefs(store, store.Person().Trainee)
	if err != nil {
		return err
	}
	take := func(name string, to *string, pref string) {
		if pref != "" && !o.set[name] {
			*to = pref
		}
	}
	take("theme", &o.theme, prefs.Theme)
	take("window", &o.window, prefs.Window)
	if os.Getenv("WARD_MODEL") == "" {
		take("model", &o.model, prefs.Model)
	}
	return nil
}

// openSession opens the store and resumes the latest shift, or starts one; resumed says which.
// notices hears one-line notes for the user. closeAll releases the trace file and the store.
func openSession(ctx context.Context, o *options, notices func(string)) (s *session.Session, cfg session.Config, resumed bool, closeAll func(), err error) {
	store, err := openStore(o)
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
		if !errors.Is(err, records.ErrNoSession) {
			return s, err == nil, err
		}
	}
	s, err := session.Start(cfg)
	return s, false, err
}

// sessionConfig builds a session's configuration; notices hears one-line notes for the user,
// such as why the offline backend is in use.
func sessionConfig(ctx context.Context, o *options, store *persist.Store, notices func(string)) (session.Config, error) {
	cfg := session.Config{Store: store, NumCtx: o.numCtx, OutputBudget: o.outputBudget, Shift: o.shift, Seed: o.seed,
		ConfirmAdmissions: o.screen, Themes: themes.Names, Audit: auditLog(o)}
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
		if cfg.Trace, err = llm.OpenTrace(o.trace); err != nil {
			return cfg, err
		}
	}
	if cfg.Knowledge, err = knowledgeBase(o, store); err != nil {
		return cfg, err
	}
	if cfg.Backend, cfg.Tools, err = chooseBackend(ctx, o, notices); err != nil {
		return cfg, err
	}
	askModel(&cfg)
	return cfg, nil
}

// askModel lets a model decide what the rules leave open: with Ollama, the analyzer asks it when
// the rules are unsure and the router places questions for the team. Their calls go to the trace.
func askModel(cfg *session.Config) {
	cfg.Analyzer = analyzer.NewAnalyzer(nil)
	if cfg.Backend.Name() == "ollama" {
		cfg.Observer = &llm.Observer{}
		traced := llm.Traced(cfg.Backend, cfg.Trace, cfg.Observer)
		cfg.Analyzer = analyzer.NewAnalyzer(analyzer.NewLLMAnalyzer(traced, analyzer.LLMAnalyzerConfig{NumCtx: cfg.NumCtx}))
		cfg.Team.Router = traced
	}
}

func patientPattern() (*regexp.Regexp, error) {
	expr := envOr("PATIENT_ID_PATTERN", analyzer.DefaultPatientIDPattern.String())
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
		return memory.SlidingWindow(), nil
	}
	return memory.Window{}, fmt.Errorf("--window must be block or sliding, not %q", name)
}

// chooseBackend honours --backend, and reports whether the model can call tools. auto prefers
// Ollama and falls back to offline with a one-line notice that says why.
func chooseBackend(ctx context.Context, o *options, notices func(string)) (llm.Backend, bool, error) {
	switch o.backend {
	case "offline":
		return offline.New(), false, nil
	case "auto", "ollama":
	default:
		return nil, false, fmt.Errorf("--backend must be auto, offline or ollama, not %q", o.backend)
	}
	model, err := ollama.FromEnvironment(o.model, ollama.Options{StallTimeout: o.stall})
	if err != nil {
		return nil, false, err
	}
	probeCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	caps, err := model.Probe(probeCtx)
	if err != nil {
		if o.backend == "ollama" {
			return nil, false, err
		}
		notices("using the offline backend: " + err.Error())
		return offline.New(), false, nil
	}
	return model, caps.Tools, nil
}

// tui opens the terminal UI. With no shift to resume (and no --new or --shift) it offers the
// built-in shifts in a start dialog.
func tui(ctx context.Context, c *call) error {
	o := c.o
	var opts ui.Options
	o.screen = true
	if o.bell {
		opts.Bell = os.Stderr
	}
	flags := *o // before the preferences of the person ward opens as fill them in
	s, cfg, resumed, closeAll, err := openSession(ctx, o, func(note string) { opts.Notice = note })
	if err != nil {
		return err
	}
	defer closeAll()
	if opts.Theme, err = themes.New(o.theme, themes.NoColorRequested()); err != nil { // the trainee's preferred one, unless --theme
		return err
	}
	opts.Trainee = cfg.Store.Person().Trainee
	if opts.TraineeFixed, err = cfg.Store.Encrypted(); err != nil {
		return err
	}
	if !resumed && !o.newSession && o.shift == "" {
		for _, sh := range cfg.Scenarios.Shifts() {
			opts.StartShifts = append(opts.StartShifts, ui.Shift{ID: sh.ID, Title: sh.Title, Summary: fmt.Sprintf("%d patients", len(sh.Patients))})
		}
	}
	var started options // the flags with the preferences of the trainee the start dialog signed in
	restart := func(shift, trainee string) (*session.Session, error) {
		if p := cfg.Store.Person(); trainee != p.Trainee {
			if opts.TraineeFixed {
				return nil, fmt.Errorf("this database is encrypted and opened for %s: quit, and start ward with --trainee %s", p, trainee)
			}
			if err := cfg.Store.SignIn(persist.Person{Trainee: trainee}, nil); err != nil {
				return nil, err
			}
		}
		var err error
		if started, err = preferred(flags, cfg.Store); err != nil {
			return nil, err
		}
		fresh, err := startedConfig(ctx, cfg, started)
		if err != nil {
			return nil, err
		}
		fresh.Shift = shift
		return session.Start(fresh)
	}
	// The screen asks for the theme right after a start, from the goroutine that started it.
	opts.StartedTheme = func() (themes.Theme, error) { return themes.New(started.theme, themes.NoColorRequested()) }
	engine := live.NewLive(s, restart)
	defer engine.Close()
	return ui.Run(ctx, engine, opts)
}

// preferred is the flags with the preferences of whoever store is signed in as.
func preferred(flags options, store *persist.Store) (options, error) {
	return flags, applyPrefs(&flags, store)
}

// startedConfig is cfg for the trainee the start dialog signed in, given the flags with their
// preferences (preferred): their window and, on Ollama, their model.
func startedConfig(ctx context.Context, cfg session.Config, o options) (session.Config, error) {
	var err error
	if cfg.Window, err = windowMode(o.window); err != nil {
		return cfg, err
	}
	if cfg.Backend.Name() != "ollama" || o.model == cfg.Backend.Model() {
		return cfg, nil
	}
	team := *cfg.Team // the router changes with the model; the session being replaced keeps its own
	cfg.Team = &team
	o.backend = "ollama" // Ollama answered at start: a model it lacks is an error, not offline
	if cfg.Backend, cfg.Tools, err = chooseBackend(ctx, &o, func(string) {}); err != nil {
		return cfg, err
	}
	askModel(&cfg)
	return cfg, nil
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

func dump(_ context.Context, c *call) error {
	if err := noArgs(c); err != nil {
		return err
	}
	lib, err := library(c.o)
	if err != nil {
		return err
	}
	return readStore(c, persist.AuditExport, "dump", func(st *persist.Store) error {
		doc, err := records.Dump(st, lib)
		if err == nil {
			err = writeJSON(c.stdout, doc)
		}
		return err
	})
}

func aar(_ context.Context, c *call) error {
	if err := noArgs(c); err != nil {
		return err
	}
	lib, err := library(c.o)
	if err != nil {
		return err
	}
	return readStore(c, persist.AuditExport, "review of "+orActive(c.o.patient)+" as "+c.o.format, func(st *persist.Store) error {
		report, err := records.AAR(st, lib, c.o.patient)
		if err != nil {
			return err
		}
		return writeOut(c, report, "", report.Markdown())
	})
}

func export(_ context.Context, c *call) error {
	if err := noArgs(c); err != nil {
		return err
	}
	return readStore(c, persist.AuditExport, "chat of "+orEvery(c.o.patient)+" as "+c.o.format, func(st *persist.Store) error {
		tr, err := records.Export(st, c.o.patient)
		if err != nil {
			return err
		}
		return writeOut(c, tr, "", tr.Markdown())
	})
}

// writeOut writes a document as --format asks, to --out or stdout: text and markdown as they
// are, JSON encoded from doc.
func writeOut(c *call, doc any, text, markdown string) error {
	if err := checkFormat(c); err != nil {
		return err
	}
	return toOut(c, func(out io.Writer) (err error) {
		switch c.o.format {
		case "json":
			return writeJSON(out, doc)
		case "text":
			_, err = io.WriteString(out, text)
		default:
			_, err = io.WriteString(out, markdown)
		}
		return err
	})
}

// checkFormat refuses a --format the command does not take.
func checkFormat(c *call) error {
	formats := c.cmd.formats
	if formats == nil {
		formats = []string{"md", "json"}
	}
	if !slices.Contains(formats, c.o.format) {
		return usageError{fmt.Sprintf("--format must be %s or %s, not %q", strings.Join(formats[:len(formats)-1], ", "), formats[len(formats)-1], c.o.format)}
	}
	return nil
}

// toOut gives write the file --out names, or stdout.
func toOut(c *call, write func(io.Writer) error) (err error) {
	if c.o.out == "" {
		return write(c.stdout)
	}
	f, err := os.Create(c.o.out)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	return write(f)
}

func orActive(patient string) string {
	if patient == "" {
		return "the active patient"
	}
	return patient
}

func orEvery(patient string) string {
	if patient == "" {
		return "every patient"
	}
	return patient
}

// progress prints a trainee's shifts as a table and charts.
func progress(_ context.Context, c *call) error {
	if err := noArgs(c); err != nil {
		return err
	}
	lib, err := library(c.o)
	if err != nil {
		return err
	}
	return readStore(c, persist.AuditReport, "progress", func(st *persist.Store) error {
		p, err := records.ReadProgress(st, lib)
		if err != nil {
			return err
		}
		return writeTable(c, p)
	})
}

// report writes the class report, as the instructor: every trainee's shifts.
func report(_ context.Context, c *call) error {
	if err := noArgs(c); err != nil {
		return err
	}
	if err := checkFormat(c); err != nil {
		return err
	}
	lib, err := library(c.o)
	if err != nil {
		return err
	}
	c.o.instructor = true
	return readStore(c, persist.AuditReport, "class report as "+c.o.format, func(st *persist.Store) error {
		r, err := records.ReadClassReport(st, lib)
		if err != nil {
			return err
		}
		return toOut(c, func(out io.Writer) error {
			switch c.o.format {
			case "csv":
				return r.CSV(out)
			case "json":
				return writeJSON(out, r)
			}
			_, err := io.WriteString(out, r.Markdown())
			return err
		})
	})
}

// auditList prints the audit record, oldest first.
func auditList(_ context.Context, c *call) error {
	if err := noArgs(c); err != nil {
		return err
	}
	path := persist.AuditPath(c.o.db)
	entries, err := persist.ReadAudit(path)
	switch {
	case err != nil:
		return err
	case c.o.json:
		return writeJSON(c.stdout, entries)
	case len(entries) == 0:
		_, err := fmt.Fprintf(c.stdout, "no audit record yet (%s)\n", path)
		return err
	}
	for _, e := range entries {
		fmt.Fprintf(c.stdout, "%s  %-10s  %-28s  %-17s  %-26s  %s\n", e.At.Local().Format("2006-01-02 15:04:05"),
			e.User, e.As, e.Action, e.Session, e.Detail)
	}
	return nil
}

// encrypt converts the database to an encrypted one under a new instructor's passphrase.
func encrypt(_ context.Context, c *call) error {
	if err := noArgs(c); err != nil {
		return err
	}
	if err := mustExist(c.o.db); err != nil {
		return err
	}
	pass, err := askPassphrase(envInstructorPassphrase, "The instructor's passphrase for the encrypted database", true)
	if err != nil {
		return err
	}
	trainees, err := persist.Encrypt(c.o.db, pass, c.o.trainee)
	if err != nil {
		return err
	}
	if err := auditLog(c.o).Record(persist.Person{Instructor: true}, persist.AuditEncrypt, "", fmt.Sprintf("%d trainee(s)", len(trainees))); err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "%s is encrypted. Each trainee's shifts open with the instructor's passphrase until the instructor gives them one:\n", c.o.db)
	for _, t := range trainees {
		fmt.Fprintf(c.stdout, "  ward passwd --instructor --trainee %s\n", t)
	}
	return nil
}

// passwd gives a trainee a new passphrase; their current one, or the instructor's, opens the way.
// With --instructor and no trainee named, the instructor changes their own.
func passwd(_ context.Context, c *call) error {
	if err := noArgs(c); err != nil {
		return err
	}
	if err := mustExist(c.o.db); err != nil {
		return err
	}
	store, err := persist.Open(c.o.db)
	if err != nil {
		return err
	}
	defer store.Close()
	if encrypted, err := store.Encrypted(); err != nil || !encrypted {
		if err == nil {
			err = errors.New("this database is not encrypted, so there are no passphrases (`ward encrypt` encrypts it)")
		}
		return err
	}
	if err := signIn(c.o, store, false); err != nil {
		return err
	}
	whose, set := "trainee "+c.o.trainee, func(pass []byte) error { return store.SetPassphrase(c.o.trainee, pass) }
	if c.o.instructor && !c.o.set["trainee"] {
		whose, set = "the instructor", store.SetInstructorPassphrase
	}
	pass, err := askPassphrase(envNewPassphrase, "New passphrase of "+whose, true)
	if err == nil {
		err = set(pass)
	}
	if err == nil {
		err = auditLog(c.o).Record(store.Person(), persist.AuditPassphrase, "", "for "+whose)
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(c.stdout, "%s has a new passphrase\n", whose)
	return err
}

// mustExist refuses a database that is not there: a command that converts or restores never
// creates one.
func mustExist(path string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("%w at %s (pass --db, or set WARD_DB)", persist.ErrNoDatabase, path)
	}
	return nil
}

func archive(_ context.Context, c *call) error {
	args := c.args
	switch {
	case len(args) == 1 && args[0] == "list":
		return readStore(c, persist.AuditOpen, "archive list", func(st *persist.Store) error { return records.ArchiveList(st, c.stdout) })
	case len(args) == 2 && args[0] == "show":
		return readStore(c, persist.AuditExport, "archive "+args[1], func(st *persist.Store) error { return records.ArchiveShow(st, args[1], c.stdout) })
	case len(args) == 2 && args[0] == "restore":
		// A restore writes, so it takes the file like any writer; it still never creates one.
		if err := mustExist(c.o.db); err != nil {
			return err
		}
		store, err := persist.Open(c.o.db)
		if err != nil {
			return err
		}
		defer store.Close()
		if err := signIn(c.o, store, false); err != nil {
			return err
		}
		if err := records.ArchiveRestore(store, args[1], c.stdout); err != nil {
			return err
		}
		info, _, err := store.LatestSession()
		if err != nil {
			return err
		}
		return auditLog(c.o).Record(store.Person(), persist.AuditRestore, info.ID, "archive "+args[1])
	}
	return argsError(c)
}

// formulary writes the formulary, or one drug's entry found by any of its names.
func formulary(_ context.Context, c *call) error {
	switch len(c.args) {
	case 0:
		return scenario.WriteFormulary(c.stdout, scenario.Formulary())
	case 1:
		e, ok := scenario.LookupDoses(c.args[0])
		if !ok {
			return fmt.Errorf("no formulary entry for %q — `ward formulary` lists them", c.args[0])
		}
		return scenario.WriteFormulary(c.stdout, []*scenario.DrugDoses{e})
	}
	return argsError(c)
}

func stats(_ context.Context, c *call) error {
	if err := noArgs(c); err != nil {
		return err
	}
	return readStore(c, persist.AuditOpen, "stats", func(st *persist.Store) error {
		report, err := records.ReadStats(st)
		if err != nil {
			return err
		}
		return writeTable(c, report)
	})
}

func scenarios(_ context.Context, c *call) error {
	args := c.args
	switch {
	case len(args) == 1 && args[0] == "list":
		lib, err := library(c.o)
		if err != nil {
			return err
		}
		for _, sc := range lib.List() {
			fmt.Fprintf(c.stdout, "%-28s %s  (%s)\n", sc.ID, sc.Title, sc.Source)
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
					fmt.Fprintf(c.stdout, "%s:%d: %s\n", args[1], e.Line, e.Msg)
				} else {
					fmt.Fprintf(c.stdout, "%s: %v\n", args[1], err)
				}
			}
			return fmt.Errorf("%s: %d problem(s)", args[1], len(errs))
		}
		_, err = fmt.Fprintf(c.stdout, "%s: ok\n", args[1])
		return err
	}
	return argsError(c)
}

func evalCommand(ctx context.Context, c *call) error {
	o, args := c.o, c.args
	if len(args) != 1 || !slices.Contains([]string{"delta", "analyzer", "patient", "debrief", "arrest", "knowledge"}, args[0]) {
		return argsError(c)
	}
	if args[0] == "knowledge" {
		return evalKnowledge(ctx, c)
	}
	backend, tools, err := chooseBackend(ctx, o, toStderr(c.stderr))
	if err != nil {
		return err
	}
	var report eval.Report
	switch {
	case args[0] == "delta":
		report = eval.EvalDelta(ctx, backend)
	case args[0] == "patient", args[0] == "debrief", args[0] == "arrest":
		team, err := agents.LoadTeam("")
		if err != nil {
			return err
		}
		play := playback.ScriptPlayer(session.Config{Backend: backend, Tools: tools, Team: team, NumCtx: o.numCtx, OutputBudget: o.outputBudget}, askModel)
		suite := map[string]func(context.Context, llm.Backend, eval.Player) eval.Report{"patient": eval.EvalPatient,
			"debrief": eval.EvalDebrief, "arrest": eval.EvalArrest}
		report = suite[args[0]](ctx, backend, play)
	case backend.Name() == "ollama": // score the model alone, not the rules in front of it
		report = eval.EvalAnalyzer(ctx, analyzer.NewLLMAnalyzer(backend, analyzer.LLMAnalyzerConfig{NumCtx: o.numCtx}))
	default:
		report = eval.EvalAnalyzer(ctx, analyzer.RulesAnalyzer{})
	}
	report.Min = o.min
	if err := writeOut(c, report, report.String(), report.Markdown()); err != nil {
		return err
	}
	return report.Gate()
}

// evalKnowledge holds the knowledge base's retrieval to the bar: recall@3 over its question set,
// with full-text search, or fused with --embed-model's ranking.
func evalKnowledge(ctx context.Context, c *call) error {
	kb, err := knowledgeBase(c.o, nil)
	if err != nil {
		return err
	}
	report, err := eval.EvalKnowledge(ctx, kb)
	if err != nil {
		return err
	}
	report.Min = c.o.min
	if err := writeOut(c, report, report.String(), report.Markdown()); err != nil {
		return err
	}
	return report.Gate()
}

// replayCommand replays a trace with the definitions --scenarios and --agents load, on a store
// of its own that it deletes after.
func replayCommand(ctx context.Context, c *call) error {
	if len(c.args) != 1 {
		return argsError(c)
	}
	runs, err := readTraceFile(c.args[0])
	if err != nil {
		return err
	}
	lib, err := library(c.o)
	if err != nil {
		return err
	}
	team, err := agents.LoadTeam(c.o.agents)
	if err != nil {
		return err
	}
	cards, err := knowledgeBase(&options{knowledge: c.o.knowledge}, nil) // a replay searches the cards' full text only
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
		return fmt.Errorf("%s: %w", c.args[0], err)
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
	d, err := playback.ReplayTrace(ctx, session.Config{Store: store, Scenarios: lib, Team: team, Knowledge: cards}, runs, askModel)
	switch {
	case err != nil:
		return fmt.Errorf("%s: %w", c.args[0], err)
	case d != nil:
		fmt.Fprint(c.stdout, d)
		return fmt.Errorf("%s: the replay sent a request the trace did not record (call %d of run %d)", c.args[0], d.Call, d.Run)
	}
	inputs, calls := 0, 0
	for _, run := range runs {
		inputs, calls = inputs+len(run.Inputs), calls+len(run.Calls)
	}
	_, err = fmt.Fprintf(c.stdout, "%s: replayed %d run(s) of %d inputs: all %d calls sent byte for byte as recorded\n", c.args[0], len(runs), inputs, calls)
	return err
}

func diffCommand(_ context.Context, c *call) error {
	if len(c.args) != 2 {
		return argsError(c)
	}
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
	if len(c.args) != 1 {
		return argsError(c)
	}
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

func readTraceFile(path string) ([]llm.TraceRun, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	runs, err := llm.ReadTrace(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return runs, nil
}

// noArgs refuses positional arguments to a command that takes none.
func noArgs(c *call) error {
	if len(c.args) == 0 {
		return nil
	}
	return usageError{fmt.Sprintf("unexpected argument %q — see %s --help", c.args[0], invocation(c.cmd))}
}

// argsError is the one-line usage of a command whose arguments are wrong.
func argsError(c *call) error {
	name := invocation(c.cmd)
	return usageError{fmt.Sprintf("usage: %s %s — see %s --help", name, c.cmd.args, name)}
}

// recoverDB copies what is readable of a damaged database into a new file and says what was lost.
func recoverDB(_ context.Context, c *call) error {
	if c.o.out == "" {
		return usageError{"usage: ward recover --db DAMAGED --out NEW — see ward recover --help"}
	}
	report, err := persist.Recover(c.o.db, c.o.out)
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(c.stdout, report)
	return err
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeTable prints a report as its table, or as JSON with --json.
func writeTable(c *call, report interface{ Table(io.Writer) error }) error {
	if c.o.json {
		return writeJSON(c.stdout, report)
	}
	return report.Table(c.stdout)
}

// kb shows what ward knows: the cards, one card, or what a query retrieves.
func kb(ctx context.Context, c *call) error {
	switch {
	case len(c.args) == 1 && c.args[0] == "list":
		lib, err := knowledge.Load(c.o.knowledge)
		if err != nil {
			return err
		}
		return knowledge.WriteList(c.stdout, lib)
	case len(c.args) == 2 && c.args[0] == "show":
		lib, err := knowledge.Load(c.o.knowledge)
		if err != nil {
			return err
		}
		return knowledge.WriteShow(c.stdout, lib, c.args[1])
	case len(c.args) >= 2 && c.args[0] == "search":
		kb, err := knowledgeBase(c.o, nil)
		if err != nil {
			return err
		}
		r, err := kb.Retrieve(ctx, strings.Join(c.args[1:], " "), 5)
		if err != nil {
			return err
		}
		return knowledge.WriteSearch(c.stdout, r)
	}
	return argsError(c)
}

// knowledgeBase is the protocol cards with --knowledge and --embed-model; store keeps the
// embeddings between runs (nil: for this process only). Nothing is read until first use.
func knowledgeBase(o *options, store knowledge.VectorStore) (*knowledge.KB, error) {
	if o.knowledge != "" {
		if info, err := os.Stat(o.knowledge); err != nil || !info.IsDir() {
			return nil, fmt.Errorf("--knowledge %s: not a directory of cards", o.knowledge)
		}
	}
	opts := knowledge.Options{Dir: o.knowledge, Model: o.embedModel, Store: store}
	if o.embedModel != "" {
		model, err := ollama.FromEnvironment(o.embedModel, ollama.Options{})
		if err != nil {
			return nil, err
		}
		opts.Embedder = model
	}
	return knowledge.New(opts), nil
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
