package lab

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ward-sim/ward/persist"
	"golang.org/x/crypto/ssh"
)

// The class under attack from within: N trainees play M turns each (WARD_LOAD, 30×5 by
// default here) on an encrypted database, once alone and once while three enrolled trainees
// misbehave: one asks for a 30000×10000 terminal and stays, one guesses a passphrase on 12
// connections at once, over and over, and one's turns panic (the test-only hook,
// WARD_TEST_PANIC_ON). The class must not notice: no turn lost, the others' p99 turn within
// 1.5× of the quiet run's, the server's peak RSS under hostileRSS, and its memory still once
// everyone has gone and their shifts are saved (the huge terminal's program used to grow 30 MB/s
// after its client left).
// Run by .ci/class-load.sh (WARD_HOSTILE=1 with WARD_BIN); WARD_HOSTILE=huge,guess,panic names
// which of them come, to tell their costs apart.
func TestLoadWithHostileConnections(t *testing.T) {
	if os.Getenv("WARD_HOSTILE") == "" {
		t.Skip("WARD_HOSTILE unset: .ci/class-load.sh runs this")
	}
	trainees, turns := 30, 5
	if os.Getenv("WARD_LOAD") != "" {
		trainees, turns = loadSize(t)
	}
	quiet := classRun(t, trainees, turns, false)
	hostile := classRun(t, trainees, turns, true)
	t.Logf("quiet: turn p50 %s p99 %s, peak RSS %d MiB, CPU %.1f s", percentile(quiet.turns, 50), percentile(quiet.turns, 99),
		quiet.rss>>20, quiet.cpu.Seconds())
	t.Logf("hostile: turn p50 %s p99 %s, peak RSS %d MiB, CPU %.1f s; %d passphrase guesses, %d connections refused, %d turns panicked",
		percentile(hostile.turns, 50), percentile(hostile.turns, 99), hostile.rss>>20, hostile.cpu.Seconds(),
		hostile.guesses, hostile.refused, hostile.panics)
	if q, h := percentile(quiet.turns, 99), percentile(hostile.turns, 99); h > q*3/2 {
		t.Errorf("the class's p99 turn is %s under the hostile connections, over 1.5× the quiet run's %s", h, q)
	}
	if hostile.rss > hostileRSS {
		t.Errorf("the server's peak RSS is %d MiB under the hostile connections, over %d MiB", hostile.rss>>20, hostileRSS>>20)
	}
	if os.Getenv("WARD_HOSTILE") == "1" && (hostile.panics == 0 || hostile.guesses == 0) {
		t.Errorf("the hostile ones did not get to misbehave: %d panics, %d guesses", hostile.panics, hostile.guesses)
	}
}

// hostileRSS is the most the server may hold under the hostile run: the class's own (about
// 5 MiB a trainee at 30) and two argon2id derivations of 64 MiB each, with room to spare; the
// huge terminal alone took 1.3 GB before it was clamped.
const hostileRSS = 448 << 20

// classResult is what one run measured.
type classResult struct {
	turns                    []time.Duration // the well-behaved trainees'
	rss                      int64
	cpu                      time.Duration
	guesses, refused, panics int
}

// classRun plays the class, with the hostile trainees when hostile, and checks that no turn
// was lost and that the server's memory is still once everyone has gone.
func classRun(t *testing.T, trainees, turns int, hostile bool) (res classResult) {
	const bad = 3 // enrolled after the class: the huge terminal, the guesser, the panicker
	srv := startServer(t, trainees+bad, []string{"WARD_INSTRUCTOR_PASSPHRASE=the instructor's long passphrase 42",
		panicEnv + "=kaboom"}, "--backend", "offline", "--shift", "quiet-night", "--encrypt")
	name := func(i int) string { return fmt.Sprintf("t%02d", i) }
	done := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	comes := func(who string) bool {
		which := os.Getenv("WARD_HOSTILE")
		return hostile && (which == "1" || strings.Contains(which, who))
	}
	if comes("huge") {
		wg.Add(1)
		go func() { defer wg.Done(); srv.hugeTerminal(name(trainees), done) }()
	}
	if comes("guess") {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g, r := srv.guess(name(trainees+1), done)
			mu.Lock()
			res.guesses, res.refused = g, r
			mu.Unlock()
		}()
	}
	if comes("panic") {
		wg.Add(1)
		go func() { defer wg.Done(); srv.panicTurns(name(trainees+2), turns, done) }()
	}
	runs := make([]traineeRun, trainees)
	var class sync.WaitGroup
	for i := range runs {
		class.Add(1)
		go func() {
			defer class.Done()
			runs[i] = srv.play(name(i), turns, nil)
		}()
	}
	class.Wait()
	close(done)
	wg.Wait()
	hangUp(runs)
	res.rss, res.cpu = srv.usage()
	time.Sleep(5 * time.Second) // the shifts saved as their connections close
	if grew := srv.growth(5 * time.Second); grew > 16<<20 {
		t.Errorf("the server's memory grew %d MiB in the 5 s after everyone had gone", grew>>20)
	}
	srv.stop()
	audit, err := persist.ReadAudit(persist.AuditPath(srv.db))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range audit {
		if e.Action == persist.AuditPanic && e.As == "trainee "+name(trainees+2) {
			res.panics++
		}
	}
	for _, r := range runs {
		if r.err != nil {
			t.Error(r.err)
			continue
		}
		res.turns = append(res.turns, r.turns...)
		if lost := srv.lost(r.name, turns); len(lost) > 0 {
			t.Errorf("%s: %d of %d turns are not stored once: %q", r.name, len(lost), turns, lost)
		}
	}
	return res
}

