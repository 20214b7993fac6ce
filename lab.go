package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/themes"
	"github.com/ward-sim/ward/ui/lab"
	gossh "golang.org/x/crypto/ssh"
)

// serveFlags are what `ward serve` accepts: where it listens, and the shift flags every
// trainee's shift shares. No --trace: one file would interleave the class's turns, which no
// replay could follow.
var serveFlags = []string{"db", "encrypt", "listen", "host-key", "slots", "idle", "theme", "backend", "model", "shift", "seed",
	"scenarios", "agents", "window", "num-ctx", "num-predict", "stall", "knowledge", "embed-model"}

// serveCommand declares `ward serve`; its --encrypt asks the instructor's passphrase alone, for
// each trainee chooses theirs over SSH.
func serveCommand(cl *cli) *cobra.Command {
	cmd := cl.build(spec{use: "serve", summary: "the sim lab: serve ward's TUI over SSH to a class, on one database, to enrolled keys only",
		flags: serveFlags, run: serve})
	cmd.Flags().Lookup("encrypt").Usage = "create the database encrypted: the instructor's passphrase (env " +
		persist.EnvInstructorPassphrase + "); each trainee chooses theirs when they first connect"
	return cmd
}

// serve runs the sim lab's SSH server on the database until SIGINT or SIGTERM, which close
// every connection with its shift saved.
func serve(ctx context.Context, c *call) error {
	o := c.o
	if o.slots < 1 {
		return usageError{fmt.Sprintf("--slots %d: the model serves at least one call at a time", o.slots)}
	}
	theme, err := themes.New(o.theme, themes.NoColorRequested())
	if err != nil {
		return err
	}
	hostKey := o.hostKey
	if hostKey == "" {
		hostKey = o.db + ".hostkey"
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM)
	defer stop()
	stopProfile, err := cpuProfile(os.Getenv(cpuProfileEnv))
	if err != nil {
		return err
	}
	defer stopProfile()
	// The server acts for no one: each connection signs in on a view of its own (persist.Store.As).
	store, err := persist.Open(o.db)
	if err != nil {
		return err
	}
	defer store.Close()
	if o.encrypt {
		if err := encryptNew(store); err != nil {
			return err
		}
	}
	setup, notice, err := classSetup(ctx, c, store)
	if err != nil {
		return err
	}
	defer setup.Close()
	queue := llm.NewQueue(setup.Backend(), o.slots) // one model server, shared fairly
	keys := lab.KeysPath(o.db)
	srv, err := lab.New(lab.Config{Setup: setup, HostKey: hostKey, Keys: keys, Teams: lab.TeamsPath(o.db), Idle: o.idle, Theme: theme,
		Shift: o.shift, Notice: notice, Log: c.stderr, Backend: queue.For})
	if err != nil {
		return err
	}
	return listen(ctx, c, srv, keys)
}

// cpuProfileEnv names a file for a CPU profile of the server's whole life (`go tool pprof`),
// written as it shuts down: how a class's load is profiled (BENCHMARKS.md, "A class over SSH").
const cpuProfileEnv = "WARD_CPUPROFILE"

