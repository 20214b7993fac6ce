package lab

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/ward-sim/ward/agents/backend"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/themes"
	gossh "golang.org/x/crypto/ssh"
)

// testLab is a server on loopback over a real bbolt file in a temp dir, answered by the offline
// backend.
type testLab struct {
	t     testing.TB
	dir   string
	db    string
	store *persist.Store
	setup *session.Setup
	srv   *Server
	addr  string
	cfg   Config
}

// newLab serves a database; prepare runs on the open store first (to encrypt it), change on
// the server's configuration.
func newLab(t testing.TB, prepare func(*persist.Store), change func(*Config)) *testLab {
	t.Helper()
	dir := t.TempDir()
	l := &testLab{t: t, dir: dir, db: filepath.Join(dir, "ward.db")}
	store, err := persist.Open(l.db)
	if err != nil {
		t.Fatal(err)
	}
	l.store = store
	if prepare != nil {
		prepare(store)
	}
	l.setup, err = session.NewSetup(context.Background(), store, session.Flags{Backend: "offline", Window: "block",
		NumCtx: llm.DefaultNumCtx, OutputBudget: memory.BaseNumPredict, Seed: 1, ConfirmAdmissions: true}, wired(t, store), func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	theme, err := themes.New("dark", false)
	if err != nil {
		t.Fatal(err)
	}
	l.cfg = Config{Setup: l.setup, HostKey: l.db + ".hostkey", Keys: KeysPath(l.db), Theme: theme, Shift: "quiet-night"}
	if change != nil {
		change(&l.cfg)
	}
	l.start()
	t.Cleanup(l.stop)
	return l
}

func (l *testLab) start() {
	l.t.Helper()
	srv, err := New(l.cfg)
	if err != nil {
		l.t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		l.t.Fatal(err)
	}
	l.srv, l.addr = srv, ln.Addr().String()
	go func() { _ = srv.Serve(ln) }() // ends with an error when the test shuts the server down
}

// stop shuts the server down and closes the store, as ward serve does on SIGTERM.
func (l *testLab) stop() {
	if l.srv == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := l.srv.Shutdown(ctx); err != nil {
		l.t.Errorf("shutdown: %v", err)
	}
	l.srv = nil
	l.setup.Close()
	l.store.Close()
}

// enrol makes a key for name and enrols it.
func (l *testLab) enrol(name string, instructor bool) gossh.Signer {
	l.t.Helper()
	signer := newKey(l.t)
	if _, err := Enrol(l.cfg.Keys, Enrolment{Name: name, Instructor: instructor, Key: signer.PublicKey()}); err != nil {
		l.t.Fatal(err)
	}
	return signer
}

func newKey(t testing.TB) gossh.Signer {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return signer
}

// client is one SSH connection with a terminal, as a trainee's ssh would open it.
type client struct {
	t      testing.TB
	conn   *gossh.Client
	sess   *gossh.Session
	in     io.WriteCloser
	out    *screen
	exited chan error
}

// dial connects as user with key and opens a shell on a 120×40 terminal.
func (l *testLab) dial(user string, key gossh.Signer) *client {
	l.t.Helper()
	return l.dialSized(user, key, 120, 40)
}

// dialSized is dial on a terminal of width × height.
func (l *testLab) dialSized(user string, key gossh.Signer, width, height int) *client {
	l.t.Helper()
	conn, err := gossh.Dial("tcp", l.addr, &gossh.ClientConfig{User: user, Auth: []gossh.AuthMethod{gossh.PublicKeys(key)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 10 * time.Second})
	if err != nil {
		l.t.Fatal(err)
	}
	sess, err := conn.NewSession()
	if err != nil {
		l.t.Fatal(err)
	}
	c := &client{t: l.t, conn: conn, sess: sess, out: &screen{}, exited: make(chan error, 1)}
	sess.Stdout, sess.Stderr = c.out, c.out
	if c.in, err = sess.StdinPipe(); err != nil {
		l.t.Fatal(err)
	}
	if err := sess.RequestPty("xterm-256color", height, width, gossh.TerminalModes{}); err != nil {
		l.t.Fatal(err)
	}
	if err := sess.Shell(); err != nil {
		l.t.Fatal(err)
	}
	go func() { c.exited <- sess.Wait() }()
	l.t.Cleanup(func() { conn.Close() })
	return c
}

// typeLine types text and enter.
func (c *client) typeLine(text string) {
	c.t.Helper()
	c.typeKeys(text + "\r")
}

// typeKeys types keys as they are.
func (c *client) typeKeys(keys string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, keys); err != nil {
		c.t.Fatal(err)
	}
}

// waitFor waits until the screen shows text, escape sequences aside.
func (c *client) waitFor(text string) {
	c.t.Helper()
	c.waitAfter(0, text)
}

// waitAfter waits until what the screen received after its first from bytes shows text.
func (c *client) waitAfter(from int, text string) {
	c.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(ansi.Strip(c.out.raw()[from:]), text) {
		if time.Now().After(deadline) {
			c.t.Fatalf("the screen never showed %q; it shows:\n%s", text, tail(c.out.plain(), 3000))
		}
		time.Sleep(time.Millisecond)
	}
}

// waitExit waits for the server to end the session, and returns its exit status.
func (c *client) waitExit() int {
	c.t.Helper()
	select {
	case err := <-c.exited:
		var exit *gossh.ExitError
		switch {
		case err == nil:
			return 0
		case errors.As(err, &exit):
			return exit.ExitStatus()
		}
		return -1
	case <-time.After(20 * time.Second):
		c.t.Fatalf("the session never ended; the screen shows:\n%s", tail(c.out.plain(), 3000))
	}
	return -1
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// screen is what the client received.
type screen struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *screen) raw() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

func (s *screen) plain() string { return ansi.Strip(s.raw()) }

func (s *screen) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Len()
}

