// Command ward is a terminal clinical simulation: a shift of patients played by a local LLM over a
// deterministic physiology engine. This file is the composition root: it declares the commands
// and wires the packages. The command machinery is in cli.go, output in output.go, and the
// commands' bodies beside them by topic: shift.go (the TUI and `ward run`), read.go (what reads
// stored shifts), access.go (passphrases, encryption, recovery) and tools.go (scenarios, cards,
// evals, traces, the setup check).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/spf13/cobra"
	"github.com/ward-sim/ward/agents/replay"
	"github.com/ward-sim/ward/persist/outfile"
)

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
		fmt.Fprintln(&terminalWriter{w: stderr}, "ward:", err) // one line: no character is cut
	}
	return exitCode(err)
}

// exitCode is 0 for success; 2 for a mistake on the command line, an output ward refuses to
// write, or a trace ward refuses to replay (replay.ErrUnreplayable); and 1 for any other failure
// (a replay that diverged, a file that does not read as a trace, an eval below its bar, a trace
// left incomplete).
func exitCode(err error) int {
	var usage usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &usage), errors.Is(err, replay.ErrUnreplayable),
		errors.Is(err, outfile.ErrExists), errors.Is(err, outfile.ErrInUse):
		return 2
	}
	return 1
}

// run parses a command line, with flags before or after the command's name, and runs it.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	args, name := commandFirst(args)
	out, diag := &terminalWriter{w: stdout}, &terminalWriter{w: stderr}
	root := commands(&cli{stdin: stdin, stdout: out, stderr: diag})
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetHelpFunc(func(cmd *cobra.Command, _ []string) { printHelp(cmd, stdout) })
	root.SetHelpCommand(helpCommand(root, stdout))
	root.InitDefaultHelpCmd()
	root.SetFlagErrorFunc(flagError)
	if name != "" {
		if cmd, _, err := root.Find([]string{name}); err != nil || cmd == root {
			return usageError{fmt.Sprintf("unknown command %q — see ward --help", name)}
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := root.ExecuteContext(ctx)
	return errors.Join(err, out.flush(), diag.flush())
}

// Commands are listed in the order commands declares them. Cobra's switch is a package variable,
// set once here: set in commands, every in-process run (the tests run them in parallel) wrote it.
func init() { cobra.EnableCommandSorting = false }

// commands declares every command: its synopsis, summary, flags, arguments and body.
func commands(cl *cli) *cobra.Command {
	root := cl.build(spec{use: "ward", summary: "open the TUI (resumes the latest shift)",
		flags: append([]string{"theme", "bell"}, sessionFlags...), run: tui})
	root.SilenceErrors, root.SilenceUsage = true, true
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(
		cl.build(spec{use: "run", summary: "headless: one turn per stdin line, one JSON event per stdout line",
			flags: sessionFlags, run: runHeadless}),
		cl.build(spec{use: "dump", summary: "print the latest shift as JSON",
			flags: append([]string{"scenarios"}, readFlags...), run: dump}),
		cl.build(spec{use: "aar", summary: "After Action Review of a patient (default: the active one)",
			flags: append(append([]string{"scenarios", "patient"}, outFlags...), readFlags...), run: aar}),
		cl.build(spec{use: "export", summary: "a patient's chat, or the whole shift's, with times and speakers",
			flags: append(append([]string{"patient"}, outFlags...), readFlags...), run: export}),
		cl.group("archive list | show N | restore N", "the archives a clear made; N is the number list shows", readFlags,
			spec{use: "list", summary: "the archives of the latest shift, numbered", run: archiveList},
			spec{use: "show N", summary: "print archive N as JSON", args: count(1, 1), run: archiveShow},
			spec{use: "restore N", summary: "put archive N back as the shift's patients", args: count(1, 1), run: archiveRestore}),
		cl.group("scenarios list | new ID --from EXISTING | check [FILE...]", "the scenario library, and writing a scenario", nil,
			append([]spec{
				{use: "list", summary: "every scenario: its setting, built-in or from --scenarios", flags: []string{"scenarios"}, run: scenariosList},
			}, scenarioAuthoring()...)...),
		cl.build(spec{use: "formulary [DRUG]", summary: "the formulary: every drug's doses by route, or one drug's",
			args: count(0, 1), run: formulary}),
		cl.build(spec{use: "stats", summary: "entity and agent-team counters of the latest shift",
			flags: append([]string{"json", "last", "since", "alerts"}, readFlags...), run: stats}),
		cl.build(spec{use: "recover", summary: "copy what is readable of a damaged --db into a new file (--out); --instructor checks every encrypted value",
			flags: []string{"db", "out", "instructor"}, run: recoverDB}),
		cl.build(spec{use: "progress", summary: "a trainee's shifts over time: scores, critical errors, time to critical actions",
			flags: append([]string{"scenarios", "json"}, readFlags...), run: progress}),
		cl.build(spec{use: "report", summary: "the class report: every trainee's shifts (the instructor's passphrase when encrypted)",
			flags: append([]string{"db", "scenarios", "xapi-base", "lrs"}, outFlags...), formats: []string{"md", "csv", "json", "xapi"}, run: report}),
		cl.build(spec{use: "audit", summary: "who opened, exported, cleared or restored what, and failed passphrases",
			flags: []string{"db", "json"}, run: auditList}),
		cl.build(spec{use: "encrypt", summary: "encrypt a database's records under a new instructor's passphrase",
			flags: []string{"db", "trainee"}, run: encrypt}),
		cl.build(spec{use: "passwd", summary: "give a trainee a new passphrase (theirs, or with --instructor the instructor's, opens it); --instructor alone changes the instructor's",
			flags: []string{"db", "trainee", "instructor"}, run: passwd}),
		serveCommand(cl),
		enrolCommand(cl),
		curriculumCommand(cl),
		teamCommand(cl),
		cl.build(spec{use: "doctor", summary: "check the Ollama setup ward will use, and say what to change",
			flags: []string{"model", "num-ctx"}, run: doctor}),
		cl.group("kb list | search QUERY | show ID", "the protocol cards ward answers from, and what a query retrieves", []string{"knowledge"},
			spec{use: "list", summary: "every card, built-in and from --knowledge", run: kbList},
			spec{use: "search QUERY...", summary: "the passages a query retrieves, numbered for citation",
				flags: []string{"embed-model"}, args: count(1, -1), run: kbSearch},
			spec{use: "show ID", summary: "print one card", args: count(1, 1), run: kbShow}),
		evalCommands(cl),
		cl.build(spec{use: "replay TRACE", summary: "replay a --trace file with no model: exit 0 when ward sends every request as recorded, 1 at the first that differs or when the file is no trace ward reads, 2 when it refuses the trace (another format, scenarios, agents or cards)",
			flags: []string{"scenarios", "agents", "knowledge"}, args: count(1, 1), run: replayCommand}),
		cl.build(spec{use: "diff TRACE_A TRACE_B", summary: "compare two traces' calls, aligned by turn and agent, section by section",
			flags: append([]string{"exact"}, outFlags...), formats: reportFormats[:2], args: count(2, 2), run: diffCommand}),
		cl.build(spec{use: "inspect TRACE", summary: "browse a trace's turns and calls in the prompt inspector",
			flags: []string{"theme"}, args: count(1, 1), run: inspectCommand}),
		cl.build(spec{use: "version", summary: "the module version and the commit ward was built from", run: version}),
	)
	return root
}

// evalCommands declares `ward eval SUITE`: every suite takes the same flags.
func evalCommands(cl *cli) *cobra.Command {
	suite := func(name, summary string) spec {
		return spec{use: name, summary: summary, formats: reportFormats,
			run: func(ctx context.Context, c *call) error { return evalSuite(ctx, c, name) }}
	}
	return cl.group("eval delta | analyzer | patient | debrief | arrest | knowledge",
		"how well a model (or the offline backend) does what ward asks, or the cards' retrieval; exit 1 below --min",
		append([]string{"backend", "model", "num-ctx", "num-predict", "min", "timeout", "knowledge", "embed-model"}, outFlags...),
		suite("delta", "the entity deltas a model extracts from a patient's replies"),
		suite("analyzer", "how a line is read: which patient, which intent (the model alone on Ollama, the rules offline)"),
		suite("patient", "the patient's replies: in character, and inventing nothing the scenario does not hold"),
		suite("debrief", "the debrief: names the critical errors and what went well"),
		suite("arrest", "the team in a cardiac arrest: never naming the rhythm, nor a pulse, shock or drug the engine did not give"),
		suite("knowledge", "the protocol cards' retrieval: recall@3 over the question set"))
}
