// Package lab is the sim lab's server (ward serve): ward's TUI over SSH to a class, one program
// per connection, on one database the server holds. A connection's key says who it is (the
// enrolments, enrol.go; each connection's life in conn.go); a trainee gets a view of the store
// signed in as them (passphrase.go) and their own shift (trainee.go), the instructor the board
// (ui/board) over the class of connected trainees (class.go).
package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"slices"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/ssh"
	"github.com/charmbracelet/wish"
	bm "github.com/charmbracelet/wish/bubbletea"
	"github.com/muesli/termenv"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/persist/outfile"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/themes"
	gossh "golang.org/x/crypto/ssh"
)

// Config is what a server serves.
type Config struct {
	Setup   *session.Setup // the server's: store, scenarios, team, cards and backend, wired once
	HostKey string         // the host key's file, created (0600) on first start and kept
	Keys    string         // the enrolments (KeysPath of the database)
	Teams   string         // the teams (TeamsPath of the database); "": no teams
	Idle    time.Duration  // a connection with no keystroke for this long is closed; 0: never
	Login   time.Duration  // a connection not logged in (its session open) by then is dropped; 0: 30 s
	Theme   themes.Theme   // one theme for everyone: lipgloss's styles are global
	Shift   string         // the roster a trainee with no shift starts (--shift); "": they choose
	Notice  string         // shown on every trainee's status bar at start (why the backend is offline)
	Log     io.Writer      // hears what the server cannot tell a connection (a failed audit)
	// Backend is a trainee's share of the model (the fair queue's For); nil gives each the
	// Setup's backend as it is.
	Backend func(trainee string) llm.Backend
	// Sessions bounds the connections open at once, PerKey those of one key (a trainee's newer
	// connection takes over their older one, so two at once is ordinary); 0: 256 and 3.
	Sessions, PerKey int
}

// Server is ward's SSH server.
type Server struct {
	cfg   Config
	store *persist.Store
	ssh   *ssh.Server
	class *Class

	guesses guesses // wrong passphrases by name, and the derivations running (passphrase.go)

	mu      sync.Mutex
	closing bool
	open    map[*conn]bool        // every connection, for Shutdown to close
	teamsMu sync.Mutex            // guards teams, and a team's shift while it opens or closes
	teams   map[string]*teamShift // the teams' shifts with a member connected, by team
	perKey  map[string]int        // connections open by key fingerprint
	serving chan struct{}         // closed once Serve is taking connections; nil before Serve
	conns   sync.WaitGroup        // handlers running: each saves its shift before it ends
	// sockets: connections accepted and not yet closed, each of which may still write its audit
	// line as it closes; Shutdown waits for them, so nothing is written after it returns.
	sockets sync.WaitGroup
}

// closeGrace is how long a connection being closed has to show its last line before it is cut.
const closeGrace = 2 * time.Second

// New makes a server; Serve starts it. The host key is made now if it is missing.
func New(cfg Config) (*Server, error) {
	key := wish.WithHostKeyPath(cfg.HostKey) // makes it, 0600, when it is missing
	if err := private(cfg.HostKey); err != nil {
		return nil, err
	}
	// Every style renders through lipgloss's default renderer, which would read the colours of
	// the server's own stdout. The clients are terminals of any kind: 256 colours is what
	// nearly all of them show, and the theme's colours are mapped down to them.
	themes.Use(cfg.Theme)
	if !cfg.Theme.NoColor {
		lipgloss.SetColorProfile(termenv.ANSI256)
		cfg.Theme = cfg.Theme.In(termenv.ANSI256) // converted once, not at every render
	}
	s := &Server{cfg: cfg, store: cfg.Setup.Store(), class: newClass(), open: map[*conn]bool{}, perKey: map[string]int{}, teams: map[string]*teamShift{},
		guesses: newGuesses()}
	if s.cfg.Log == nil {
		s.cfg.Log = io.Discard
	}
	if s.cfg.Login <= 0 {
		s.cfg.Login = 30 * time.Second
	}
	if s.cfg.Sessions <= 0 {
		s.cfg.Sessions = 256
	}
	if s.cfg.PerKey <= 0 {
		s.cfg.PerKey = 3
	}
	if s.cfg.Backend == nil {
		backend := cfg.Setup.Backend()
		s.cfg.Backend = func(string) llm.Backend { return backend }
	}
	s.cfg.Backend = panicHook(s.cfg.Backend)
	srv, err := wish.NewServer(
		key,
		// Only public keys log in: no password, no keyboard-interactive. Every key is let in
		// here, and admit refuses the unknown with a line that says why: refused here, the
		// client would only hear "Permission denied". The key is kept for the audit at once:
		// the library records it only after the handshake, and a client that leaves at once
		// can close the connection before that.
		wish.WithPublicKeyAuth(func(ctx ssh.Context, key ssh.PublicKey) bool {
			ctx.SetValue(loggedInWith{}, key)
			return true
		}),
		// The last is the outermost: guard recovers a panic anywhere in a connection's handling.
		wish.WithMiddleware(bm.MiddlewareWithProgramHandler(s.program, termenv.ANSI256), s.admit, s.guard),
	)
	if err != nil {
		return nil, err
	}
	srv.ConnCallback = s.loginWithin
	s.ssh = srv
	return s, nil
}

// loginTimer is the context key of a connection's time to log in; sessionOpened is set once a
// session of the connection reached admit; loggedInWith holds the key the client logged in with.
type (
	loginTimer    struct{}
	sessionOpened struct{}
	loggedInWith  struct{}
)

