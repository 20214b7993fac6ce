package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/charmbracelet/ssh"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/live"
	"github.com/ward-sim/ward/ui"
	"golang.org/x/term"
)

// train runs a trainee's connection: signed in (their passphrase in an encrypted database),
// seated in the class (taking over a connection of theirs still open), their latest shift
// resumed, their program run by next; then their shift saved, once any turn running has
// committed, even when the connection dropped mid-turn.
func (s *Server) train(c *conn, next ssh.Handler) {
	who := persist.Person{Trainee: c.who.Name}
	view, err := s.signIn(c)
	if err != nil {
		s.refuse(c, who, err)
		return
	}
	s.audit(who, persist.AuditSignIn, describe(c.sess))
	st := &seat{name: c.who.Name, since: time.Now(), close: c.close, done: make(chan struct{})}
	defer close(st.done)
	defer view.Close()
	s.takeOver(c, st)
	defer s.class.leave(st)
	sh, opts, err := s.openShift(c, view)
	if err != nil {
		s.refuse(c, who, fmt.Errorf("could not open your shift: %w", err))
		return
	}
	defer sh.Live.Close() // after the turns: saves the clock
	s.class.seat(st, sh.Live)
	c.model = framed{Model: ui.New(sh, opts), frame: &st.frame}
	c.sess.Context().SetValue(connKey{}, c)
	next(c.sess)
	s.audit(who, persist.AuditDisconnect, c.why())
	c.farewell()
	sh.stop()
}

// takeOver seats st, closing the trainee's older connection if one is open and waiting until
// its shift is saved: a turn it was running commits before this one resumes the shift.
func (s *Server) takeOver(c *conn, st *seat) {
	old := s.class.take(st)
	if old == nil {
		return
	}
	s.audit(persist.Person{Trainee: st.name}, persist.AuditTakeover, describe(c.sess))
	old.close("ward: you connected again from elsewhere; this connection is closed (your shift is saved)")
	select {
	case <-old.done:
	case <-time.After(500 * time.Millisecond):
		say(c.sess, "ward: your other connection is finishing its turn; you will be in once it is saved")
		<-old.done
	}
}

// signIn is a view of the store signed in as the trainee. In an encrypted database their
// passphrase is asked on their terminal, without echo (three tries, each wrong one audited),
// and a trainee new to it chooses one, asked twice.
func (s *Server) signIn(c *conn) (*persist.Store, error) {
	who := persist.Person{Trainee: c.who.Name}
	encrypted, err := s.store.Encrypted()
	if err != nil || !encrypted {
		if err != nil {
			return nil, err
		}
		return s.store.As(who, nil)
	}
	known, err := s.store.Enrolled(who.Trainee)
	if err != nil {
		return nil, err
	}
	t := term.NewTerminal(struct {
		io.Reader
		io.Writer
	}{c.in, c.sess}, "")
	if !known {
		return s.choosePassphrase(t, who.Trainee)
	}
	for try := 1; ; try++ {
		pass, err := t.ReadPassword(fmt.Sprintf("Passphrase of trainee %s: ", who.Trainee))
		if err != nil {
			return nil, refusal{"ward: no passphrase was given", "no passphrase: " + err.Error()}
		}
		view, err := s.store.As(who, []byte(pass))
		switch {
		case err == nil:
			return view, nil
		case !errors.Is(err, persist.ErrWrongPassphrase):
			return nil, err
		case try == 3:
			return nil, refusal{"ward: wrong passphrase, three times", "wrong passphrase"}
		}
		fmt.Fprintln(t, "That passphrase is wrong; try again.")
	}
}

