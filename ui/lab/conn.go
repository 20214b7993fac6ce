package lab

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/ssh"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/ui/board"
	gossh "golang.org/x/crypto/ssh"
)

// conn is one SSH connection: who it is, the program it shows once running, and the line it
// ends with when the server ends it.
type conn struct {
	sess  ssh.Session
	key   string // the fingerprint of the key it logged in with
	who   Enrolment
	in    *activity
	size  *askedSize
	model tea.Model // what the program shows; nil for none

	mu      sync.Mutex
	program *tea.Program
	line    string // the last words, once the server is closing it
	said    bool   // the line was written
}

type connKey struct{}

// refuseAfter is how long a connection over the limits waits for its refusal.
const refuseAfter = time.Second

// refusal is a connection turned away: the one line the client reads, and what the audit
// records.
type refusal struct{ line, detail string }

func (r refusal) Error() string { return r.line }

// admit is the handler of every connection: who it is, then the trainee's shift or the
// instructor's board, run by the middleware after it (next) as a Bubble Tea program.
func (s *Server) admit(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		if t, ok := sess.Context().Value(loginTimer{}).(*time.Timer); ok {
			t.Stop() // logged in
		}
		sess.Context().SetValue(sessionOpened{}, true)
		size := &askedSize{}
		sess = s.followSize(sess, size)
		c := &conn{sess: sess, in: &activity{r: sess}, size: size}
		if k := sess.PublicKey(); k != nil {
			c.key = gossh.FingerprintSHA256(k)
		}
		c.in.touch()
		s.audit(persist.Person{}, persist.AuditConnect, describe(sess))
		if err := s.enter(c); err != nil {
			time.Sleep(refuseAfter) // a client that reconnects at once cannot flood the server
			s.refuse(c, persist.Person{}, err)
			return
		}
		defer s.leave(c)
		defer s.watchIdle(c)() // at the passphrase's prompt too
		who, err := s.identify(sess)
		if err == nil {
			if _, _, pty := sess.Pty(); !pty {
				err = refusal{"ward: a class needs a terminal: ssh -t", "no terminal"}
			}
		}
		if err != nil {
			s.refuse(c, persist.Person{}, err)
			return
		}
		c.who = who
		if who.Instructor {
			s.instruct(c, next)
			return
		}
		s.train(c, next)
	}
}

// identify is who the connection's key is enrolled as, read afresh from the enrolments: an
// unknown key, or a user name that is not the key's, is refused.
func (s *Server) identify(sess ssh.Session) (Enrolment, error) {
	key := sess.PublicKey()
	if key == nil {
		return Enrolment{}, refusal{"ward: log in with your enrolled SSH key", "no key"}
	}
	all, err := ReadEnrolments(s.cfg.Keys)
	if err != nil {
		s.logf("every connection is refused: %v", err)
		return Enrolment{}, refusal{"ward: the server cannot read its enrolments; tell the instructor", err.Error()}
	}
	return all.whose(sess)
}

// whose is who the session's key and user name are enrolled as; a refusal when they are not.
func (all Enrolments) whose(sess ssh.Session) (Enrolment, error) {
	key := sess.PublicKey()
	fp := gossh.FingerprintSHA256(key)
	e, ok := all.Of(key)
	switch {
	case !ok:
		return Enrolment{}, refusal{"ward: your key " + fp + " is not enrolled here: ask the instructor to enrol it " +
			"(ward enrol NAME --key FILE), or offer your enrolled one (ssh -i FILE -o IdentitiesOnly=yes)", "unknown key"}
	case e.Name != sess.User():
		return Enrolment{}, refusal{fmt.Sprintf("ward: this key is enrolled as %s, not %q: log in as ssh %s@HOST",
			e.Name, sess.User(), e.Name), "the key of " + e.Name + ", not this user's"}
	}
	return e, nil
}

// refuse ends a connection that has no program yet with its one line, and audits it.
func (s *Server) refuse(c *conn, who persist.Person, err error) {
	r, ok := err.(refusal)
	if !ok {
		r = refusal{"ward: " + err.Error(), err.Error()}
	}
	s.audit(who, persist.AuditRefused, r.detail+"; "+describe(c.sess))
	c.close(r.line)
}

// instruct shows the instructor the board of the class, until they quit or the server closes
// the connection.
func (s *Server) instruct(c *conn, next ssh.Handler) {
	who := c.who.person()
	view, err := s.signIn(c)
	if err != nil {
		s.refuse(c, who, err)
		return
	}
	view.Close() // the passphrase is proven; the board reads the trainees' running shifts only
	s.audit(who, persist.AuditSignIn, describe(c.sess))
	c.model = board.New(s.class, boardTeams{s}, s.cfg.Theme)
	c.sess.Context().SetValue(connKey{}, c)
	next(c.sess)
	s.audit(who, persist.AuditDisconnect, c.why())
	c.farewell()
}

// program is the Bubble Tea program of a connection that admit let through.
func (s *Server) program(sess ssh.Session) *tea.Program {
	c, _ := sess.Context().Value(connKey{}).(*conn)
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.line != "" || c.model == nil { // closed before it could start
		return nil
	}
	c.program = tea.NewProgram(c.model, programOptions(c.sess, c.in)...)
	return c.program
}

