package lab

import (
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/charmbracelet/ssh"
	"github.com/ward-sim/ward/persist"
	gossh "golang.org/x/crypto/ssh"
)

// encryptedLab is a lab on an encrypted database, whose connections wait at the passphrase's
// prompt until it is typed; change tunes the server.
func encryptedLab(t *testing.T, change func(*Config)) *testLab {
	return newLab(t, func(s *persist.Store) {
		if err := s.Protect([]byte("the instructor's long passphrase 42")); err != nil {
			t.Fatal(err)
		}
	}, change)
}

// One key holds at most Config.PerKey connections at once, and the server at most
// Config.Sessions: the one past either is refused with a line that says why, and audited.
func TestConnectionsAreBoundedByKeyAndInAll(t *testing.T) {
	l := encryptedLab(t, func(c *Config) { c.Sessions = 4 })
	key := l.enrol("alice", false)
	for range 3 {
		l.dial("alice", key).waitFor("choose a passphrase")
	}
	fourth := l.dial("alice", key)
	if status := fourth.waitExit(); status != 1 {
		t.Errorf("the fourth connection of one key: exit status %d, want 1", status)
	}
	fourth.waitFor("this key has 3 connections open already")

	l.dial("bob", l.enrol("bob", false)).waitFor("choose a passphrase")
	full := l.dial("carol", l.enrol("carol", false))
	full.waitExit()
	full.waitFor("the class is full (4 connections)")
	refused := 0
	for _, e := range l.audited() {
		if e.Action == persist.AuditRefused && (strings.Contains(e.Detail, "too many connections of one key") || strings.Contains(e.Detail, "the class is full")) {
			refused++
		}
	}
	if refused != 2 {
		t.Errorf("%d refusals for too many connections audited, want 2: %+v", refused, l.audited())
	}
}

// Wrong passphrases bar the name for a while that grows with each, and reconnecting does not
// clear it: the next connection waits it out, told so, before the prompt comes.
func TestWrongPassphrasesBarTheNameAcrossConnections(t *testing.T) {
	l := encryptedLab(t, nil)
	key := l.enrol("jones", true)
	wrong := l.dial("jones", key)
	for range 3 {
		wrong.waitFor("Passphrase of the instructor")
		wrong.typeLine("a guess at it")
	}
	wrong.waitExit()
	again := l.dial("jones", key)
	again.waitFor("Too many wrong passphrases for the instructor in a row: the next may be tried in 5s")
	asked := time.Now()
	again.waitFor("Passphrase of the instructor")
	if waited := time.Since(asked); waited < 3*time.Second {
		t.Errorf("the prompt came %s after the bar was said, not after it ran out", waited)
	}
	again.typeLine("a fourth guess")
	again.waitFor("the next may be tried in 10s") // doubled
}

// One passphrase is derived at a time, whatever the connections ask.
func TestPassphraseDerivationsAreBounded(t *testing.T) {
	g := newGuesses()
	var running, most atomic.Int32
	var wg sync.WaitGroup
	for range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g.derive(func() {
				n := running.Add(1)
				for {
					m := most.Load()
					if n <= m || most.CompareAndSwap(m, n) {
						break
					}
				}
				time.Sleep(10 * time.Millisecond)
				running.Add(-1)
			})
		}()
	}
	wg.Wait()
	if most.Load() != derivations {
		t.Errorf("%d derivations ran at once, want at most and at last %d", most.Load(), derivations)
	}
}

// A turn that panics ends as failed, for that trainee alone: they are told, it is audited, what
// they sent is kept and their shift goes on; another trainee's turn goes on meanwhile.
func TestAPanickingTurnEndsOnlyThatTurn(t *testing.T) {
	t.Setenv(panicEnv, "kaboom")
	l := newLab(t, nil, nil)
	mallory := l.dial("mallory", l.enrol("mallory", false))
	alice := l.dial("alice", l.enrol("alice", false))
	for _, c := range []*client{mallory, alice} {
		c.waitFor("patient_1")
		c.typeLine("review patient_1")
	}
	mallory.typeLine("kaboom, how are you")
	mallory.waitFor("this turn failed inside ward")
	alice.typeLine("any pain?")
	waitForReply(t, l, "alice", "", "any pain?")
	time.Sleep(time.Second) // the screen holds a line typed before the failure could be read
	mallory.typeLine("any pain?")
	waitForReply(t, l, "mallory", "", "any pain?")
	kept := false
	for _, m := range l.latestChat("mallory", "", "patient_1") {
		kept = kept || m.Content == "kaboom, how are you"
	}
	if !kept {
		t.Error("the line whose turn panicked is not stored")
	}
	if !l.hasAudit(persist.AuditPanic, "trainee mallory") {
		t.Errorf("the panic is not audited: %+v", l.audited())
	}
}

// A panic in a connection's handling, before or around its screen, ends that connection with a
// word and an audit line, and the server goes on answering.
func TestAPanicInAConnectionEndsOnlyIt(t *testing.T) {
	l := newLab(t, nil, nil)
	handler := ssh.Server{Handler: l.srv.guard(func(ssh.Session) { panic("in a handler") })}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = handler.Serve(ln) }()
	defer handler.Close()
	for range 2 { // the second finds the server still answering
		conn, err := gossh.Dial("tcp", ln.Addr().String(), &gossh.ClientConfig{User: "alice",
			HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		sess, err := conn.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		out, err := sess.CombinedOutput("")
		if !strings.Contains(string(out), "something failed inside ward") || err == nil {
			t.Errorf("the connection that panicked ended with %v, saying %q", err, out)
		}
		conn.Close()
	}
	if !l.hasAudit(persist.AuditPanic, "no one in particular") {
		t.Errorf("the panic is not audited: %+v", l.audited())
	}
}

// A passphrase chosen over SSH meets the rules a local one does: the trainee's name with a
// letter repeated is refused, saying why, and a good one is taken.
func TestPassphrasesChosenOverSSHMeetTheRules(t *testing.T) {
	l := encryptedLab(t, nil)
	alice := l.dial("alice", l.enrol("alice", false))
	alice.waitFor("choose a passphrase")
	for _, weak := range []string{"aliceeeeeeee", "qwertyuiopas"} {
		alice.typeLine(weak)
		alice.waitFor("The same again")
		alice.typeLine(weak)
	}
	alice.waitFor("it is a walk along the keyboard")
	alice.waitFor("made of the trainee's name")
	alice.typeLine("alice on the night shift")
	alice.typeLine("alice on the night shift")
	alice.waitFor("patient_1")
}
