package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/ward-sim/ward/agents/eval"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/agents/ollama"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session/records"
)

// options are the flags; every command reads the ones it declares.
type options struct {
	db, backend, model, trace       string
	scenarios, agents, shift, theme string
	window, patient, format, out    string
	knowledge, embedModel           string
	from                            string        // ward scenarios new: the scenario to start from
	xapiBase                        string        // ward report --format xapi: the IRI its names go under
	xapiHomePage                    string        // ward report --format xapi: the system the trainees' accounts are on
	lrs                             string        // ward report --lrs: the learning record store's xAPI endpoint
	lrsTimeout                      time.Duration // ward report --lrs: how long a run keeps trying the store
	stall, timeout                  time.Duration
	numCtx, outputBudget            int
	seed                            int64
	min                             float64
	newSession, json, bell, exact   bool
	force                           bool
	trainee                         string
	instructor, encrypt, debug      bool
	listen, hostKey                 string   // ward serve
	key, authorizedKeys             string   // ward enrol
	members                         []string // ward team: NAME:ROLE
	scenario                        string   // ward team: the case of the team's shift
	slots                           int
	idle                            time.Duration
	last                            int                // ward stats: the window, in turns
	since                           string             // ward stats: the window, from a time or a duration ago
	alerts                          records.Thresholds // ward stats: the alert levels
}

// call is one invocation of a command.
type call struct {
	cmd            *cobra.Command
	o              *options
	formats        []string // what its --format takes, the default first
	args           []string // positional arguments
	stdin          io.Reader
	stdout, stderr io.Writer
}

// given reports whether a flag was typed on the command line; the others may take a trainee's
// preference.
func (c *call) given(name string) bool { return c.cmd.Flags().Changed(name) }

// spec declares one command: its synopsis, its summary, the flags it takes from flagDefs, the
// positional arguments it accepts and what it runs.
type spec struct {
	use     string // "name ARGS"
	summary string
	flags   []string
	formats []string // what --format takes, the default first; nil for md and json
	args    func(n int) bool
	run     func(context.Context, *call) error
}

// cli builds the commands of one invocation: they share its streams. Each command has its own
// options, for each declares its own defaults (--format's differs from one to another).
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// build makes a cobra command of s.
func (cl *cli) build(s spec) *cobra.Command {
	if s.formats == nil {
		s.formats = []string{"md", "json"}
	}
	o := &options{}
	cmd := &cobra.Command{Use: s.use, Short: s.summary}
	cmd.Args = func(cmd *cobra.Command, args []string) error {
		switch {
		case s.args == nil && len(args) > 0:
			return usageError{fmt.Sprintf("unexpected argument %q — see %s --help", args[0], cmd.CommandPath())}
		case s.args != nil && !s.args(len(args)):
			return argsError(cmd)
		}
		return nil
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		c := &call{cmd: cmd, o: o, formats: s.formats, args: args, stdin: cl.stdin, stdout: cl.stdout, stderr: cl.stderr}
		if err := checkOutput(c); err != nil {
			return err
		}
		return s.run(cmd.Context(), c)
	}
	declare(cmd.Flags(), o, s.flags, s.formats)
	return cmd
}

// group makes a command of sub-verbs. The flags every verb takes are declared on each verb and
// on the group, so they may come before the verb.
func (cl *cli) group(use, summary string, flags []string, verbs ...spec) *cobra.Command {
	cmd := &cobra.Command{Use: use, Short: summary, Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return argsError(cmd) }}
	declare(cmd.Flags(), &options{}, flags, verbs[0].formats)
	for _, v := range verbs {
		v.flags = append(slices.Clone(flags), v.flags...)
		cmd.AddCommand(cl.build(v))
	}
	return cmd
}

// declare adds the named flags of flagDefs to fs, bound to o; --format's values and default
// are formats.
func declare(fs *pflag.FlagSet, o *options, names []string, formats []string) {
	for _, name := range names {
		flagDefs[name](fs, o)
	}
	if f := fs.Lookup("format"); f != nil && formats != nil {
		f.Usage = "output `format`: " + strings.Join(formats, ", ")
		f.DefValue = formats[0]
		_ = f.Value.Set(formats[0])
	}
}