// cpuProfile starts profiling into file, a new file; stop writes the profile out. No file: no
// profile.
func cpuProfile(file string) (stop func(), err error) {
	if file == "" {
		return func() {}, nil
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cpuProfileEnv, err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", cpuProfileEnv, err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// encryptNew makes a new class database encrypted under the instructor's passphrase, asked twice
// (or from the environment); one encrypted already is left as it is, and one that holds shifts is
// refused (ward encrypt converts it). The server stays signed in as no one.
func encryptNew(store *persist.Store) error {
	if on, err := store.Encrypted(); err != nil || on {
		return err
	}
	if shifts, err := store.Sessions(); err != nil || len(shifts) > 0 {
		if err == nil {
			err = errors.New("--encrypt creates an encrypted database, and this one holds shifts already: `ward encrypt` converts it")
		}
		return err
	}
	pass, err := persist.AskPassphrase(persist.EnvInstructorPassphrase, "The instructor's passphrase for this new encrypted database", true)
	if err == nil {
		err = store.Protect(pass)
	}
	return err
}

// classSetup wires what every trainee's shift shares, once; notice is why the offline backend
// answers, if it does, for the server's stderr and every trainee's status bar.
func classSetup(ctx context.Context, c *call, store *persist.Store) (setup *session.Setup, notice string, err error) {
	o := c.o
	w, err := wiring(o, store)
	if err != nil {
		return nil, "", err
	}
	setup, err = session.NewSetup(ctx, store, session.Flags{
		Backend: o.backend, Model: o.model, Stall: o.stall, NumCtx: o.numCtx, OutputBudget: o.outputBudget,
		Window: o.window, Theme: o.theme, Scenarios: o.scenarios, Agents: o.agents, Seed: o.seed,
		ConfirmAdmissions: true, Given: map[string]bool{"theme": true, "window": c.given("window"), "model": true},
	}, w, func(note string) { notice = note; toStderr(c.stderr)(note) })
	return setup, notice, err
}

// listen serves on --listen until ctx ends, then shuts the server down.
func listen(ctx context.Context, c *call, srv *lab.Server, keys string) error {
	l, err := net.Listen("tcp", c.o.listen)
	if err != nil {
		return err
	}
	enrolled, err := lab.ReadEnrolments(keys)
	if err != nil {
		l.Close()
		return err
	}
	fmt.Fprintf(c.stdout, "ward: serving %s on %s (%d trainees enrolled)\n", c.o.db, l.Addr(), enrolled.Count())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(shutdown)
}

// enrolCommand declares `ward enrol`; its --instructor enrols the instructor's key.
func enrolCommand(cl *cli) *cobra.Command {
	cmd := cl.build(spec{use: "enrol [NAME]",
		summary: "enrol an SSH public key for ward serve: a trainee's (NAME --key FILE), the instructor's (--instructor), " +
			"or each line of --authorized-keys FILE",
		flags: []string{"db", "key", "instructor", "authorized-keys"}, args: count(0, 1), run: enrol})
	cmd.Flags().Lookup("instructor").Usage = "the key is the instructor's: it opens the board"
	return cmd
}

// enrol enrols a key (NAME --key FILE, the instructor's with --instructor) or every key of an
// authorized_keys file (--authorized-keys), in the enrolments beside the database; a running
// server reads them at its next connection.
func enrol(_ context.Context, c *call) error {
	o := c.o
	var es lab.Enrolments
	switch {
	case o.authorizedKeys != "" && (len(c.args) > 0 || o.key != "" || o.instructor):
		return usageError{"ward enrol --authorized-keys FILE takes no NAME, --key or --instructor: each line's comment names its trainee"}
	case o.authorizedKeys != "":
		var err error
		if es, err = lab.AuthorizedKeys(o.authorizedKeys); err != nil {
			return err
		}
	case len(c.args) != 1 || o.key == "":
		return usageError{"usage: ward enrol NAME --key FILE [--instructor], or ward enrol --authorized-keys FILE — see ward enrol --help"}
	default:
		e, err := enrolment(c.args[0], o.key, o.instructor)
		if err != nil {
			return err
		}
		es = lab.Enrolments{e}
	}
	added, err := lab.Enrol(lab.KeysPath(o.db), es...)
	if err != nil {
		return err
	}
	for _, e := range added {
		role := "trainee"
		if e.Instructor {
			role = "instructor"
		}
		fmt.Fprintf(c.stdout, "enrolled %s %s (%s)\n", role, e.Name, gossh.FingerprintSHA256(e.Key))
	}
	if len(added) < len(es) {
		fmt.Fprintf(c.stdout, "%d key(s) were enrolled already\n", len(es)-len(added))
	}
	return nil
}

func teamCommand(cl *cli) *cobra.Command {
	return cl.build(spec{use: "team NAME",
		summary: "form a resuscitation team for ward serve: enrolled trainees, each in a role (--member NAME:ROLE), " +
			"sharing one shift of --scenario's case",
		flags: []string{"db", "member", "scenario", "scenarios"}, args: count(1, 1), run: team})
}

// team forms a team of enrolled trainees (--member NAME:ROLE, once each) in the teams beside the
// database; a running server reads them at its next connection.
func team(_ context.Context, c *call) error {
	o := c.o
	if len(o.members) == 0 {
		return usageError{"usage: ward team NAME --member NAME:ROLE... [--scenario ID] — roles: " + strings.Join(session.TeamRoles, ", ") + ", and those the case names"}
	}
	t := lab.Team{Name: c.args[0], Scenario: o.scenario}
	for _, s := range o.members {
		m, err := lab.ParseMember(s)
		if err != nil {
			return usageError{"--member " + err.Error()}
		}
		t.Members = append(t.Members, m)
	}
	lib, err := session.LoadLibrary(o.scenarios)
	if err != nil {
		return err
	}
	roles, err := session.TeamRolesFor(lib, t.Scenario)
	if err != nil {
		return usageError{"--scenario " + err.Error()}
	}
	enrolled, err := lab.ReadEnrolments(lab.KeysPath(o.db))
	if err != nil {
		return err
	}
	if err := lab.FormTeam(lab.TeamsPath(o.db), t, enrolled, roles); err != nil {
		return err
	}
	var members []string
	for _, m := range t.Members {
		members = append(members, m.String())
	}
	_, err = fmt.Fprintf(c.stdout, "formed team %s: %s\n", t.Name, strings.Join(members, ", "))
	return err
}

// enrolment reads --key FILE: one public key in authorized_keys form.
func enrolment(name, file string, instructor bool) (lab.Enrolment, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return lab.Enrolment{}, err
	}
	key, _, err := lab.ParseKey(data)
	if err != nil {
		return lab.Enrolment{}, fmt.Errorf("--key %s: %w", file, err)
	}
	return lab.Enrolment{Name: name, Instructor: instructor, Key: key}, nil
}