// loginWithin drops a connection that has not opened its session within Config.Login: one that
// stalls in the handshake would otherwise hold its goroutines for good. admit stops the clock.
// A connection that ends without ever opening a session (a failed handshake, ssh -N, a client
// that only asked to forward) is audited as it closes: admit audits the others.
// A connection that arrives once the server is closing is closed at once, unaudited: the audit
// may already be closed.
func (s *Server) loginWithin(ctx ssh.Context, conn net.Conn) net.Conn {
	s.mu.Lock()
	closing := s.closing
	if !closing {
		s.sockets.Add(1)
	}
	s.mu.Unlock()
	if closing {
		_ = conn.Close()
		return conn
	}
	ctx.SetValue(loginTimer{}, time.AfterFunc(s.cfg.Login, func() { _ = conn.Close() }))
	return &auditedConn{Conn: conn, closed: func() {
		defer s.sockets.Done()
		if ctx.Value(sessionOpened{}) == nil {
			s.audit(persist.Person{}, persist.AuditConnect, noSession(ctx, conn.RemoteAddr()))
		}
	}}
}

// auditedConn is a connection that says, once, when it closes.
type auditedConn struct {
	net.Conn
	once   sync.Once
	closed func()
}

func (c *auditedConn) Close() error {
	c.once.Do(c.closed)
	return c.Conn.Close()
}

// noSession describes, for the audit, a connection that ended without a session: whence, and as
// whom and with which key if it got so far.
func noSession(ctx ssh.Context, from net.Addr) string {
	d := fmt.Sprintf("ssh from %s", from)
	user, _ := ctx.Value(ssh.ContextKeyUser).(string)
	key, _ := ctx.Value(loggedInWith{}).(ssh.PublicKey)
	switch {
	case key != nil:
		d += fmt.Sprintf(" as user %q with key %s", user, gossh.FingerprintSHA256(key))
	case user != "":
		d += fmt.Sprintf(" as user %q", user)
	}
	return d + ": ended without opening a session"
}

// private refuses a host key others may read, once it cannot be made private.
func private(path string) error {
	info, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil // it could not be made: the server's options say why
	}
	if err != nil {
		return fmt.Errorf("host key: %w", err)
	}
	if info.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(path, 0o600); err != nil {
			return fmt.Errorf("host key %s is readable by others and cannot be made private: %w", path, err)
		}
	}
	return nil
}

// Class is the class the board reads.
func (s *Server) Class() *Class { return s.class }

// Serve answers connections on l until Shutdown.
func (s *Server) Serve(l net.Listener) error {
	a := &accepting{Listener: l, ready: make(chan struct{})}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return l.Close()
	}
	s.serving = a.ready
	s.mu.Unlock()
	release := outfile.Hold(s.cfg.HostKey, s.cfg.Keys) // no /export may write over them
	defer release()
	watching := make(chan struct{})
	defer close(watching)
	go s.watchEnrolments(watching)
	err := s.ssh.Serve(a)
	if errors.Is(err, ssh.ErrServerClosed) {
		return nil
	}
	return err
}

// accepting is a listener that says when it is first asked for a connection: the SSH library
// counts its listener in only then, and a Shutdown before that would wait for it forever.
type accepting struct {
	net.Listener
	once  sync.Once
	ready chan struct{}
}

func (a *accepting) Accept() (net.Conn, error) {
	a.once.Do(func() { close(a.ready) })
	return a.Listener.Accept()
}

// Shutdown closes every connection with its shift saved: a turn running finishes and commits
// first. Connections still open when ctx ends are cut.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	open, serving := slices.Collect(maps.Keys(s.open)), s.serving
	s.mu.Unlock()
	for _, c := range open {
		c.close("ward: the server is shutting down; your shift is saved")
	}
	if serving != nil {
		select {
		case <-serving:
		case <-ctx.Done():
		}
	}
	err := s.ssh.Shutdown(ctx)
	if err != nil {
		err = errors.Join(err, s.ssh.Close())
	}
	s.conns.Wait()
	s.sockets.Wait()
	return err
}

// enter counts a connection in, for Shutdown to close and wait for; a refusal once the server
// is closing, or holds as many connections as it may, in all or of the connection's key.
func (s *Server) enter(c *conn) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closing:
		return refusal{"ward: the server is shutting down", "shutting down"}
	case len(s.open) >= s.cfg.Sessions:
		return refusal{fmt.Sprintf("ward: the class is full (%d connections); try again later", s.cfg.Sessions), "the class is full"}
	case c.key != "" && s.perKey[c.key] >= s.cfg.PerKey:
		return refusal{fmt.Sprintf("ward: this key has %d connections open already; close one first", s.perKey[c.key]),
			"too many connections of one key"}
	}
	s.open[c] = true
	s.perKey[c.key]++
	s.conns.Add(1)
	return nil
}

// leave counts a connection out once its handler is done.
func (s *Server) leave(c *conn) {
	s.mu.Lock()
	delete(s.open, c)
	if s.perKey[c.key]--; s.perKey[c.key] <= 0 {
		delete(s.perKey, c.key)
	}
	s.mu.Unlock()
	s.conns.Done()
}

func (s *Server) logf(format string, args ...any) {
	fmt.Fprintf(s.cfg.Log, "ward: "+format+"\n", args...)
}

// programOptions are a connection's program's: the session is its terminal, the server's
// signals are the server's, and input counts as activity. Frames go out at Bubble Tea's
// highest rate (120 a second, not 60): a key's frame waits for the next one, so a trainee who
// types on as each character appears waited a whole 16.7 ms a keystroke, and a frame that
// has not changed costs only a comparison.
func programOptions(terminal io.Writer, in io.Reader) []tea.ProgramOption {
	return []tea.ProgramOption{tea.WithInput(in), tea.WithOutput(terminal), tea.WithAltScreen(),
		tea.WithMouseCellMotion(), tea.WithoutSignalHandler(), tea.WithFPS(120)}
}