// count accepts between lo and hi positional arguments (hi < 0: any number from lo).
func count(lo, hi int) func(int) bool {
	return func(n int) bool { return n >= lo && (hi < 0 || n <= hi) }
}

// sessionFlags are what a command that runs a shift accepts.
var sessionFlags = []string{"db", "trainee", "instructor", "debug", "encrypt", "backend", "model", "new", "shift", "seed",
	"scenarios", "agents", "trace", "window", "num-ctx", "num-predict", "stall", "knowledge", "embed-model"}

// readFlags are what a command that reads a trainee's shifts accepts.
var readFlags = []string{"db", "trainee", "instructor", "debug"}

// outFlags are what a command that may write a file accepts.
var outFlags = []string{"format", "out", "force"}

// reportFormats are what a report command writes: text for a terminal, markdown for a review, JSON.
var reportFormats = []string{"text", "md", "json"}

// flagDefs declares every flag once; a command takes the ones it names.
var flagDefs = map[string]func(fs *pflag.FlagSet, o *options){
	"stall": func(fs *pflag.FlagSet, o *options) {
		fs.DurationVar(&o.stall, "stall", ollama.DefaultStallTimeout, "how long ward waits for the model's next words once a reply has begun (`duration`)")
	},
	"timeout": func(fs *pflag.FlagSet, o *options) {
		fs.DurationVar(&o.timeout, "timeout", 0, "stop after this `duration`; the cases not reached by then fail (0: no limit)")
	},
	"knowledge": func(fs *pflag.FlagSet, o *options) {
		fs.StringVar(&o.knowledge, "knowledge", "", "`dir`ectory of your own protocol cards (.md or .txt), beside the built-in ones")
	},
	"embed-model": func(fs *pflag.FlagSet, o *options) {
		fs.StringVar(&o.embedModel, "embed-model", "", "Ollama embedding `model` (e.g. nomic-embed-text) for semantic search; none: full-text only")
	},
	"db": func(fs *pflag.FlagSet, o *options) {
		fs.StringVar(&o.db, "db", defaultDBPath(), "database `file` (env WARD_DB)")
	},
	"trainee": func(fs *pflag.FlagSet, o *options) {
		fs.StringVar(&o.trainee, "trainee", persist.LoginName(), "the trainee whose shifts ward opens, by `name` (encrypt: who gets the shifts that name no one)")
	},
	"debug": func(fs *pflag.FlagSet, o *options) {
		fs.BoolVar(&o.debug, "debug", false, "a developer's view of a plaintext database: the inspector, dump and decisions show the engine's secrets (the case, its states, the true vitals)")
	},
	"instructor": func(fs *pflag.FlagSet, o *options) {
		fs.BoolVar(&o.instructor, "instructor", false, "act as the instructor, whose passphrase opens every trainee's shifts (env "+persist.EnvInstructorPassphrase+")")
	},
	"encrypt": func(fs *pflag.FlagSet, o *options) {
		fs.BoolVar(&o.encrypt, "encrypt", false, "create the database encrypted: the instructor's passphrase, then the trainee's (env "+persist.EnvPassphrase+")")
	},
	"backend": func(fs *pflag.FlagSet, o *options) {
		fs.StringVar(&o.backend, "backend", "auto", "which `backend`: auto (Ollama if it answers, else offline), offline or ollama")
	},
	"model": func(fs *pflag.FlagSet, o *options) {
		fs.StringVar(&o.model, "model", envOr("WARD_MODEL", "llama3.2"), "Ollama `model` (env WARD_MODEL)")
	},
	"trace": func(fs *pflag.FlagSet, o *options) {
		fs.StringVar(&o.trace, "trace", "", "append one JSON line per LLM call to this `file`")
	},
	"scenarios": func(fs *pflag.FlagSet, o *options) {
		fs.StringVar(&o.scenarios, "scenarios", "", "`dir`ectory of extra scenario YAML files")
	},
	"from": func(fs *pflag.FlagSet, o *options) {
		fs.StringVar(&o.from, "from", "", "the `scenario` a new one starts as a copy of")
	},
	"agents": func(fs *pflag.FlagSet, o *options) {
		fs.StringVar(&o.agents, "agents", "", "YAML `file` overriding the built-in agent team")
	},
	"shift": func(fs *pflag.FlagSet, o *options) {
		fs.StringVar(&o.shift, "shift", "", "start a new shift with this `roster`: quiet-night, busy-ed, multi-casualty, medical-take, a file, or next (the cases your progress suggests, see ward progress)")
	},
	"theme": func(fs *pflag.FlagSet, o *options) {
		fs.StringVar(&o.theme, "theme", "dark", "colour `theme`: dark, light or high-contrast")
	},
	"window": func(fs *pflag.FlagSet, o *options) {
		fs.StringVar(&o.window, "window", string(memory.WindowBlock), "message `window`: block (cache-aware) or sliding (the last 8, then 10, messages)")
	},
	"num-ctx": func(fs *pflag.FlagSet, o *options) {
		fs.IntVar(&o.numCtx, "num-ctx", llm.DefaultNumCtx, "context `size` sent to Ollama; kept constant so the model is never reloaded")
	},
	"num-predict": func(fs *pflag.FlagSet, o *options) {
		fs.IntVar(&o.outputBudget, "num-predict", memory.BaseNumPredict, "output budget of a simple turn in `tokens`; compound turns get 1.5× and 2× (lower it on a slow CPU)")
	},
	"new": func(fs *pflag.FlagSet, o *options) {
		fs.BoolVar(&o.newSession, "new", false, "start a new, empty shift instead of resuming the latest")
	},
	"seed": func(fs *pflag.FlagSet, o *options) {
		fs.Int64Var(&o.seed, "seed", 0, "`seed` of a new shift's physiology noise, for reproducible runs (0: from the clock)")
	},
	"patient": func(fs *pflag.FlagSet, o *options) {
		fs.StringVar(&o.patient, "patient", "", "the patient `ID` (aar: default the active one; export: default every patient)")
	},
	"format": func(fs *pflag.FlagSet, o *options) {
		fs.StringVar(&o.format, "format", "md", "output `format`: md or json")
	},
	"xapi-base": func(fs *pflag.FlagSet, o *options) {
		fs.StringVar(&o.xapiBase, "xapi-base", records.DefaultXAPIBase, "with --format xapi: the `IRI` ward names trainees' accounts and cases under (set yours: .invalid never resolves)")
		fs.StringVar(&o.xapiHomePage, "xapi-homepage", "", "with --format xapi: the `IRI` of the system the trainees' accounts are on (default the --xapi-base)")
	},
	"lrs": func(fs *pflag.FlagSet, o *options) {
		fs.StringVar(&o.lrs, "lrs", "", "post the xAPI statements to the learning record store at this xAPI endpoint `URL`, through an outbox in the database (basic auth from WARD_LRS_USER and WARD_LRS_PASSWORD)")
		fs.DurationVar(&o.lrsTimeout, "lrs-timeout", 30*time.Second, "with --lrs: how long to keep trying a store that fails; what it did not take waits for the next run")
	},
	"min": func(fs *pflag.FlagSet, o *options) {
		fs.Float64Var(&o.min, "min", eval.DefaultMin, "the `share` of cases that must pass, or ward exits 1; 0 makes a report that cannot fail")
	},
	"exact": func(fs *pflag.FlagSet, o *options) {
		fs.BoolVar(&o.exact, "exact", false, "compare session IDs and wall-clock times too, which differ between any two runs")
	},
	"out": func(fs *pflag.FlagSet, o *options) {
		fs.StringVar(&o.out, "out", "", "write to this new `file` instead of stdout (recover: the new database)")
	},
	"force": func(fs *pflag.FlagSet, o *options) {
		fs.BoolVar(&o.force, "force", false, "let --out replace a file that exists (never the database, its audit record, a trace or a file ward reads)")
	},
	"bell": func(fs *pflag.FlagSet, o *options) {
		fs.BoolVar(&o.bell, "bell", os.Getenv("WARD_BELL") != "off", "ring the terminal bell when an alarm or escalation sounds (env WARD_BELL=off)")
	},
	"listen": func(fs *pflag.FlagSet, o *options) {
		fs.StringVar(&o.listen, "listen", "127.0.0.1:2222", "the `address` (HOST:PORT) the SSH server listens on")
	},
	"host-key": func(fs *pflag.FlagSet, o *options) {
		fs.StringVar(&o.hostKey, "host-key", "", "the server's SSH host key `file`, made on first start (default: beside the database, DB.hostkey)")
	},
	"slots": func(fs *pflag.FlagSet, o *options) {
		fs.IntVar(&o.slots, "slots", 4, "model calls in flight at once across the class: the model server's parallel `slots`")
	},
	"idle": func(fs *pflag.FlagSet, o *options) {
		fs.DurationVar(&o.idle, "idle", 30*time.Minute, "close a connection after this `duration` without a keystroke, its shift saved (0: never)")
	},
	"key": func(fs *pflag.FlagSet, o *options) {
		fs.StringVar(&o.key, "key", "", "the public key `file` to enrol (one authorized_keys line, e.g. id_ed25519.pub)")
	},
	"member": func(fs *pflag.FlagSet, o *options) {
		fs.StringArrayVar(&o.members, "member", nil, "a member of the team and their role, `NAME:ROLE` (leader, airway, circulation, drugs, recorder, and those --scenario's case names); once per member")
	},
	"scenario": func(fs *pflag.FlagSet, o *options) {
		fs.StringVar(&o.scenario, "scenario", "", "the `ID` of the case the team's shift starts with (default: ward serve's --shift)")
	},
	"authorized-keys": func(fs *pflag.FlagSet, o *options) {
		fs.StringVar(&o.authorizedKeys, "authorized-keys", "", "enrol every key of this authorized_keys `file` as a trainee, its comment the name")
	},
	"json": func(fs *pflag.FlagSet, o *options) {
		fs.BoolVar(&o.json, "json", false, "print JSON instead of a table")
	},
	"last": func(fs *pflag.FlagSet, o *options) {
		fs.IntVar(&o.last, "last", 0, "read the rates over the last `N` turns of the shift (0: the whole shift)")
	},
	"since": func(fs *pflag.FlagSet, o *options) {
		fs.StringVar(&o.since, "since", "", "read the rates over the turns since a `time` (RFC 3339) or a duration ago (e.g. 15m)")
	},
	"alerts": func(fs *pflag.FlagSet, o *options) {
		// The defaults are seed 002's alert levels (records.SeedThresholds).
		o.alerts = records.SeedThresholds
		a := &o.alerts
		fs.Var(percent{&a.MergeSuccessMin}, "alert-merge-success", "flag a merge success rate below this `percent`")
		fs.Var(percent{&a.ParseErrorMax}, "alert-parse-errors", "flag a parse-error rate above this `percent`")
		fs.Var(percent{&a.SwitchSuccessMin}, "alert-switch-success", "flag an agent-switch success rate below this `percent`")
		fs.DurationVar(&a.MergeP95Max, "alert-merge-p95", a.MergeP95Max, "flag a merge p95 above this `duration`")
		fs.Var(percent{&a.EvictionMax}, "alert-evictions", "flag evictions above this `percent` of the entity keys written")
		fs.Var(percent{&a.CountDiffMax}, "alert-count-diff", "flag reported entity keys the merge did not keep above this `percent`")
	},
}

