package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/persist"
	gossh "golang.org/x/crypto/ssh"
)

// A trainee's key logs in, opens their shift and plays a turn: the patient's reply reaches the
// client's screen and the store, and the audit records the connection and the sign-in.
func TestTraineeLogsInAndPlaysATurn(t *testing.T) {
	l := newLab(t, nil, nil)
	alice := l.dial("alice", l.enrol("alice", false))
	alice.waitFor("patient_1")
	alice.typeLine("review patient_1")
	alice.waitFor("Frank Walsh")
	alice.typeLine("how is your breathing?")
	alice.waitFor("how is your breathing?")
	msgs := waitForReply(t, l, "alice", "", "how is your breathing?")
	alice.waitFor(firstWords(msgs[len(msgs)-1].Content))
	if !l.hasAudit(persist.AuditConnect, "no one in particular") || !l.hasAudit(persist.AuditSignIn, "trainee alice") {
		t.Errorf("the audit lacks the connection or the sign-in: %+v", l.audited())
	}
	if frame, ok := l.srv.Class().Frame("alice"); !ok || !strings.Contains(frame, "Frank Walsh") {
		t.Errorf("the class holds no frame of alice's screen (%v):\n%s", ok, frame)
	}
}

// waitForReply waits until the trainee's latest shift stores a reply to line with patient_1,
// and returns the conversation up to that reply.
func waitForReply(t *testing.T, l *testLab, trainee, pass, line string) []memory.Message {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		msgs := l.latestChat(trainee, pass, "patient_1")
		for i, m := range msgs {
			if m.Role == "user" && m.Content == line && i+1 < len(msgs) && msgs[i+1].Role == "assistant" {
				return msgs[:i+2]
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no reply to %q is stored: %+v", line, msgs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// firstWords is how a reply begins: what the screen shows of it on one line.
func firstWords(reply string) string {
	words := strings.Fields(reply)
	return strings.Join(words[:min(2, len(words))], " ")
}

// An unknown key is refused with one line that says why, and the refusal is audited.
func TestUnknownKeyIsRefusedWithOneLine(t *testing.T) {
	l := newLab(t, nil, nil)
	l.enrol("alice", false)
	c := l.dial("alice", newKey(t))
	if status := c.waitExit(); status != 1 {
		t.Errorf("exit status %d, want 1", status)
	}
	out := strings.TrimSpace(c.out.plain())
	if strings.Count(out, "\n") != 0 || !strings.Contains(out, "is not enrolled here") {
		t.Errorf("want one line saying the key is not enrolled, got:\n%s", out)
	}
	if !l.hasAudit(persist.AuditRefused, "no one in particular") {
		t.Errorf("the refusal is not audited: %+v", l.audited())
	}
}

// A key used with a user name that is not its own is refused with one line naming whose it is.
func TestAnotherUsersNameIsRefused(t *testing.T) {
	l := newLab(t, nil, nil)
	key := l.enrol("alice", false)
	c := l.dial("bob", key)
	c.waitExit()
	out := strings.TrimSpace(c.out.plain())
	if strings.Count(out, "\n") != 0 || !strings.Contains(out, `enrolled as alice, not "bob"`) {
		t.Errorf("want one line naming the key's owner, got:\n%s", out)
	}
}

// A trainee sees and resumes only their own shifts: bob's connection opens his own shift, and
// his view of the store neither lists nor opens alice's, in a plain file.
func TestTraineesSeeOnlyTheirOwnShifts(t *testing.T) {
	l := newLab(t, nil, nil)
	alice := l.dial("alice", l.enrol("alice", false))
	alice.waitFor("patient_1")
	alice.typeLine("review patient_1")
	alice.typeLine("alice was here")
	waitForReply(t, l, "alice", "", "alice was here")
	bob := l.dial("bob", l.enrol("bob", false))
	bob.waitFor("patient_1")
	if strings.Contains(bob.out.plain(), "alice was here") {
		t.Error("bob's screen shows alice's line")
	}
	aliceView, err := l.store.As(persist.Person{Trainee: "alice"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer aliceView.Close()
	aliceShift, _, _ := aliceView.LatestSession()
	bobView, err := l.store.As(persist.Person{Trainee: "bob"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bobView.Close()
	shifts, err := bobView.Sessions()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range shifts {
		if s.Trainee != "bob" {
			t.Errorf("bob's list holds %s's shift %s", s.Trainee, s.ID)
		}
	}
	err = bobView.View(aliceShift.ID, func(*persist.Tx) error { return nil })
	if !errors.Is(err, persist.ErrNoAccess) {
		t.Errorf("bob opened alice's shift: %v", err)
	}
}

// The host key is made private on first start and kept: a restart serves the same key, and a
// key left readable by others is made private again.
func TestHostKeyIsPrivateAndKept(t *testing.T) {
	l := newLab(t, nil, nil)
	first := hostKeyOf(t, l)
	if info, err := os.Stat(l.cfg.HostKey); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("host key: %v, mode %v; want 0600", err, info.Mode().Perm())
	}
	l.stop()
	if err := os.Chmod(l.cfg.HostKey, 0o644); err != nil {
		t.Fatal(err)
	}
	l.reopen()
	if info, _ := os.Stat(l.cfg.HostKey); info.Mode().Perm() != 0o600 {
		t.Errorf("the host key stays %v after a restart; want 0600", info.Mode().Perm())
	}
	if again := hostKeyOf(t, l); again != first {
		t.Errorf("the host key changed across a restart: %s, then %s", first, again)
	}
}

// hostKeyOf is the fingerprint of the key the server shows a client.
func hostKeyOf(t *testing.T, l *testLab) string {
	t.Helper()
	var seen string
	key := l.enrol("k"+strings.ReplaceAll(time.Now().Format("150405.000000000"), ".", ""), false)
	conn, err := gossh.Dial("tcp", l.addr, &gossh.ClientConfig{User: "x", Auth: []gossh.AuthMethod{gossh.PublicKeys(key)},
		HostKeyCallback: func(_ string, _ net.Addr, k gossh.PublicKey) error { seen = gossh.FingerprintSHA256(k); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	return seen
}

// A trainee who connects again takes over: the older connection is closed with one line, and
// the newer one plays on.
func TestANewConnectionTakesOver(t *testing.T) {
	l := newLab(t, nil, nil)
	key := l.enrol("alice", false)
	first := l.dial("alice", key)
	first.waitFor("patient_1")
	second := l.dial("alice", key)
	first.waitExit()
	first.waitFor("you connected again from elsewhere")
	second.waitFor("patient_1")
	second.typeLine("review patient_1")
	second.waitFor("Frank Walsh")
	if !l.hasAudit(persist.AuditTakeover, "trainee alice") {
		t.Errorf("the takeover is not audited: %+v", l.audited())
	}
}

// A connection with no keystroke for --idle is closed with one line, its shift saved.
func TestAnIdleConnectionIsClosed(t *testing.T) {
	// Long enough for the first screen to be drawn under -race on a loaded machine.
	l := newLab(t, nil, func(c *Config) { c.Idle = 2 * time.Second })
	c := l.dial("alice", l.enrol("alice", false))
	c.waitFor("patient_1")
	c.waitExit()
	c.waitFor("closed after 2s without a keystroke; your shift is saved")
	if !l.hasAudit(persist.AuditDisconnect, "trainee alice") {
		t.Errorf("the disconnection is not audited: %+v", l.audited())
	}
}

// A connection that drops while its turn waits for the model loses nothing: the turn finishes
// and commits, and the trainee who reconnects sees the reply.
func TestADroppedConnectionLosesNothing(t *testing.T) {
	l, gate := newGatedLab(t)
	key := l.enrol("alice", false)
	c := l.dial("alice", key)
	c.waitFor("patient_1")
	c.typeLine("review patient_1")
	c.waitFor("Frank Walsh")
	for !l.answered("alice", "patient_1") { // the review's greeting, before the gate shuts
		time.Sleep(20 * time.Millisecond)
	}
	gate.armed.Store(true)
	c.typeLine("where does it hurt?")
	select {
	case <-gate.entered:
	case <-time.After(20 * time.Second):
		t.Fatal("the turn never asked the model")
	}
	c.conn.Close() // the trainee's laptop lid closes mid-turn
	time.Sleep(200 * time.Millisecond)
	close(gate.release)
	again := l.dial("alice", key)
	msgs := waitForReply(t, l, "alice", "", "where does it hurt?")
	again.waitFor(firstWords(msgs[len(msgs)-1].Content))
	dropped := false
	for _, e := range l.audited() {
		dropped = dropped || (e.Action == persist.AuditDisconnect && e.Detail == "the connection dropped")
	}
	if !dropped {
		t.Errorf("the drop is not audited as one: %+v", l.audited())
	}
}

// gated is a backend whose calls, once armed, wait for release: a model busy while the
// connection drops.
// newGatedLab is a lab whose every trainee's model calls go through one gate.
func newGatedLab(t *testing.T) (*testLab, *gated) {
	gate := &gated{entered: make(chan struct{}, 1), release: make(chan struct{})}
	l := newLab(t, nil, func(c *Config) {
		gate.Backend = c.Setup.Backend()
		c.Backend = func(string) llm.Backend { return gate }
	})
	return l, gate
}

type gated struct {
	llm.Backend
	armed   atomic.Bool
	entered chan struct{}
	release chan struct{}
}

func (g *gated) Chat(ctx context.Context, req llm.Request, onDelta func(string)) (llm.Response, error) {
	if g.armed.Load() {
		select {
		case g.entered <- struct{}{}:
		default:
		}
		<-g.release
	}
	return g.Backend.Chat(ctx, req, onDelta)
}

// Shutting the server down closes every connection with one line, its shift saved.
func TestShutdownClosesEveryConnection(t *testing.T) {
	l := newLab(t, nil, nil)
	c := l.dial("alice", l.enrol("alice", false))
	c.waitFor("patient_1")
	l.stop()
	c.waitExit()
	c.waitFor("the server is shutting down; your shift is saved")
}

// In an encrypted database the passphrase is asked over the SSH terminal without echo: a new
// trainee chooses theirs (asked twice), a returning one types it, a wrong one is refused and
// audited, and the passphrase typed never reaches the client's screen.
func TestEncryptedDatabaseAsksThePassphraseOverSSH(t *testing.T) {
	const instructorPass, pass = "the instructor's long passphrase 42", "alice's own passphrase 7"
	l := newLab(t, func(s *persist.Store) {
		if err := s.Protect([]byte(instructorPass)); err != nil {
			t.Fatal(err)
		}
	}, nil)
	key := l.enrol("alice", false)
	first := l.dial("alice", key)
	first.waitFor("choose a passphrase")
	first.typeLine(pass)
	first.waitFor("The same again")
	first.typeLine(pass)
	first.waitFor("patient_1")
	first.typeLine("review patient_1")
	first.typeLine("any pain?")
	msgs := waitForReply(t, l, "alice", pass, "any pain?")
	first.waitFor(firstWords(msgs[len(msgs)-1].Content))
	first.typeKeys("\x03") // ctrl+c quits
	first.waitExit()
	if last := l.audited()[len(l.audited())-1]; last.Action != persist.AuditDisconnect || last.Detail != "they quit" {
		t.Errorf("alice's quitting is audited as %+v", last)
	}

	wrong := l.dial("alice", key)
	for range 3 {
		wrong.waitFor("Passphrase of trainee alice")
		wrong.typeLine("not the passphrase at all")
	}
	wrong.waitExit()
	wrong.waitFor("wrong passphrase, three times")
	if !l.hasAudit(persist.AuditFailed, "trainee alice") || !l.hasAudit(persist.AuditRefused, "trainee alice") {
		t.Errorf("the wrong passphrase is not audited: %+v", l.audited())
	}

	again := l.dial("alice", key)
	again.waitFor("Passphrase of trainee alice")
	again.typeLine(pass)
	again.waitFor("any pain?")
	for _, c := range []*client{first, wrong, again} {
		if strings.Contains(c.out.raw(), pass) || strings.Contains(c.out.raw(), "not the passphrase") {
			t.Error("a passphrase typed was echoed to the client")
		}
	}
}

// The instructor's key opens the board, which shows the trainees connected now.
func TestTheInstructorsKeyOpensTheBoard(t *testing.T) {
	l := newLab(t, nil, nil)
	alice := l.dial("alice", l.enrol("alice", false))
	alice.waitFor("patient_1")
	teacher := l.dial("jones", l.enrol("jones", true))
	teacher.waitFor("alice")
	if trainees := l.srv.Class().Trainees(); len(trainees) != 1 || trainees[0].Name != "alice" || trainees[0].Live == nil {
		t.Errorf("the class is %+v; want alice with her shift", trainees)
	}
	if !l.hasAudit(persist.AuditSignIn, "the instructor") {
		t.Errorf("the instructor's sign-in is not audited: %+v", l.audited())
	}
}

// Shutting down while a turn waits for the model waits for it: the reply is committed before
// the store is closed.
func TestShutdownWaitsForARunningTurn(t *testing.T) {
	l, gate := newGatedLab(t)
	c := l.dial("alice", l.enrol("alice", false))
	c.waitFor("patient_1")
	c.typeLine("review patient_1")
	for !l.answered("alice", "patient_1") {
		time.Sleep(20 * time.Millisecond)
	}
	gate.armed.Store(true)
	c.typeLine("any chest pain?")
	<-gate.entered
	stopped := make(chan struct{})
	go func() { l.stop(); close(stopped) }()
	c.waitFor("the server is shutting down")
	select {
	case <-stopped:
		t.Fatal("the server stopped before the running turn finished")
	case <-time.After(300 * time.Millisecond):
	}
	close(gate.release)
	<-stopped
	l.reopen()
	waitForReply(t, l, "alice", "", "any chest pain?")
}

// The program follows the client's window: a resize redraws the screen at the new size.
func TestTheScreenFollowsTheWindowSize(t *testing.T) {
	l := newLab(t, nil, nil)
	c := l.dial("alice", l.enrol("alice", false))
	c.waitFor("patient_1")
	if err := c.sess.WindowChange(30, 90); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		frame, _ := l.srv.Class().Frame("alice")
		lines := strings.Split(ansi.Strip(frame), "\n")
		if len(lines) == 30 && ansi.StringWidth(lines[0]) <= 90 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the frame is %d lines after a resize to 90×30:\n%s", len(lines), frame)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Only keys log in: a password, or keyboard-interactive answers, are not asked for.
func TestNoPasswordLogin(t *testing.T) {
	l := newLab(t, nil, nil)
	l.enrol("alice", false)
	answer := func(string, string, []string, []bool) ([]string, error) { return nil, nil }
	for _, auth := range []gossh.AuthMethod{gossh.Password("alice"), gossh.KeyboardInteractive(answer)} {
		_, err := gossh.Dial("tcp", l.addr, &gossh.ClientConfig{User: "alice", Auth: []gossh.AuthMethod{auth},
			HostKeyCallback: gossh.InsecureIgnoreHostKey()})
		if err == nil || !strings.Contains(err.Error(), "no supported methods remain") {
			t.Errorf("a login without a key: %v; want the server to offer no such method", err)
		}
	}
}

// With no --shift, a trainee with nothing to resume chooses in the start dialog, and one who
// left it without choosing is offered it again.
func TestTheStartDialogIsOfferedUntilAShiftStarts(t *testing.T) {
	l := newLab(t, nil, func(c *Config) { c.Shift = "" })
	key := l.enrol("alice", false)
	first := l.dial("alice", key)
	first.waitFor("Start a shift")
	first.typeKeys("\x03") // ctrl+c quits, no shift chosen
	first.waitExit()
	again := l.dial("alice", key)
	again.waitFor("Start a shift")
	again.typeLine("") // the first shift offered
	again.waitFor("on the roster")
}

// BenchmarkLoginToFirstFrame is one trainee's way in: the SSH handshake with their key, the
// enrolments read, a view signed in, their shift resumed and its first frame on their screen.
func BenchmarkLoginToFirstFrame(b *testing.B) {
	l := newLab(b, nil, nil)
	key := l.enrol("alice", false)
	for b.Loop() {
		c := l.dial("alice", key)
		c.waitFor("patient_1")
		c.conn.Close()
	}
}

// BenchmarkKeystrokeToFrame is a key the trainee types until the screen shows it; cpu-ms/op is
// the process's CPU time for it, the server's and the client's together.
func BenchmarkKeystrokeToFrame(b *testing.B) {
	l := newLab(b, nil, func(c *Config) { c.Idle = 0 })
	c := l.dial("alice", l.enrol("alice", false))
	c.waitFor("patient_1")
	n := 0
	defer reportCPU(b)()
	for b.Loop() {
		n++
		mark, from := fmt.Sprintf("k%dz", n), c.out.len()
		c.typeKeys(mark)
		c.waitAfter(from, mark)
		c.typeKeys(strings.Repeat("\x7f", len(mark))) // backspace it away
	}
}

// reportCPU reports, when the returned func runs, the process's CPU time per op.
func reportCPU(b *testing.B) func() {
	start := selfCPU()
	return func() { b.ReportMetric(float64(selfCPU()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op") }
}

// selfCPU is the CPU time this process has used (user and system).
func selfCPU() time.Duration {
	var u syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// A connection left at the passphrase's prompt is closed when idle too.
func TestIdleAtThePassphrasePrompt(t *testing.T) {
	l := newLab(t, func(s *persist.Store) {
		if err := s.Protect([]byte("the instructor's long passphrase 42")); err != nil {
			t.Fatal(err)
		}
	}, func(c *Config) { c.Idle = 400 * time.Millisecond })
	c := l.dial("alice", l.enrol("alice", false))
	c.waitFor("choose a passphrase")
	c.waitExit()
	c.waitFor("closed after 400ms without a keystroke")
}

// Window changes while the passphrase is asked reach the program as the latest size.
func TestTheSizeChosenAtThePromptIsTheScreens(t *testing.T) {
	const pass = "alice's own passphrase 7"
	l := newLab(t, func(s *persist.Store) {
		if err := s.Protect([]byte("the instructor's long passphrase 42")); err != nil {
			t.Fatal(err)
		}
	}, nil)
	c := l.dial("alice", l.enrol("alice", false))
	c.waitFor("choose a passphrase")
	for _, w := range []int{100, 80, 96} {
		if err := c.sess.WindowChange(32, w); err != nil {
			t.Fatal(err)
		}
	}
	c.typeLine(pass)
	c.waitFor("The same again")
	c.typeLine(pass)
	c.waitFor("patient_1")
	deadline := time.Now().Add(20 * time.Second)
	for {
		frame, _ := l.srv.Class().Frame("alice")
		lines := strings.Split(ansi.Strip(frame), "\n")
		if len(lines) == 32 && ansi.StringWidth(lines[0]) == 96 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the screen is %d lines, the first %d wide; want 96×32:\n%s", len(lines), ansi.StringWidth(lines[0]), frame)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A connection with no terminal (ssh HOST COMMAND) is refused with one line saying what to do.
func TestNoTerminalIsRefused(t *testing.T) {
	l := newLab(t, nil, nil)
	key := l.enrol("alice", false)
	conn, err := gossh.Dial("tcp", l.addr, &gossh.ClientConfig{User: "alice", Auth: []gossh.AuthMethod{gossh.PublicKeys(key)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey()})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	sess, err := conn.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	out, err := sess.CombinedOutput("ward")
	if err == nil || strings.TrimSpace(string(out)) != "ward: a class needs a terminal: ssh -t" {
		t.Errorf("no terminal: %v, %q", err, out)
	}
}

// In an encrypted database the instructor's key opens the board only with the instructor's
// passphrase.
func TestTheInstructorsPassphraseOpensTheBoard(t *testing.T) {
	const instructorPass = "the instructor's long passphrase 42"
	l := newLab(t, func(s *persist.Store) {
		if err := s.Protect([]byte(instructorPass)); err != nil {
			t.Fatal(err)
		}
	}, nil)
	key := l.enrol("jones", true)
	wrong := l.dial("jones", key)
	for range 3 {
		wrong.waitFor("Passphrase of the instructor")
		wrong.typeLine("a guess at it")
	}
	wrong.waitExit()
	wrong.waitFor("wrong passphrase, three times")
	right := l.dial("jones", key)
	right.waitFor("Passphrase of the instructor")
	right.typeLine(instructorPass)
	right.waitFor("0 connected")
	if strings.Contains(right.out.raw(), instructorPass) {
		t.Error("the instructor's passphrase was echoed")
	}
}

// A shutdown right as the server starts (a SIGTERM at start-up) neither waits forever nor lets
// the server serve after it.
func TestShutdownAtStartUp(t *testing.T) {
	for range 20 {
		l := newLab(t, nil, nil)
		l.stop() // newLab's Serve may not have taken its first connection yet
	}
	l := newLab(t, nil, nil)
	srv, err := New(l.cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("a Serve after Shutdown: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a server shut down before it served is serving")
	}
	if _, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		t.Error("a server shut down before it served took a connection")
	}
}

// The server's notice (why the offline backend answers) is on every trainee's status bar.
func TestTheServersNoticeReachesTrainees(t *testing.T) {
	l := newLab(t, nil, func(c *Config) { c.Notice = "using the offline backend: no model server" })
	c := l.dial("alice", l.enrol("alice", false))
	c.waitFor("using the offline backend: no model server")
}

// Enrolments that do not read refuse every connection with one line, and tell the server's
// console why.
func TestUnreadableEnrolmentsRefuseAndSayWhy(t *testing.T) {
	var console screen
	l := newLab(t, nil, func(c *Config) { c.Log = &console })
	key := l.enrol("alice", false)
	if err := os.WriteFile(l.cfg.Keys, []byte("trainee alice not-a-key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := l.dial("alice", key)
	c.waitExit()
	c.waitFor("ward: the server cannot read its enrolments; tell the instructor")
	if !strings.Contains(console.raw(), "ward.db.keys:1: not a public key") {
		t.Errorf("the console says %q", console.raw())
	}
}

// A connection that never logs in (it stalls in the handshake) is dropped after Config.Login;
// one that logs in is not.
func TestAConnectionThatNeverLogsInIsDropped(t *testing.T) {
	l := newLab(t, nil, func(c *Config) { c.Login = 300 * time.Millisecond })
	alice := l.dial("alice", l.enrol("alice", false))
	stalled, err := net.Dial("tcp", l.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	if err := stalled.SetReadDeadline(time.Now().Add(20 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, stalled); err != nil { // the server's greeting, then its close
		t.Fatalf("the stalled connection was not closed: %v", err)
	}
	time.Sleep(300 * time.Millisecond)
	alice.typeLine("review patient_1")
	alice.waitFor("Frank Walsh")
}

// Lines typed while a turn ran, not yet sent when the connection dropped, come back held on the
// next connection, and the input's text with them.
func TestLinesNotYetSentComeBackAfterADrop(t *testing.T) {
	l, gate := newGatedLab(t)
	key := l.enrol("alice", false)
	c := l.dial("alice", key)
	c.waitFor("patient_1")
	c.typeLine("review patient_1")
	for !l.answered("alice", "patient_1") {
		time.Sleep(20 * time.Millisecond)
	}
	gate.armed.Store(true)
	c.typeLine("where does it hurt?")
	<-gate.entered
	c.typeLine("any allergies?") // queued behind the turn
	c.typeKeys("and her medic")  // not sent
	c.waitFor("and her medic")
	c.conn.Close()
	close(gate.release)
	again := l.dial("alice", key)
	again.waitFor("your connection dropped before these were sent")
	again.waitFor("and her medic")
	waitForReply(t, l, "alice", "", "where does it hurt?")
	for _, m := range l.latestChat("alice", "", "patient_1") {
		if m.Content == "any allergies?" {
			t.Error("a line held after the drop was sent without the trainee's enter")
		}
	}
}