// choosePassphrase enrols a trainee new to an encrypted database with the passphrase they type,
// twice alike.
func (s *Server) choosePassphrase(t *term.Terminal, trainee string) (*persist.Store, error) {
	fmt.Fprintf(t, "Trainee %s is new to this database: choose a passphrase.\n", trainee)
	for try := 1; ; try++ {
		pass, err := t.ReadPassword("Passphrase: ")
		var again string
		if err == nil {
			again, err = t.ReadPassword("The same again: ")
		}
		if err != nil {
			return nil, refusal{"ward: no passphrase was chosen", "no passphrase: " + err.Error()}
		}
		if pass != again {
			err = errors.New("the two passphrases differ")
		}
		var view *persist.Store
		if err == nil {
			view, err = s.store.EnrolAs(trainee, []byte(pass))
		}
		if err == nil {
			return view, nil
		}
		if try == 3 {
			return nil, refusal{"ward: " + err.Error(), "no passphrase chosen: " + err.Error()}
		}
		fmt.Fprintf(t, "%v; try again.\n", err)
	}
}

// openShift resumes the trainee's latest shift on their view; with none, or one left with no
// patient, it starts --shift, or offers the start dialog; the trainee is fixed: the dialog cannot start a shift for anyone else.
func (s *Server) openShift(c *conn, view *persist.Store) (*shift, ui.Options, error) {
	name := c.who.Name
	ctx := context.Background() // a turn outlives its connection, to commit
	opts := ui.Options{Theme: s.cfg.Theme, Trainee: name, TraineeFixed: true, Clipboard: c.sess, Confined: true,
		SaveDir: filepath.Join(s.store.Path()+".exports", name)}
	if err := os.MkdirAll(opts.SaveDir, 0o700); err != nil {
		return nil, opts, err
	}
	setup := s.cfg.Setup.ForTrainee(view, s.cfg.Backend(name))
	sess, resumed, err := setup.Resume(ctx)
	if err == nil && !resumed {
		sess, err = setup.Start(ctx, s.cfg.Shift)
	}
	if err != nil {
		return nil, opts, err
	}
	sh := &shift{gone: make(chan struct{})}
	restart := func(shiftID, trainee string) (*session.Session, error) {
		if trainee != name {
			return nil, fmt.Errorf("this connection is %s's", name)
		}
		return setup.Start(ctx, shiftID)
	}
	sh.Live = live.NewLive(sess, restart)
	if len(sess.Summaries()) == 0 { // nothing on the roster yet: --shift, or the trainee chooses
		if resumed && s.cfg.Shift != "" {
			err = sh.Live.Start(ctx, s.cfg.Shift, name) // the empty shift left is discarded
		}
		if s.cfg.Shift == "" {
			for _, r := range setup.Library().Shifts() {
				opts.StartShifts = append(opts.StartShifts, ui.ShiftChoice{ID: r.ID, Title: r.Title, Summary: fmt.Sprintf("%d patients", len(r.Patients))})
			}
		}
	}
	return sh, opts, err
}

// shift is a trainee's Live as their screen uses it. A turn runs on when the connection ends:
// what it streams then is read and dropped, so it finishes and commits; stop waits for it.
type shift struct {
	*live.Live
	mu    sync.Mutex
	ended bool
	gone  chan struct{}
	turns sync.WaitGroup
}

// Submit runs a turn, as Live does.
func (sh *shift) Submit(ctx context.Context, text string) <-chan live.Update {
	return sh.turn(func() <-chan live.Update { return sh.Live.Submit(ctx, text) })
}

// Retry runs the last turn again, as Live does.
func (sh *shift) Retry(ctx context.Context) <-chan live.Update {
	return sh.turn(func() <-chan live.Update { return sh.Live.Retry(ctx) })
}

func (sh *shift) turn(run func() <-chan live.Update) <-chan live.Update {
	out := make(chan live.Update)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.ended { // the screen is gone: start nothing
		close(out)
		return out
	}
	in := run()
	sh.turns.Add(1)
	go func() {
		defer sh.turns.Done()
		defer close(out)
		for u := range in {
			select {
			case out <- u:
			case <-sh.gone:
			}
		}
	}()
	return out
}

// stop ends the screen's use of the shift and waits for a turn still running to commit.
func (sh *shift) stop() {
	sh.mu.Lock()
	sh.ended = true
	close(sh.gone)
	sh.mu.Unlock()
	sh.turns.Wait()
}
