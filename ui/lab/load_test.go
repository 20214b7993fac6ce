package lab

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/session/records"
)

// A class under load over SSH, on loopback: N trainees at once, each at a 120×40 pty typing M
// questions to their patient a character at a time, each character awaited on their screen, and
// each question's reply awaited before the next; the instructor watches the board's first
// trainee throughout, and must see their last line. `ward serve` runs as its own process, so its
// memory and CPU are its own. Afterwards every question must be in the trainee's stored shift,
// once: no turn lost. The figures are logged; BENCHMARKS.md ("A class over SSH") keeps those of
// WARD_LOAD=30x50. .ci/sshlab.sh builds ward and runs this with WARD_BIN at 5×5.
func TestLoadOverSSH(t *testing.T) {
	trainees, turns := loadSize(t)
	clientsFrom := selfCPU()
	srv := startServer(t, trainees, nil, "--backend", "offline", "--shift", "quiet-night")
	runs := make([]traineeRun, trainees)
	var wg sync.WaitGroup
	watching, played := make(chan error, 1), make(chan struct{})
	go func() { watching <- srv.watch(turns-1, played) }()
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runs[i] = srv.play(fmt.Sprintf("t%02d", i), turns, nil)
		}()
	}
	wg.Wait()
	close(played)
	if err := <-watching; err != nil { // the class is still connected: the watched trainee's last frame is there to see
		t.Error(err)
	}
	hangUp(runs)
	rss, cpu := srv.usage()
	clients := selfCPU() - clientsFrom // the trainees' SSH clients and their screens, in this process
	srv.stop()

	var turnTimes, keyTimes, opening, later []time.Duration
	for _, r := range runs {
		if r.err != nil {
			t.Error(r.err)
			continue
		}
		turnTimes = append(turnTimes, r.turns...)
		n := min(openingTurns, len(r.turns))
		opening, later = append(opening, r.turns[:n]...), append(later, r.turns[n:]...)
		keyTimes = append(keyTimes, r.keys...)
		if lost := srv.lost(r.name, turns); len(lost) > 0 {
			t.Errorf("%s: %d of %d turns are not stored once: %q", r.name, len(lost), turns, lost)
		}
	}
	if t.Failed() {
		return
	}
	t.Logf("%d trainees × %d turns: 0 lost; turn p50 %s p99 %s; keystroke to frame p50 %s p99 %s; server peak RSS %d MiB, CPU %.1f s; clients' CPU %.1f s",
		trainees, turns, percentile(turnTimes, 50), percentile(turnTimes, 99),
		percentile(keyTimes, 50), percentile(keyTimes, 99), rss>>20, cpu.Seconds(), clients.Seconds())
	t.Logf("the first %d turns of each trainee (the class starting at once) p50 %s p99 %s; the turns after them p50 %s p99 %s",
		openingTurns, percentile(opening, 50), percentile(opening, 99), percentile(later, 50), percentile(later, 99))
}

// openingTurns are the turns every trainee plays in the same moments: all connect together,
// type the same questions at the screen's speed and press Enter within milliseconds of each
// other, so these turns queue for the server's cores together. The whole class's p99 is mostly
// theirs; they are logged apart so that a run shows whether its tail is the start or the steady class.
const openingTurns = 2

// loadSize is WARD_LOAD (TRAINEESxTURNS), 5×5 when unset.
func loadSize(t *testing.T) (int, int) {
	size := os.Getenv("WARD_LOAD")
	if size == "" {
		return 5, 5
	}
	a, b, ok := strings.Cut(size, "x")
	n, errN := strconv.Atoi(a)
	m, errM := strconv.Atoi(b)
	if !ok || errN != nil || errM != nil || n < 1 || m < 1 {
		t.Fatalf("WARD_LOAD=%q: want TRAINEESxTURNS, such as 30x50", size)
	}
	return n, m
}

