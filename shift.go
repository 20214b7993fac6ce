package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/ward-sim/ward/agents/backend"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/live"
	"github.com/ward-sim/ward/themes"
	"github.com/ward-sim/ward/ui"
)

// person is whom the flags name. The instructor sees every trainee unless --trainee names one.
func person(c *call) persist.Person {
	p := persist.Person{Trainee: c.o.trainee, Instructor: c.o.instructor, Login: !c.given("trainee")}
	if p.Instructor && p.Login {
		p.Trainee, p.Login = "", false
	}
	return p
}

// openShift opens the database to play a shift, signed in as the flags say (a file dump would
// call damaged is refused before anything is written), and wires shifts on it once. screen is a
// person at the TUI; notices hears one-line notes for the user. done releases the trace and the
// store.
func openShift(ctx context.Context, c *call, screen bool, notices func(string)) (setup *session.Setup, done func(), err error) {
	o := c.o
	store, err := persist.OpenAs(o.db, persist.Access{Person: person(c), Play: true, Encrypt: o.encrypt})
	if err != nil {
		return nil, nil, err
	}
	if backup := store.BindingBackup(); backup != "" {
		fmt.Fprintf(c.stderr, "ward: the encrypted values of %s are now bound to their places in the file; the file as it was is at %s (delete it once ward opens the file)\n", store.Person(), backup)
	}
	w, err := wiring(o, store)
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	given := map[string]bool{}
	for _, name := range []string{"theme", "window", "model"} {
		given[name] = c.cmd.Flags().Lookup(name) != nil && c.given(name)
	}
	setup, err = session.NewSetup(ctx, store, session.Flags{
		Backend: o.backend, Model: o.model, Stall: o.stall, NumCtx: o.numCtx, OutputBudget: o.outputBudget,
		Window: o.window, Theme: o.theme, Shift: o.shift, Seed: o.seed, Fresh: o.newSession,
		Scenarios: o.scenarios, Agents: o.agents, Trace: o.trace,
		ConfirmAdmissions: screen, Given: given, Instructor: secretsShown(o, store),
	}, w, notices)
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	return setup, func() { setup.Close(); store.Close() }, nil
}

// wiring is the composition root's part of a setup: ward's backends (agents/backend) and the
// protocol cards, their embeddings kept in store.
func wiring(o *options, store *persist.Store) (session.Wiring, error) {
	kb, err := backend.Knowledge(o.knowledge, o.embedModel, store)
	return session.Wiring{Backends: backend.Choose, Knowledge: kb}, err
}

// traceComplete fails a command whose trace stopped part way: the shift was played, but what
// --trace holds is not all of it.
func traceComplete(c *call, setup *session.Setup) error {
	if err := setup.Trace().Err(); err != nil {
		return fmt.Errorf("--trace %s: %w; `ward replay` replays the turns before the failure", c.o.trace, err)
	}
	return nil
}

func runHeadless(ctx context.Context, c *call) error {
	setup, done, err := openShift(ctx, c, false, toStderr(c.stderr))
	if err != nil {
		return err
	}
	defer done()
	if err := setup.Store().Verified(); err != nil { // no screen to open meanwhile: a damaged file is refused before a line is read
		return err
	}
	s, _, err := setup.Open(ctx)
	if err != nil {
		return err
	}
	if err := s.RunLines(ctx, c.stdin, c.stdout); err != nil {
		return err
	}
	return traceComplete(c, setup)
}

// tui opens the terminal UI. With no shift to resume, or one that is over (and no --new or
// --shift), it offers the trainee's next shift and the built-in shifts in a start dialog.
func tui(ctx context.Context, c *call) error {
	o := c.o
	var opts ui.Options
	if o.bell {
		opts.Bell = os.Stderr
	}
	setup, done, err := openShift(ctx, c, true, func(note string) { opts.Notice = note })
	if err != nil {
		return err
	}
	defer done()
	// The store checks the file for damage while the screen opens (persist.Store.Verified): a
	// damaged file ends the screen with the check's report, the one error that then matters.
	ctx, refuse := context.WithCancelCause(ctx)
	defer refuse(nil)
	go func() {
		if err := setup.Store().Verified(); err != nil {
			refuse(err)
		}
	}()
	err = tuiOn(ctx, c, setup, &opts)
	if damage := setup.Store().Verified(); damage != nil {
		return damage
	}
	return err
}

// tuiOn runs the screen on the shift setup opened.
func tuiOn(ctx context.Context, c *call, setup *session.Setup, opts *ui.Options) error {
	o := c.o
	s, resumed, err := setup.Open(ctx)
	if err != nil {
		return err
	}
	if opts.Theme, err = themes.New(setup.Theme(), themes.NoColorRequested()); err != nil { // the trainee's preferred one, unless --theme
		return err
	}
	store := setup.Store()
	opts.Trainee = store.Person().Trainee
	if opts.TraineeFixed, err = store.Encrypted(); err != nil {
		return err
	}
	if over := resumed && s.Over(); (!resumed || over) && !o.newSession && o.shift == "" {
		opts.StartShifts, opts.NextShift = ui.StartChoices(setup, over)
	}
	restart := func(shift, trainee string) (*session.Session, error) {
		if p := store.Person(); trainee != p.Trainee {
			if opts.TraineeFixed {
				return nil, fmt.Errorf("this database is encrypted and opened for %s: quit, and start ward with --trainee %s", p, trainee)
			}
			if err := store.SignIn(persist.Person{Trainee: trainee}, nil); err != nil {
				return nil, err
			}
		}
		return setup.Start(ctx, shift)
	}
	// The screen asks for the theme right after a start, from the goroutine that started it.
	opts.StartedTheme = func() (themes.Theme, error) { return themes.New(setup.Theme(), themes.NoColorRequested()) }
	engine := live.NewLive(s, restart)
	defer engine.Close()
	return errors.Join(ui.Run(ctx, engine, *opts), traceComplete(c, setup))
}

// readStore opens a snapshot of the database for a read-only command, signed in as the flags
// say: it works while another ward holds the file, and it never creates a database or a
// directory. Once fn has succeeded, the audit records action on the person's latest shift (on
// none for a report).
func readStore(c *call, action, detail string, fn func(*persist.Store) error) error {
	store, err := persist.OpenSnapshotAs(c.o.db, persist.Access{Person: person(c)})
	if err != nil {
		return err
	}
	defer store.Close()
	if err := fn(store); err != nil {
		return err
	}
	shift := ""
	if info, ok, _ := store.LatestSession(); ok && action != persist.AuditReport {
		shift = info.ID
	}
	// The output is already printed: the command still fails, because an unaudited disclosure is
	// what the audit exists to catch, but it says what went out.
	if err := store.Audit().Record(store.Person(), action, shift, detail); err != nil {
		return fmt.Errorf("%s was printed but is not in the audit record: %w", detail, err)
	}
	return nil
}
