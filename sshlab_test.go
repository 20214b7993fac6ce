package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ward-sim/ward/session/records"
)

// Issue 28's class over SSH, as its people use it: `ward serve` in a terminal, two trainees and
// an instructor each at their own terminal running the real OpenSSH client, each identified by
// their key. .ci/sshlab.sh builds ward and runs this with WARD_BIN.
func TestSSHLab(t *testing.T) {
	lab := startLab(t, nil)

	alice := lab.ssh("alice", "alice", "review patient_1")
	bob := lab.ssh("bob", "bob", "review patient_1")
	alice.playTurn("how are you feeling ALICE1")
	bob.playTurn("any pain at all BOB1")

	// Neither sees the other's shift: alice's screen never shows bob's line, and each one's
	// store holds only their own lines.
	if strings.Contains(alice.screen(), "BOB1") || strings.Contains(bob.screen(), "ALICE1") {
		t.Fatalf("a trainee's screen shows the other's line:\nalice:\n%s\nbob:\n%s", alice.screen(), bob.screen())
	}
	lab.holdsOnly("alice", "ALICE1", "BOB1")
	lab.holdsOnly("bob", "BOB1", "ALICE1")

	// alice's key as user bob, and a key no one enrolled, are refused with one line each.
	lab.refused("alice", "bob", "enrolled as alice")
	lab.refused("stranger", "alice", "not enrolled")
	lab.refused("stranger", "stranger", "not enrolled")
	bob.waitFor("BOB1") // the attempt on bob's name did not take over his connection

	// The audit record has each sign-in and each refusal; the class report has both trainees.
	audit := lab.run(lab.bin, "audit", "--db", lab.db)
	for _, want := range []string{`trainee alice +sign_in`, `trainee bob +sign_in`, `refused .*as user "bob" with key`, `refused .*as user "stranger" with key`} {
		if !regexp.MustCompile(want).MatchString(audit) {
			t.Errorf("the audit record lacks /%s/:\n%s", want, audit)
		}
	}
	if n := strings.Count(audit, " refused "); n != 3 {
		t.Errorf("the audit record has %d refusals for 3:\n%s", n, audit)
	}
	report := lab.run(lab.bin, "report", "--db", lab.db)
	if !strings.Contains(report, "| alice | 1 |") || !strings.Contains(report, "| bob | 1 |") {
		t.Errorf("the class report lacks a trainee's shift:\n%s", report)
	}

	// The instructor's key opens the board: both trainees, each with their patient.
	board := lab.ssh("instructor", "instructor", "2 connected")
	board.waitFor(`alice(.|\n)*patient_1(.|\n)*bob(.|\n)*patient_1`)

	// Watching alice (the first row): what she types appears on the instructor's screen.
	board.send("Enter")
	board.waitFor("Watching alice's screen")
	alice.tmux("send-keys", "-t", tmuxSession, "-l", "are you warm enough WATCHED2")
	board.waitFor("WATCHED2")
	// Read-only: what the instructor types while watching reaches nobody.
	board.tmux("send-keys", "-t", tmuxSession, "-l", "INSTRUCTOR3")
	time.Sleep(time.Second) // were they forwarded, they would be in alice's input by now
	alice.send("Enter")
	alice.waitIdle()
	if strings.Contains(alice.screen(), "INSTRUCTOR3") || strings.Contains(lab.run(lab.bin, "dump", "--db", lab.db, "--trainee", "alice"), "INSTRUCTOR3") {
		t.Fatalf("what the instructor typed while watching reached alice:\n%s", alice.screen())
	}
	board.send("Escape")
	board.waitFor("2 connected")

	// A deterioration injected into alice's patient_1: her screen hears the nurse's worry, and
	// the debrief names the instructor's event.
	const state = "worsening" // quiet-night's patient_1 is a COPD exacerbation
	board.injectDeterioration("patient_1", state)
	board.waitFor("alice: injected a deterioration of patient_1 to " + regexp.QuoteMeta(state))
	alice.waitFor("I'm worried about .*patient_1")
	aar := lab.run(lab.bin, "aar", "--db", lab.db, "--trainee", "alice", "--patient", "patient_1")
	if !strings.Contains(aar, "the instructor injected") || !strings.Contains(aar, state) {
		t.Fatalf("alice's debrief does not name the instructor's deterioration to %s:\n%s", state, aar)
	}
	if bob := lab.run(lab.bin, "aar", "--db", lab.db, "--trainee", "bob", "--patient", "patient_1"); strings.Contains(bob, "the instructor injected") {
		t.Fatalf("bob's debrief names an injection made into alice's shift:\n%s", bob)
	}

	// A dropped connection loses nothing: alice's terminal dies with her ssh in it, a line half
	// typed; she signs in again and finds her shift where it was, her patient, her lines, the
	// nurse's worry, and the half line in her input.
	alice.tmux("send-keys", "-t", tmuxSession, "-l", "and the half typed HALF4")
	alice.waitFor("│ and the half typed HALF4")
	alice.tmux("kill-server")
	alice = lab.ssh("alice", "alice", "I'm worried about .*patient_1")
	alice.waitFor("^patient_1 ")
	alice.waitFor("│ and the half typed HALF4")
	for _, line := range []string{"ALICE1", "WATCHED2"} {
		if !strings.Contains(alice.screen(), line) {
			t.Fatalf("alice's shift, resumed, lacks %s:\n%s", line, alice.screen())
		}
	}
}