// hugeTerminal signs in as name on a 30000×10000 terminal, reads what the server draws and
// stays until done.
func (s *server) hugeTerminal(name string, done <-chan struct{}) {
	client, err := ssh.Dial("tcp", s.addr, &ssh.ClientConfig{User: name, Auth: []ssh.AuthMethod{ssh.PublicKeys(s.keys[name])},
		HostKeyCallback: ssh.InsecureIgnoreHostKey(), Timeout: 30 * time.Second})
	if err != nil {
		s.t.Errorf("%s: %v", name, err)
		return
	}
	defer client.Close()
	sess, err := client.NewSession()
	if err != nil {
		s.t.Errorf("%s: %v", name, err)
		return
	}
	keys, _ := sess.StdinPipe()
	out, _ := sess.StdoutPipe()
	if err := sess.RequestPty("xterm-256color", 10000, 30000, ssh.TerminalModes{}); err != nil {
		s.t.Errorf("%s: %v", name, err)
		return
	}
	if err := sess.Shell(); err != nil {
		s.t.Errorf("%s: %v", name, err)
		return
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	time.Sleep(time.Second) // the prompt to choose a passphrase
	_, _ = io.WriteString(keys, s.pass+"\r")
	time.Sleep(time.Second)
	_, _ = io.WriteString(keys, s.pass+"\r")
	<-done
}

// guess chooses name's passphrase, then guesses at it on 12 connections at once, each
// reconnecting as soon as it ends, until done: how many guesses were typed, and how many
// connections were refused outright.
func (s *server) guess(name string, done <-chan struct{}) (guesses, refused int) {
	first, err := dialTerminal(s.addr, name, s.keys[name])
	if err == nil {
		err = s.choosePassphrase(first)
	}
	if err == nil {
		_, err = first.await("the first screen", time.Minute, contains("review patient_1"))
	}
	if err != nil {
		s.t.Errorf("%s: %v", name, err)
		return 0, 0
	}
	first.Close()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-done:
					return
				default:
				}
				time.Sleep(500 * time.Millisecond) // a script's pace, not a flood of handshakes
				term, err := dialTerminal(s.addr, name, s.keys[name])
				if err != nil {
					continue
				}
				prompted := false
				_, err = term.await("a prompt", 30*time.Second, func(lines []string) bool {
					prompted = contains("Passphrase of")(lines)
					return prompted || contains("connections open already")(lines)
				})
				if err == nil && prompted && term.typeKeys(fmt.Sprintf("guess number %d\r", n)) == nil {
					mu.Lock()
					guesses++
					mu.Unlock()
				} else {
					mu.Lock()
					refused++
					mu.Unlock()
				}
				term.Close()
			}
		}()
	}
	wg.Wait()
	return guesses, refused
}

// panicTurns plays as name, every other line setting off the panic hook, until done or turns
// pairs of lines; each panic must be said on its screen.
func (s *server) panicTurns(name string, turns int, done <-chan struct{}) {
	term, err := dialTerminal(s.addr, name, s.keys[name])
	if err == nil {
		defer term.Close()
		err = s.choosePassphrase(term)
	}
	if err == nil {
		_, err = term.await("the first screen", time.Minute, contains("review patient_1"))
	}
	if err == nil {
		err = term.typeKeys("review patient_1\r")
	}
	for i := 0; err == nil && i < turns; i++ {
		select {
		case <-done:
			return
		default:
		}
		if err = term.typeKeys(fmt.Sprintf("kaboom %d\r", i)); err == nil {
			_, err = term.await("the failed turn", time.Minute, contains("this turn failed inside ward"))
		}
		time.Sleep(time.Second) // the screen holds a line typed before a failure could be read
		if err == nil {
			err = term.typeKeys(fmt.Sprintf("and how are you %d\r", i))
		}
		if err == nil {
			_, err = term.await("the reply after the failure", time.Minute, replied(fmt.Sprintf("how are you %d", i)))
		}
	}
	if err != nil {
		s.t.Errorf("%s: %v", name, err)
	}
}

// growth is how much the server's resident memory grew over d.
func (s *server) growth(d time.Duration) int64 {
	before := s.resident()
	time.Sleep(d)
	return s.resident() - before
}

// resident is the server's resident memory now (VmRSS).
func (s *server) resident() int64 {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		s.t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if kb, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")), 10, 64)
			return n << 10
		}
	}
	return 0
}