// server is `ward serve` as a subprocess on a loopback port, with its trainees' keys.
type server struct {
	t        *testing.T
	bin, db  string
	env      []string // the server's environment beyond the test's, for the commands that read its database too
	pass     string   // every trainee's passphrase, chosen at their first connection, on an encrypted database
	addr     string
	cmd      *exec.Cmd
	exited   chan error
	keys     map[string]ssh.Signer
	stopOnce sync.Once
}

// startServer enrols trainees t00, t01, … from one authorized_keys file, and the instructor,
// and starts `ward serve` with args and env added to the test's, returning once it says it is listening.
func startServer(t *testing.T, trainees int, env []string, args ...string) *server {
	bin := os.Getenv("WARD_BIN")
	if bin == "" {
		t.Skip("WARD_BIN unset: .ci/sshlab.sh builds ward and runs this test against it")
	}
	dir := t.TempDir()
	s := &server{t: t, bin: bin, db: filepath.Join(dir, "ward.db"), env: env, keys: map[string]ssh.Signer{}}
	if slices.Contains(args, "--encrypt") {
		s.pass = "a trainee's passphrase on the ward"
	}
	var authorized strings.Builder
	for i := range trainees {
		name := fmt.Sprintf("t%02d", i)
		s.keys[name] = newKey(t)
		authorized.WriteString(authorizedLine(s.keys[name], name) + "\n")
	}
	keyFile := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(keyFile, []byte(authorized.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	s.enrol("--authorized-keys", keyFile)
	s.keys["instructor"] = newKey(t)
	instructorKey := filepath.Join(dir, "instructor.pub")
	if err := os.WriteFile(instructorKey, ssh.MarshalAuthorizedKey(s.keys["instructor"].PublicKey()), 0o600); err != nil {
		t.Fatal(err)
	}
	s.enrol("instructor", "--key", instructorKey, "--instructor")

	s.cmd = exec.Command(bin, append([]string{"serve", "--db", s.db, "--listen", freeAddr(t)}, args...)...)
	s.cmd.Env = append(os.Environ(), env...)
	s.cmd.Stderr = os.Stderr
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.exited = make(chan error, 1)
	t.Cleanup(s.stop)
	listening := make(chan string, 1)
	go func() {
		lines := bufio.NewScanner(out)
		for lines.Scan() {
			if m := listeningLine.FindStringSubmatch(lines.Text()); m != nil {
				listening <- m[1]
			}
		}
		s.exited <- s.cmd.Wait()
	}()
	select {
	case s.addr = <-listening:
	case err := <-s.exited:
		t.Fatalf("ward serve exited before listening: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("ward serve did not say it was listening within 30 s")
	}
	return s
}

// freeAddr is a loopback address free now.
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// enrol runs ward enrol with args on the server's database.
func (s *server) enrol(args ...string) {
	if out, err := exec.Command(s.bin, append([]string{"enrol", "--db", s.db}, args...)...).CombinedOutput(); err != nil {
		s.t.Fatalf("ward enrol %q: %v\n%s", args, err, out)
	}
}

// listeningLine is what `ward serve` prints once it listens.
var listeningLine = regexp.MustCompile(`^ward: serving .* on (\S+) \(`)

// stop ends the server as its operator would (SIGINT: every shift saved) and waits for it.
func (s *server) stop() {
	s.stopOnce.Do(func() {
		_ = s.cmd.Process.Signal(syscall.SIGINT)
		select {
		case err := <-s.exited:
			if err != nil {
				s.t.Errorf("ward serve on SIGINT: %v", err)
			}
		case <-time.After(30 * time.Second):
			_ = s.cmd.Process.Kill()
			s.t.Error("ward serve did not exit within 30 s of SIGINT")
		}
	})
}

// usage is the server's peak resident memory (VmHWM) and the CPU time it has used.
func (s *server) usage() (rss int64, cpu time.Duration) {
	pid := s.cmd.Process.Pid
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		s.t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if kb, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")), 10, 64)
			rss = n << 10
		}
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		s.t.Fatal(err)
	}
	// After the command name in parentheses: state is field 3, utime and stime fields 14 and 15,
	// in clock ticks of 1/100 s (USER_HZ on Linux).
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return rss, time.Duration(utime+stime) * 10 * time.Millisecond
}

// watch signs in as the instructor, watches the trainee on the board's first row as the class
// plays, and returns once the watched screen shows that trainee's turn last, which it must
// within a minute of played closing (the class has played: however long a large class takes).
func (s *server) watch(last int, played <-chan struct{}) error {
	board, err := dialTerminal(s.addr, "instructor", s.keys["instructor"])
	if err != nil {
		return fmt.Errorf("the instructor: %w", err)
	}
	defer board.Close()
	class := fmt.Sprintf("%d connected", len(s.keys)-1) // every trainee; the instructor is not one
	if _, err := board.await(class+" on the board", time.Minute, contains(class)); err != nil {
		return err
	}
	// Up to the first row (whoever signed in first has it), then watch.
	if err := board.typeKeys(strings.Repeat("k", len(s.keys)) + "\r"); err != nil {
		return err
	}
	var trainee string
	if _, err := board.await("watching a trainee", time.Minute, func(lines []string) bool {
		m := watchingLine.FindStringSubmatch(lines[0])
		if m != nil {
			trainee = m[1]
		}
		return m != nil
	}); err != nil {
		return err
	}
	<-played
	mark := turnMark(trainee, last)
	_, err = board.await(mark+" on the watched screen", time.Minute, contains(mark))
	return err
}

// watchingLine heads the board's screen while it watches a trainee, and names them.
var watchingLine = regexp.MustCompile(`^Watching (\S+)'s screen`)

// traineeRun is what one trainee measured: each turn's latency (Enter to the reply on their
// screen) and each keystroke's (a character typed to it on their screen).
type traineeRun struct {
	name        string
	turns, keys []time.Duration
	err         error
	term        *sshTerminal // still connected, as a class stays signed in; hangUp closes it
}

// hangUp closes every trainee's connection.
func hangUp(runs []traineeRun) {
	for _, r := range runs {
		if r.term != nil {
			r.term.Close()
		}
	}
}

// play signs in as name, reviews the first patient and asks them turns questions, and leaves
// the connection open (run.term). No screen may ever show what notice matches (nil: anything goes).
func (s *server) play(name string, turns int, notice *regexp.Regexp) (run traineeRun) {
	run.name = name
	term, err := dialTerminal(s.addr, name, s.keys[name])
	if err != nil {
		run.err = fmt.Errorf("%s: %w", name, err)
		return run
	}
	run.term = term
	term.never(notice)
	defer func() {
		if run.err == nil {
			run.err = term.sawNever()
		}
	}()
	if run.err = s.choosePassphrase(term); run.err != nil {
		return run
	}
	if _, run.err = term.await("the first screen", time.Minute, contains("review patient_1")); run.err != nil {
		return run
	}
	if run.err = term.typeKeys("review patient_1\r"); run.err != nil {
		return run
	}
	if _, run.err = term.await("patient_1 chosen", time.Minute, idleWith("patient_1 ")); run.err != nil {
		return run
	}
	for i := range turns {
		question := fmt.Sprintf("how are you feeling %s", turnMark(name, i))
		keys, err := typeLine(term, question)
		run.keys = append(run.keys, keys...)
		if err != nil {
			run.err = err
			return run
		}
		sent := time.Now()
		if err := term.typeKeys("\r"); err != nil {
			run.err = err
			return run
		}
		at, err := term.await("the reply to "+question, 2*time.Minute, replied(turnMark(name, i)))
		if err != nil {
			run.err = err
			return run
		}
		run.turns = append(run.turns, at.Sub(sent))
	}
	return run
}

// choosePassphrase chooses the trainee's passphrase at their first connection to an encrypted
// database; nothing on one that is not.
func (s *server) choosePassphrase(term *sshTerminal) error {
	if s.pass == "" {
		return nil
	}
	if _, err := term.await("the passphrase's prompt", time.Minute, contains("choose a passphrase")); err != nil {
		return err
	}
	if err := term.typeKeys(s.pass + "\r"); err != nil {
		return err
	}
	if _, err := term.await("the prompt to type it again", time.Minute, contains("The same again")); err != nil {
		return err
	}
	return term.typeKeys(s.pass + "\r")
}

// turnMark names a trainee's turn i, unique in the class.
func turnMark(name string, i int) string { return fmt.Sprintf("%sq%02d", name, i) }

// typeLine types text a character at a time, each awaited in the input, and returns how long
// each took to appear. A space is not awaited: the input shows nothing new until the next
// character.
func typeLine(term *sshTerminal, text string) ([]time.Duration, error) {
	var took []time.Duration
	for i, r := range text {
		sent := time.Now()
		if err := term.typeKeys(string(r)); err != nil {
			return took, err
		}
		if r == ' ' {
			continue
		}
		at, err := term.await(fmt.Sprintf("%q typed", text[:i+1]), time.Minute, inputShows(text[:i+1]))
		if err != nil {
			return took, err
		}
		took = append(took, at.Sub(sent))
	}
	return took, nil
}

// inputTop is the row of the rule above the input box: below it the input and the status bar.
func inputTop(lines []string) int {
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "────") {
			return i
		}
	}
	return len(lines)
}