// On an encrypted database, a trainee new to it chooses a passphrase over SSH and one who
// returns types it, never echoed; what they type is stored sealed; three wrong passphrases are
// refused with one line, and the right one resumes the shift; the instructor's passphrase opens
// the board.
func TestSSHLabEncrypted(t *testing.T) {
	const alicePass, instructorPass = "alice's own passphrase 7x", "the instructor's long passphrase 42"
	lab := startLab(t, func(l *sshLab) { // the database made encrypted, as `ward --encrypt` makes it
		l.runEnv([]string{"WARD_INSTRUCTOR_PASSPHRASE=" + instructorPass, "WARD_PASSPHRASE=the first trainee's passphrase 9"},
			l.bin, "run", "--db", l.db, "--new", "--backend", "offline", "--encrypt")
	})

	alice := lab.ssh("alice", "alice", "Trainee alice is new to this database: choose a passphrase")
	alice.send(line(alicePass))
	alice.waitFor("The same again")
	prompted := alice.screen() // the prompt, with what was typed at it
	alice.send(line(alicePass))
	alice.waitFor("review patient_1")
	alice.playTurn("any pain at all SECRET1")
	if raw, err := os.ReadFile(lab.db); err != nil || strings.Contains(string(raw), "SECRET1") {
		t.Fatalf("alice's line is in the database file in plain text (or it cannot be read: %v)", err)
	}
	if dump := lab.runEnv([]string{"WARD_PASSPHRASE=" + alicePass}, lab.bin, "dump", "--db", lab.db, "--trainee", "alice"); !strings.Contains(dump, "SECRET1") {
		t.Fatalf("alice's passphrase does not open her line:\n%s", dump)
	}

	alice.tmux("kill-server") // her connection dropped
	wrong := lab.ssh("alice", "alice", "Passphrase of trainee alice")
	for try := 1; try <= 3; try++ {
		wrong.until("prompt "+fmt.Sprint(try), 20*time.Second, func(s string) bool { return strings.Count(s, "Passphrase of trainee alice") == try })
		wrong.send(line("not her passphrase"))
	}
	if code, said := wrong.exited(); code == "0" || !strings.Contains(said[len(said)-1], "ward: wrong passphrase, three times") {
		t.Fatalf("three wrong passphrases: exit %s, the screen ends:\n%s", code, strings.Join(said, "\n"))
	}

	again := lab.ssh("alice", "alice", "Passphrase of trainee alice")
	again.send(line(alicePass))
	again.waitFor("SECRET1")

	// The instructor's key opens the board with the instructor's passphrase, asked the same way.
	board := lab.ssh("instructor", "instructor", "Passphrase of")
	board.send(line(instructorPass))
	board.waitFor("1 connected")
	board.waitFor("alice")
	// Neither the passphrase chosen nor the wrong ones were echoed at their prompts.
	for _, s := range []string{prompted, wrong.screen()} {
		if strings.Contains(s, alicePass) || strings.Contains(s, "not her passphrase") {
			t.Fatalf("a passphrase typed was echoed:\n%s", s)
		}
	}
}

// A connection left without a keystroke for --idle is closed with one line, the shift saved:
// signing in again finds it as it was.
func TestSSHLabClosesAnIdleConnection(t *testing.T) {
	lab := startLab(t, func(l *sshLab) { l.serveArgs = []string{"--idle", "6s"} })
	alice := lab.ssh("alice", "alice", "review patient_1")
	alice.playTurn("how are you feeling IDLE1")
	code, said := alice.exited()
	if code == "0" || len(said) == 0 || !strings.HasPrefix(said[len(said)-1], "ward: closed after 6s without a keystroke; your shift is saved") {
		t.Fatalf("an idle connection: exit %s, the screen ends:\n%s", code, strings.Join(said, "\n"))
	}
	again := lab.ssh("alice", "alice", "IDLE1")
	again.waitFor("^patient_1 ")
}

