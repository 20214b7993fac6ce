package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/charmbracelet/ssh"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/live"
	"github.com/ward-sim/ward/ui"
)

// train runs a trainee's connection: signed in (their passphrase in an encrypted database),
// seated in the class (taking over a connection of theirs still open), their latest shift
// resumed, their program run by next; then their shift saved, once any turn running has
// committed, even when the connection dropped mid-turn.
func (s *Server) train(c *conn, next ssh.Handler) {
	who := c.who.person()
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
	defer sh.release() // after the turns: saves the clock
	defer sh.stop()
	team, role := "", ""
	if sh.member != nil {
		team, role = sh.team.team.Name, sh.member.Role
	}
	s.class.seat(st, sh.Live, team, role)
	d := s.class.draft(st.name)
	opts.Unsent, opts.Typed = d.lines, d.typed
	screen := ui.New(sh, opts)
	c.model = framed{Model: screen, frame: &st.frame, size: c.size}
	c.sess.Context().SetValue(connKey{}, c)
	next(c.sess)
	d.lines, d.typed = screen.Unsent() // nothing typed is lost with the connection
	s.class.keep(st.name, d)
	s.audit(who, persist.AuditDisconnect, c.why())
	c.farewell()
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

// openShift resumes the trainee's latest shift on their view; with none, or one left with no
// patient, it starts --shift, or offers the start dialog, which cannot start a shift for anyone
// else (the trainee is fixed).
func (s *Server) openShift(c *conn, view *persist.Store) (*shift, ui.Options, error) {
	name := c.who.Name
	if t, ok, err := s.teamOf(name); err != nil || ok {
		if err != nil {
			return nil, ui.Options{}, err
		}
		return s.openTeamShift(c, view, t)
	}
	ctx := context.Background() // a turn outlives its connection, to commit
	opts := ui.Options{Theme: s.cfg.Theme, Trainee: name, TraineeFixed: true, Notice: s.cfg.Notice,
		Clipboard: c.sess, Confined: true, SaveDir: filepath.Join(s.store.Path()+".exports", name)}
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
	sh := &shift{srv: s, who: c.who.person(), gone: make(chan struct{})}
	sh.release = func() { _ = sh.Live.Close() }
	restart := func(shiftID, trainee string) (*session.Session, error) {
		if trainee != name {
			return nil, fmt.Errorf("this connection is %s's", name)
		}
		return setup.Start(ctx, shiftID)
	}
	sh.Live = live.NewLive(sess, restart)
	sh.Live.OnPanic(func(v any, stack []byte) { s.panicked(c.who.person(), "a turn", v, stack) })
	// Nothing on the roster yet: --shift, or the trainee chooses. Without --shift, a shift that is
	// over offers the choice too, as at the terminal: their next shift first.
	if over := sess.Over(); len(sess.Summaries()) == 0 || (over && s.cfg.Shift == "") {
		if resumed && s.cfg.Shift != "" {
			err = sh.Live.Start(ctx, s.cfg.Shift, name) // the empty shift left is discarded
		}
		if s.cfg.Shift == "" {
			opts.StartShifts, opts.NextShift = ui.StartChoices(setup, over)
		}
	}
	return sh, opts, err
}

// shift is a trainee's Live as their screen uses it. A turn runs on when the connection ends:
// what it streams then is read and dropped, so it finishes and commits; stop waits for it. What
// the screen asks once it is gone (a start or a switch it sent as the connection dropped) is not
// done: the trainee's view of the store closes after stop.
type shift struct {
	*live.Live
	srv     *Server
	who     persist.Person
	release func()          // once its turns are over: the Live saved, or the team's left
	member  *session.Member // a team member's: their lines are theirs, in their role
	team    *teamShift
	mu      sync.Mutex
	ended   bool
	gone    chan struct{}
	busy    sync.WaitGroup // turns, starts and switches under way
}

// errGone is what the screen hears when it asks after its connection ended.
var errGone = errors.New("the connection has ended")

// Submit runs a turn, as Live does; a team member's, as theirs.
func (sh *shift) Submit(ctx context.Context, text string) <-chan live.Update {
	if sh.member != nil {
		team := sh.srv.members(sh.team)
		return sh.turn(func() <-chan live.Update { return sh.Live.SubmitAs(ctx, *sh.member, team, text) })
	}
	return sh.turn(func() <-chan live.Update { return sh.Live.Submit(ctx, text) })
}

// errTeamRetry is why a team member cannot retry: the last line may be another member's.
var errTeamRetry = errors.New("a team's shift has no retry: the last line may be another member's; say it again")

// Retry runs the last turn again, as Live does; a team's shift has none.
func (sh *shift) Retry(ctx context.Context) <-chan live.Update {
	if sh.member != nil {
		out := make(chan live.Update, 2)
		out <- live.Update{Kind: live.UpdateError, Text: errTeamRetry.Error()}
		out <- live.Update{Kind: live.UpdateChanged}
		close(out)
		return out
	}
	return sh.turn(func() <-chan live.Update { return sh.Live.Retry(ctx) })
}

// Start starts a shift, as Live does; a team's is started by ward team.
func (sh *shift) Start(ctx context.Context, shiftID, trainee string) error {
	if sh.member != nil {
		return errors.New("a team's shift is started by the instructor (ward team)")
	}
	if !sh.enter() {
		return errGone
	}
	defer sh.busy.Done()
	return sh.Live.Start(ctx, shiftID, trainee)
}

// Switch makes a patient active, as Live does.
func (sh *shift) Switch(ctx context.Context, patientID string) error {
	if !sh.enter() {
		return errGone
	}
	defer sh.busy.Done()
	return sh.Live.Switch(ctx, patientID)
}

// enter counts a call in; false once the screen is gone.
func (sh *shift) enter() bool {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if !sh.ended {
		sh.busy.Add(1)
	}
	return !sh.ended
}

func (sh *shift) turn(run func() <-chan live.Update) <-chan live.Update {
	out := make(chan live.Update)
	if !sh.enter() {
		close(out)
		return out
	}
	in := run()
	go func() {
		defer sh.busy.Done()
		defer close(out)
		defer sh.srv.survive(sh.who, "a turn's stream", nil)
		for u := range in {
			select {
			case out <- u:
			case <-sh.gone:
			}
		}
	}()
	return out
}

// stop ends the screen's use of the shift and waits for what it started to finish.
func (sh *shift) stop() {
	sh.mu.Lock()
	sh.ended = true
	close(sh.gone)
	sh.mu.Unlock()
	sh.busy.Wait()
}