// inputShows is true when the input's first line holds typed and nothing more.
func inputShows(typed string) func([]string) bool {
	return func(lines []string) bool { return slices.Contains(lines[inputTop(lines):], "│ "+typed) }
}

func contains(text string) func([]string) bool {
	return func(lines []string) bool {
		return slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, text) })
	}
}

// busy is what the status bar says while anything runs or waits.
var busy = regexp.MustCompile(`generating…|cancelling…|switching…|counting what|[0-9]+ queued|waiting for`)

// idleWith is true when the header starts with text and the status bar says nothing runs.
func idleWith(header string) func([]string) bool {
	return func(lines []string) bool {
		return strings.HasPrefix(lines[0], header) && !busy.MatchString(lines[len(lines)-1])
	}
}

// chatLabel and chatText are a message's speaker and its indented text in the chat column.
var chatLabel, chatText = regexp.MustCompile(`│ \S`), regexp.MustCompile(`│   \S`)

// replied is true when the chat shows the line holding mark, a speaker under it with their
// text, and nothing runs.
func replied(mark string) func([]string) bool {
	return func(lines []string) bool {
		if busy.MatchString(lines[len(lines)-1]) {
			return false
		}
		chat := lines[:inputTop(lines)]
		at := slices.IndexFunc(chat, func(l string) bool { return strings.Contains(l, mark) })
		if at < 0 {
			return false
		}
		label := slices.IndexFunc(chat[at+1:], chatLabel.MatchString)
		return label >= 0 && slices.ContainsFunc(chat[at+1+label+1:], chatText.MatchString)
	}
}