// sshLab is a running `ward serve` with its enrolled keys, each terminal in its own tmux server.
type sshLab struct {
	t         *testing.T
	bin, dir  string
	db, port  string
	knownHost string
	serve     *tmuxWard
	serveArgs []string // added to ward serve's
	opened    int      // terminals opened, to name each one's tmux server apart
}

// The people: the first three are enrolled (the instructor as the instructor), the stranger not.
var labPeople = []string{"alice", "bob", "instructor", "stranger"}

// startLab makes the people's keys, runs prepare (nil: nothing) on the lab before its database
// exists (it may add to serveArgs), enrols alice, bob and the instructor, and starts `ward
// serve` in a terminal.
func startLab(t *testing.T, prepare func(*sshLab)) *sshLab {
	bin := os.Getenv("WARD_BIN")
	if bin == "" {
		t.Skip("WARD_BIN unset: .ci/sshlab.sh builds ward and runs this test in tmux")
	}
	for _, tool := range []string{"tmux", "ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s: .ci/run installs tmux and openssh-client", tool)
		}
	}
	dir := t.TempDir()
	l := &sshLab{t: t, bin: bin, dir: dir, db: filepath.Join(dir, "ward.db"), port: freePort(t), knownHost: filepath.Join(dir, "known_hosts")}
	for _, who := range labPeople {
		l.run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", who, "-f", l.key(who))
	}
	if prepare != nil {
		prepare(l)
	}
	l.run(bin, "enrol", "alice", "--key", l.key("alice")+".pub", "--db", l.db)
	l.run(bin, "enrol", "bob", "--key", l.key("bob")+".pub", "--db", l.db)
	l.run(bin, "enrol", "instructor", "--key", l.key("instructor")+".pub", "--instructor", "--db", l.db)

	l.serve = l.terminal("serve", fmt.Sprintf("%s serve --db %s --listen 127.0.0.1:%s --backend offline --shift quiet-night %s",
		bin, l.db, l.port, strings.Join(l.serveArgs, " ")))
	l.serve.waitFor("ward: serving .* on 127.0.0.1:" + l.port)
	t.Cleanup(l.stop)
	return l
}