// close ends the connection with line: its program quits, and a connection that does not end
// within closeGrace (a client gone without a word) is cut.
func (c *conn) close(line string) {
	c.mu.Lock()
	if c.line == "" {
		c.line = line
	}
	p := c.program
	c.mu.Unlock()
	if p != nil {
		p.Quit()
	} else {
		c.farewell() // the connection is being asked a passphrase, or waits: no screen to leave
	}
	time.AfterFunc(closeGrace, func() {
		if conn, ok := c.sess.Context().Value(ssh.ContextKeyConn).(gossh.Conn); ok {
			_ = conn.Close()
		}
	})
}

// farewell writes the closing line, once, and ends the session.
func (c *conn) farewell() {
	c.mu.Lock()
	line, said := c.line, c.said
	c.said = true
	c.mu.Unlock()
	if said {
		return
	}
	status := 0
	if line != "" {
		say(c.sess, line)
		status = 1
	}
	_ = c.sess.Exit(status)
}

// why is how the connection ended, for the audit.
func (c *conn) why() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.line != "":
		return c.line
	case c.sess.Context().Err() != nil:
		return "the connection dropped"
	}
	return "they quit"
}

// say writes one line to the client's terminal.
func say(sess ssh.Session, line string) {
	fmt.Fprint(sess.Stderr(), line+"\r\n")
}

// describe is a connection in the audit: whence, as whom, with which key.
func describe(sess ssh.Session) string {
	d := fmt.Sprintf("ssh from %s as user %q", sess.RemoteAddr(), sess.User())
	if k := sess.PublicKey(); k != nil {
		d += " with key " + gossh.FingerprintSHA256(k)
	}
	return d
}

// audit records a server's event; a failure to record is reported on the server's stderr, for
// the connection goes on.
func (s *Server) audit(who persist.Person, action, detail string) {
	if err := s.store.Audit().Record(who, action, "", detail); err != nil {
		s.logf("audit record: %v", err)
	}
}

// activity is a connection's input, noting when the trainee last typed.
type activity struct {
	r    io.Reader
	last atomic.Int64 // unix nanoseconds
}

func (a *activity) Read(p []byte) (int, error) {
	n, err := a.r.Read(p)
	if n > 0 {
		a.touch()
	}
	return n, err
}

func (a *activity) touch() { a.last.Store(time.Now().UnixNano()) }

func (a *activity) idle() time.Duration { return time.Since(time.Unix(0, a.last.Load())) }

// watchIdle closes c once no key has come for Config.Idle; stop ends the watch.
func (s *Server) watchIdle(c *conn) (stop func()) {
	idle := s.cfg.Idle
	done := make(chan struct{})
	if idle <= 0 {
		return func() {}
	}
	go func() {
		defer s.survive(persist.Person{}, "watching for idleness", nil)
		tick := time.NewTicker(min(idle/4, time.Minute))
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if c.in.idle() >= idle {
					c.close(fmt.Sprintf("ward: closed after %s without a keystroke; your shift is saved", idle))
					return
				}
			}
		}
	}()
	return func() { close(done) }
}

// sized is a session whose window changes are read from the start and kept, the latest only,
// for the program once it runs: a change nobody read would hold up the client's requests (the
// SSH library passes them on one at a time) while the passphrase is asked or a takeover waits.
// Its terminal is read once: the library writes the size into it as it changes, unguarded.
// Every size is clamped to what a screen is drawn at (maxWidth × maxHeight): a client may ask
// for any, and a frame as large as 30000×10000 would take gigabytes to draw.
type sized struct {
	ssh.Session
	pty   ssh.Pty
	winch chan ssh.Window
}

func (s sized) Pty() (ssh.Pty, <-chan ssh.Window, bool) { return s.pty, s.winch, true }

// The largest screen ward draws: wider and taller than a 4K monitor's terminal at a small font.
const maxWidth, maxHeight = 500, 200

// askedSize is the last size the client asked for that was clamped; nil while it fits.
type askedSize struct{ atomic.Pointer[ssh.Window] }

// fit is w within maxWidth × maxHeight, noting what was asked when it had to be made smaller.
func (a *askedSize) fit(w ssh.Window) ssh.Window {
	if w.Width <= maxWidth && w.Height <= maxHeight {
		a.Store(nil)
		return w
	}
	asked := w
	a.Store(&asked)
	w.Width, w.Height = min(w.Width, maxWidth), min(w.Height, maxHeight)
	return w
}

// tooLarge is what the screen says of a terminal clamped to the largest ward draws; "" when it
// fits.
func (a *askedSize) tooLarge() string {
	w := a.Load()
	if w == nil {
		return ""
	}
	return fmt.Sprintf("your terminal is %d×%d; ward draws at most %d×%d of it", w.Width, w.Height, maxWidth, maxHeight)
}

// followSize is sess with its sizes clamped and followed as sized says.
func (s *Server) followSize(sess ssh.Session, asked *askedSize) ssh.Session {
	pty, in, ok := sess.Pty()
	if !ok {
		return sess
	}
	pty.Window = asked.fit(pty.Window)
	latest := make(chan ssh.Window, 1)
	go func() {
		defer s.survive(persist.Person{}, "following the window's size", nil)
		for w := range in { // closed when the session's requests end
			w = asked.fit(w)
			select {
			case <-latest: // a size the program has not read is stale now
			default:
			}
			latest <- w
		}
	}()
	return sized{sess, pty, latest}
}