// lost is the marks of trainee's turns not stored exactly once in their latest shift.
func (s *server) lost(trainee string, turns int) []string {
	dump := exec.Command(s.bin, "dump", "--db", s.db, "--trainee", trainee)
	if s.pass != "" {
		dump.Args = append(dump.Args, "--instructor")
	}
	dump.Env = append(os.Environ(), s.env...)
	out, err := dump.Output()
	if err != nil {
		s.t.Fatalf("ward dump --trainee %s: %v", trainee, err)
	}
	var d records.DumpDoc
	if err := json.Unmarshal(out, &d); err != nil {
		s.t.Fatalf("ward dump --trainee %s: %v", trainee, err)
	}
	stored := d.SessionHistory
	for _, h := range d.Histories {
		stored = append(stored, h...)
	}
	var lost []string
	for i := range turns {
		mark, n := turnMark(trainee, i), 0
		for _, m := range stored {
			if m.Role == memory.RoleUser && strings.Contains(m.Content, mark) {
				n++
			}
		}
		if n != 1 {
			lost = append(lost, fmt.Sprintf("%s×%d", mark, n))
		}
	}
	return lost
}

// percentile is the p-th percentile of ds (nearest rank).
func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	sorted := slices.Clone(ds)
	slices.Sort(sorted)
	return sorted[min((len(sorted)*p+99)/100, len(sorted))-1].Round(100 * time.Microsecond)
}