// stop ends the server as its operator would, with ctrl+c, and checks that it exits cleanly.
func (l *sshLab) stop() {
	l.serve.tmux("send-keys", "-t", tmuxSession, "C-c")
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		s := l.serve.screen()
		if m := regexp.MustCompile(`WARD_EXIT=([0-9]+)`).FindStringSubmatch(s); m != nil {
			if m[1] != "0" && m[1] != "130" {
				l.t.Errorf("ward serve exited %s on ctrl+c:\n%s", m[1], s)
			}
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	l.t.Errorf("ward serve did not exit on ctrl+c:\n%s", l.serve.screen())
}

func (l *sshLab) key(who string) string { return filepath.Join(l.dir, who) }

// run runs a command that must succeed.
func (l *sshLab) run(name string, args ...string) string {
	l.t.Helper()
	return l.runEnv(nil, name, args...)
}

// runEnv runs a command that must succeed with env added to the test's.
func (l *sshLab) runEnv(env []string, name string, args ...string) string {
	l.t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		l.t.Fatalf("%s %q: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// terminal runs command in a new 120×40 tmux terminal of its own; WARD_EXIT= marks its end.
func (l *sshLab) terminal(name, command string) *tmuxWard {
	l.opened++
	w := &tmuxWard{t: l.t, bin: l.bin, db: l.db, socket: fmt.Sprintf("e2e-%d-%d-%s", os.Getpid(), l.opened, name)}
	w.tmux("new-session", "-d", "-s", tmuxSession, "-x", "120", "-y", "40", command+"; echo WARD_EXIT=$?; sleep 600")
	l.t.Cleanup(func() { _ = exec.Command("tmux", "-L", w.socket, "kill-server").Run() })
	return w
}

// sshCommand is the OpenSSH client as a trainee runs it, with who's key, as user; no agent, no
// config of the machine's, the server's key learnt on first use, and only errors of the
// client's own on the terminal (not "Connection closed"), so what the server says is read alone.
func (l *sshLab) sshCommand(who, user string) string {
	return strings.Join([]string{"ssh", "-F", "/dev/null", "-o", "LogLevel=ERROR", "-o", "StrictHostKeyChecking=accept-new",
		"-o", "UserKnownHostsFile=" + l.knownHost, "-o", "IdentitiesOnly=yes", "-o", "IdentityAgent=none",
		"-i", l.key(who), "-p", l.port, user + "@127.0.0.1"}, " ")
}

// ssh opens who's terminal signed in as user, and waits for its first screen to show first.
func (l *sshLab) ssh(who, user, first string) *labTerminal {
	w := l.terminal(who+"-as-"+user, l.sshCommand(who, user))
	w.waitFor(first)
	return &labTerminal{w}
}

// refused checks that who's key as user gets one line from ward, saying why, and a failed exit.
func (l *sshLab) refused(who, user, why string) {
	l.t.Helper()
	w := labTerminal{l.terminal(who+"-as-"+user, l.sshCommand(who, user))}
	code, said := w.exited()
	if code == "0" || len(said) != 1 || !strings.HasPrefix(said[0], "ward: ") || !strings.Contains(said[0], why) {
		l.t.Fatalf("%s's key as %s: want one line saying %q and a failed exit, got exit %s:\n%s", who, user, why, code, strings.Join(said, "\n"))
	}
}

// exited waits for the terminal's command to end and returns its exit status and the lines it
// left on the screen, each whole (not as the terminal wrapped it).
func (w *labTerminal) exited() (string, []string) {
	w.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		s := w.tmux("capture-pane", "-p", "-J", "-t", tmuxSession)
		if m := regexp.MustCompile(`WARD_EXIT=([0-9]+)`).FindStringSubmatch(s); m != nil {
			return m[1], nonEmptyLines(s[:strings.Index(s, "WARD_EXIT=")])
		}
		time.Sleep(200 * time.Millisecond)
	}
	w.t.Fatalf("the terminal's command did not end:\n%s", w.screen())
	return "", nil
}

func nonEmptyLines(s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if strings.TrimSpace(line) != "" {
			out = append(out, line)
		}
	}
	return out
}

// dump is `ward dump` of trainee's latest shift, read while the server holds the database.
func (l *sshLab) dump(trainee string) records.DumpDoc {
	l.t.Helper()
	out, err := exec.Command(l.bin, "dump", "--db", l.db, "--trainee", trainee).Output()
	if err != nil {
		l.t.Fatalf("ward dump --trainee %s: %v", trainee, err)
	}
	var d records.DumpDoc
	if err := json.Unmarshal(out, &d); err != nil {
		l.t.Fatalf("ward dump --trainee %s: %v\n%s", trainee, err, out)
	}
	return d
}

// holdsOnly checks that trainee's stored lines include mine and never theirs.
func (l *sshLab) holdsOnly(trainee, mine, theirs string) {
	l.t.Helper()
	d := l.dump(trainee)
	all := userLines(d.SessionHistory)
	for _, h := range d.Histories {
		all = append(all, userLines(h)...)
	}
	if !slices.ContainsFunc(all, func(s string) bool { return strings.Contains(s, mine) }) ||
		slices.ContainsFunc(all, func(s string) bool { return strings.Contains(s, theirs) }) {
		l.t.Fatalf("%s's store should hold %s and not %s: %q", trainee, mine, theirs, all)
	}
}

// labTerminal is a trainee's terminal running ssh.
type labTerminal struct{ *tmuxWard }

// playTurn admits the first patient and asks them question: the patient's reply appears
// under it.
func (w *labTerminal) playTurn(question string) {
	w.send(line("review patient_1"))
	w.waitFor("^patient_1 ")
	w.waitIdle()
	w.send(line(question))
	w.waitFor(regexp.QuoteMeta(question) + `\s*\n.*\n.*Patient\s*\n.*│\s+\S`)
	w.waitIdle()
}

// injectDeterioration opens the inject dialog on the chosen trainee and moves patient to the
// named state of their case, as the instructor picks it with the arrow keys.
func (w *labTerminal) injectDeterioration(patient, state string) {
	w.send("i")
	w.waitFor("Inject what")
	w.send("Enter") // a deterioration is the first kind
	w.waitFor("Which patient")
	w.choose(func(option string) bool { return strings.HasPrefix(option, patient+" ") })
	w.waitFor("to which state")
	w.choose(func(option string) bool { return strings.Fields(option)[0] == state })
}

// choose moves the dialog's cursor down to the first option want takes, and presses enter.
func (w *labTerminal) choose(want func(option string) bool) {
	w.t.Helper()
	selected := regexp.MustCompile(`▸ (.+)`)
	for range 20 {
		m := selected.FindStringSubmatch(w.screen())
		if m == nil {
			w.t.Fatalf("no option under the cursor:\n%s", w.screen())
		}
		if want(strings.TrimSpace(m[1])) {
			w.send("Enter")
			return
		}
		w.send("Down")
		time.Sleep(300 * time.Millisecond) // the board redraws
	}
	w.t.Fatalf("no option wanted:\n%s", w.screen())
}

// freePort is a loopback port free now.
func freePort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}