// percent is a flag given in percent and kept as a fraction.
type percent struct{ fraction *float64 }

func (p percent) String() string {
	if p.fraction == nil {
		return ""
	}
	return strconv.FormatFloat(*p.fraction*100, 'g', -1, 64)
}

func (p percent) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || v < 0 || v > 100 {
		return fmt.Errorf("%q is not a percent from 0 to 100", s)
	}
	*p.fraction = v / 100
	return nil
}

func (percent) Type() string { return "percent" }

// allFlags are every command's flags, to read a command line before its command is known.
func allFlags() *pflag.FlagSet {
	fs := pflag.NewFlagSet("ward", pflag.ContinueOnError)
	for _, def := range flagDefs {
		def(fs, &options{})
	}
	return fs
}

// commandFirst puts the command's name first, so that flags may come before or after it, and
// writes a single-dash long flag (-db) as pflag reads it (--db). The name is the first argument
// that is not a flag or a flag's value; a flag's value is recognised by the flag's type, across
// every command's flags, so `ward --db x.db dump` names dump. It returns "" for none.
func commandFirst(args []string) ([]string, string) {
	all := allFlags()
	args = slices.Clone(args)
	for i, arg := range args {
		args[i] = doubleDash(arg, all)
	}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--":
			if i+1 < len(args) {
				return append(append([]string{args[i+1]}, args[:i]...), args[i+2:]...), args[i+1]
			}
			return args, ""
		case len(arg) > 1 && arg[0] == '-':
			name, _, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
			if f := all.Lookup(name); f != nil && !hasValue && f.NoOptDefVal == "" {
				i++ // the next argument is this flag's value
			}
		default:
			return append(append([]string{arg}, args[:i]...), args[i+1:]...), arg
		}
	}
	return args, ""
}