// audited is the actions of the audit record, in order.
func (l *testLab) audited() []persist.AuditEntry {
	l.t.Helper()
	entries, err := persist.ReadAudit(persist.AuditPath(l.db))
	if err != nil {
		l.t.Fatal(err)
	}
	return entries
}

// hasAudit reports whether the record holds action for who (as it prints them).
func (l *testLab) hasAudit(action, as string) bool {
	for _, e := range l.audited() {
		if e.Action == action && e.As == as {
			return true
		}
	}
	return false
}

// answered reports whether the patient has answered yet: the line that opens a chart is
// stored there before anyone answers it, so a chart that is not empty is not yet answered.
func (l *testLab) answered(trainee, patient string) bool {
	for _, m := range l.latestChat(trainee, "", patient) {
		if m.Role == "assistant" && m.Agent == "Patient" {
			return true
		}
	}
	return false
}

// latestChat is the trainee's latest shift's messages with a patient, read on a view of theirs.
func (l *testLab) latestChat(trainee, pass, patient string) []memory.Message {
	l.t.Helper()
	view, err := l.store.As(persist.Person{Trainee: trainee}, []byte(pass))
	if err != nil {
		l.t.Fatal(err)
	}
	defer view.Close()
	info, ok, err := view.LatestSession()
	if err != nil || !ok {
		l.t.Fatalf("no shift of %s: %v", trainee, err)
	}
	var msgs []memory.Message
	err = view.View(info.ID, func(tx *persist.Tx) (err error) {
		msgs, err = tx.Recent(patient, 100)
		return err
	})
	if err != nil {
		l.t.Fatal(err)
	}
	return msgs
}

// reopen opens the database again and starts a new server on it, as a restart does.
func (l *testLab) reopen() {
	l.t.Helper()
	store, err := persist.Open(l.db)
	if err != nil {
		l.t.Fatal(err)
	}
	l.store = store
	if l.setup, err = session.NewSetup(context.Background(), store, session.Flags{Backend: "offline", Window: "block",
		NumCtx: llm.DefaultNumCtx, OutputBudget: memory.BaseNumPredict, Seed: 1}, wired(l.t, store), func(string) {}); err != nil {
		l.t.Fatal(err)
	}
	l.cfg.Setup = l.setup
	l.start()
}

// wired is what main wires a setup with: ward's backends and the built-in cards.
func wired(t testing.TB, store *persist.Store) session.Wiring {
	t.Helper()
	kb, err := backend.Knowledge("", "", store)
	if err != nil {
		t.Fatal(err)
	}
	return session.Wiring{Backends: backend.Choose, Knowledge: kb}
}