// doubleDash writes -name and -name=value as --name and --name=value when name is one of ward's
// flags (or help), as package flag read them.
func doubleDash(arg string, all *pflag.FlagSet) string {
	name, ok := strings.CutPrefix(arg, "-")
	name, _, _ = strings.Cut(name, "=")
	if !ok || len(name) < 2 || name[0] == '-' || (all.Lookup(name) == nil && name != "help") {
		return arg
	}
	return "-" + arg
}

// flagError is pflag's message as ward writes it, with the help to read.
func flagError(cmd *cobra.Command, err error) error {
	msg := strings.Replace(err.Error(), "unknown flag: --", "unknown flag --", 1)
	return usageError{fmt.Sprintf("%s — see %s --help", msg, cmd.CommandPath())}
}

// argsError is the one-line usage of a command whose arguments are wrong.
func argsError(cmd *cobra.Command) error {
	return usageError{fmt.Sprintf("usage: %s %s — see %s --help", cmd.CommandPath(), argsOf(cmd), cmd.CommandPath())}
}

// argsOf is the synopsis of a command's arguments: what its use says after its name.
func argsOf(cmd *cobra.Command) string {
	_, args, _ := strings.Cut(cmd.Use, " ")
	return args
}

// printHelp prints a command's synopsis, its summary, its commands or verbs, and its flags.
func printHelp(cmd *cobra.Command, w io.Writer) {
	synopsis := cmd.CommandPath() + " [flags]"
	if args := argsOf(cmd); args != "" {
		synopsis += " " + args
	}
	fmt.Fprintf(w, "usage: %s\n\n%s\n", synopsis, cmd.Short)
	if cmd.HasAvailableSubCommands() {
		if cmd.HasParent() {
			fmt.Fprintf(w, "\nverbs (`%s VERB --help` for each one's own):\n", cmd.CommandPath())
		} else {
			fmt.Fprintf(w, "\ncommands (flags go before or after the command; `ward COMMAND --help` for its own):\n")
		}
		for _, c := range cmd.Commands() {
			if c.IsAvailableCommand() || c.Name() == "help" {
				fmt.Fprintf(w, "  %-10s %s\n", c.Name(), c.Short)
			}
		}
	}
	var names, usages []string
	width := 0
	visit := func(f *pflag.Flag) {
		if f.Name == "help" {
			return
		}
		kind, usage := pflag.UnquoteUsage(f)
		name := "--" + f.Name
		if kind != "" && f.NoOptDefVal == "" {
			name += " " + strings.ToUpper(kind)
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		names, usages = append(names, name), append(usages, usage)
		width = max(width, len(name))
	}
	cmd.LocalFlags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	if len(names) > 0 {
		fmt.Fprintf(w, "\nflags:\n")
	}
	for i, name := range names {
		fmt.Fprintf(w, "  %-*s  %s\n", width, name, usages[i])
	}
	if !cmd.HasParent() {
		fmt.Fprintf(w, "\nenvironment: WARD_DB, WARD_MODEL, %s, %s, %s, OLLAMA_HOST, PATIENT_ID_PATTERN, NO_COLOR\n",
			persist.EnvPassphrase, persist.EnvInstructorPassphrase, persist.EnvNewPassphrase)
	}
}

// helpCommand serves `ward help [COMMAND [VERB]]`.
func helpCommand(root *cobra.Command, stdout io.Writer) *cobra.Command {
	return &cobra.Command{Use: "help [COMMAND]", Short: "help [COMMAND] is the same as COMMAND --help",
		RunE: func(_ *cobra.Command, args []string) error {
			cmd, rest, err := root.Find(args)
			if err != nil || len(rest) > 0 {
				return usageError{fmt.Sprintf("unknown command %q — see ward --help", strings.Join(args, " "))}
			}
			printHelp(cmd, stdout)
			return nil
		}}
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
