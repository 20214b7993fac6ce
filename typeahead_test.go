package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ward-sim/ward/agents/ollamatest"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/session/records"
)

// Issue 22, as a trainee types: in a real terminal (tmux), each sequence's keys are sent back to
// back in one tmux command, with no delay, while ward is still busy with the line before. Then
// `ward dump` must hold every line once, whole, in the history of the patient it was typed for,
// in order, and no clear without a y. .ci/typeahead.sh builds ward and runs this with WARD_BIN.
func TestTypeaheadOffline(t *testing.T) {
	w := startTmuxWard(t, nil, "--backend", "offline")
	w.playTypeahead()
}

// The same on a model that takes 2 s a reply, so every line after the first is typed while a
// reply is coming: an httptest server speaking Ollama's NDJSON, behind a proxy that waits.
func TestTypeaheadOnASlowModel(t *testing.T) {
	reply := ollamatest.Answer(`{"reply":"It still hurts.","entities_to_update":{},"derived_entities_to_update":{}}`)
	fake := ollamatest.NewFake(t, reply)
	slow := httptest.NewServer(slowly(t, fake.URL(), 2*time.Second))
	t.Cleanup(slow.Close)
	w := startTmuxWard(t, []string{"OLLAMA_HOST=" + slow.URL}, "--backend", "ollama", "--model", ollamatest.TestModel)
	w.playTypeahead()
}

// slowly forwards to next, making each chat call wait d first, as a model on a CPU does.
func slowly(t *testing.T, next string, d time.Duration) http.Handler {
	target, err := url.Parse(next)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/chat" {
			select {
			case <-time.After(d):
			case <-r.Context().Done():
				return
			}
		}
		proxy.ServeHTTP(rw, r)
	})
}

// playTypeahead plays the sequences and checks the store after each.
func (w *tmuxWard) playTypeahead() {
	t := w.t
	for _, id := range []string{"patient_1", "patient_2", "patient_3"} { // the setup, at a reader's pace
		w.send(line("/admit " + id))
		w.waitFor("^" + id + " ")
		w.waitIdle()
	}
	w.send("M-1")
	w.waitFor("^patient_1 ")
	w.waitIdle()

	// 1. A line that switches, two questions, alt+3, a third question.
	w.send(line("review patient_2"), line("how are you? TA1"), line("any allergies TA2"), "M-3", line("how is the pain TA3"))
	w.waitIdle()
	d := w.dump()
	w.heard(d, "patient_2", "how are you? TA1", "any allergies TA2")
	w.heard(d, "patient_3", "how is the pain TA3")

	// 2. /wait, then two questions: both sent, the input empty, the status bar idle.
	w.send(line("/wait 1m"), line("how are you TD1"), line("is the pain better TD2"))
	w.waitIdle()
	w.heard(w.dump(), "patient_3", "how is the pain TA3", "how are you TD1", "is the pain better TD2")
	if s := w.screen(); !strings.Contains(s, "Say what you do or ask") || strings.Contains(s, "still coming") { // the placeholder: the input is empty
		t.Fatalf("a line stayed in the input, or the status bar speaks of a reply that ended:\n%s", s)
	}

	// 3. /clear, then a line with a y in it: the question waits for a deliberate answer.
	w.send(line("/clear"), line("how are you feeling TC1"))
	w.waitFor("Clear the whole shift")
	w.unanswered("Clear the whole shift")
	w.answer("n")
	w.waitIdle()
	w.heard(w.dump(), "patient_3", "how is the pain TA3", "how are you TD1", "is the pain better TD2", "how are you feeling TC1")

	// 4. A new patient named in free text, a line, alt+2: the question is not answered by them.
	w.send(line("review patient_4"), line("hello there TE1"), "M-2")
	w.waitFor("Admit patient_4")
	w.unanswered("Admit patient_4")
	if _, admitted := w.dump().Registry.Patients["patient_4"]; admitted {
		t.Fatal("patient_4 was admitted without a y")
	}
	w.answer("y")
	w.waitIdle()
	d = w.dump()
	w.heard(d, "patient_4", "hello there TE1")
	if d.Registry.ActivePatientID != "patient_2" {
		t.Errorf("alt+2 typed during the question did not run after it: active %q", d.Registry.ActivePatientID)
	}

	// 5. An ID ward cannot use, then a question: the line goes to no one, the question is held
	// until the trainee names the patient and sends it on (enter on an empty input).
	w.send(line("review patient_1a"), line("how are you TG1"))
	w.waitFor("patient_1a is not a patient ID")
	w.waitIdle()
	d = w.dump()
	if d.Registry.ActivePatientID != "patient_2" || slices.Contains(userLines(d.Histories["patient_2"]), "how are you TG1") {
		t.Fatalf("a line for a patient ward cannot find reached someone: active %q, patient_2 heard %q",
			d.Registry.ActivePatientID, userLines(d.Histories["patient_2"]))
	}
	w.send(line("review patient_1"))
	w.waitIdle()
	w.send("Enter")
	w.waitIdle()
	w.heard(w.dump(), "patient_1", "how are you TG1")

	// 6. A clear the trainee says y to, with a line typed after it: the line goes to no patient.
	w.send(line("/clear"), line("after the clear TF1"))
	w.waitFor("Clear the whole shift")
	w.answer("y")
	w.waitIdle()
	d = w.dump()
	if len(d.Archives) != 1 {
		t.Fatalf("%d clears for one y", len(d.Archives))
	}
	if got := userLines(d.SessionHistory); !slices.Contains(got, "after the clear TF1") {
		t.Errorf("the line typed after the clear is not in the shift's history: %q", got)
	}
	w.onceEach(d, "TA1", "TA2", "TA3", "TD1", "TD2", "TC1", "TE1", "TG1", "TF1")
}

// line is a line typed and sent.
func line(text string) string { return "line:" + text }

// tmuxWard is ward running in a private tmux server, driven as a person at a terminal would.
type tmuxWard struct {
	t               *testing.T
	bin, db, socket string
}

const tmuxSession = "ward"

func startTmuxWard(t *testing.T, env []string, args ...string) *tmuxWard {
	bin := os.Getenv("WARD_BIN")
	if bin == "" {
		t.Skip("WARD_BIN unset: .ci/typeahead.sh builds ward and runs this test in tmux")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("no tmux")
	}
	dir := t.TempDir()
	w := &tmuxWard{t: t, bin: bin, db: filepath.Join(dir, "ward.db"), socket: fmt.Sprintf("ward-%d-%s", os.Getpid(), t.Name())}
	cmd := strings.Join(append(append([]string{"env"}, env...), append([]string{bin, "--db", w.db, "--new"}, args...)...), " ")
	w.tmux("new-session", "-d", "-s", tmuxSession, "-x", "120", "-y", "40", cmd+" 2>"+filepath.Join(dir, "stderr")+"; echo WARD_EXIT=$?; sleep 600")
	// Each test has its own server: a new session on a server that is exiting fails.
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", w.socket, "kill-server").Run() })
	w.waitFor("review patient_1")
	return w
}

func (w *tmuxWard) tmux(args ...string) string {
	out, err := exec.Command("tmux", append([]string{"-L", w.socket}, args...)...).CombinedOutput()
	if err != nil {
		w.t.Fatalf("tmux %q: %v\n%s", args, err, out)
	}
	return string(out)
}

// send types steps back to back in one tmux command: a line(...) is its text then Enter,
// anything else a key as tmux names it ("M-3" is alt+3).
func (w *tmuxWard) send(steps ...string) {
	var args []string
	for _, s := range steps {
		if len(args) > 0 {
			args = append(args, ";")
		}
		if text, ok := strings.CutPrefix(s, "line:"); ok {
			args = append(args, "send-keys", "-t", tmuxSession, "-l", text, ";", "send-keys", "-t", tmuxSession, "Enter")
		} else {
			args = append(args, "send-keys", "-t", tmuxSession, s)
		}
	}
	w.tmux(args...)
}

// answer presses key as a person who has read the question: after a pause.
func (w *tmuxWard) answer(key string) {
	time.Sleep(time.Second)
	w.tmux("send-keys", "-t", tmuxSession, key)
}

func (w *tmuxWard) screen() string { return w.tmux("capture-pane", "-p", "-t", tmuxSession) }

func (w *tmuxWard) waitFor(pattern string) {
	re := regexp.MustCompile("(?m)" + pattern)
	w.until("/"+pattern+"/", 60*time.Second, func(s string) bool { return re.MatchString(s) })
}

// busyWords are what the status bar says while anything runs or waits.
var busyWords = regexp.MustCompile(`generating…|waiting for the model|cancelling…|switching…|counting what|[0-9]+ queued|waiting for your answer`)

// waitIdle waits until the status bar has said for 1.5 s that nothing runs or waits: keys just
// sent may not have been read yet.
func (w *tmuxWard) waitIdle() {
	var since time.Time
	w.until("nothing running or queued", 180*time.Second, func(s string) bool {
		lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
		if busyWords.MatchString(lines[len(lines)-1]) {
			since = time.Time{}
			return false
		}
		if since.IsZero() {
			since = time.Now()
		}
		return time.Since(since) >= 1500*time.Millisecond
	})
}

// unanswered checks that the question is still open a while after the keys typed ahead of it.
func (w *tmuxWard) unanswered(question string) {
	time.Sleep(1500 * time.Millisecond)
	if s := w.screen(); !strings.Contains(s, question) || !strings.Contains(s, "waiting for your answer") {
		w.t.Fatalf("keys typed before the question answered it:\n%s", s)
	}
}

func (w *tmuxWard) until(what string, limit time.Duration, ok func(screen string) bool) {
	w.t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		s := w.screen()
		if strings.Contains(s, "panic:") || regexp.MustCompile(`WARD_EXIT=[0-9]`).MatchString(s) {
			w.t.Fatalf("ward crashed or quit:\n%s", s)
		}
		if ok(s) {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	w.t.Fatalf("timed out waiting for %s:\n%s", what, w.screen())
}

func (w *tmuxWard) dump() records.DumpDoc {
	w.t.Helper()
	out, err := exec.Command(w.bin, "dump", "--db", w.db).Output()
	if err != nil {
		w.t.Fatalf("ward dump: %v", err)
	}
	var d records.DumpDoc
	if err := json.Unmarshal(out, &d); err != nil {
		w.t.Fatalf("ward dump: %v\n%s", err, out)
	}
	return d
}

// heard checks that patient's history holds lines as the trainee's messages, in this order.
func (w *tmuxWard) heard(d records.DumpDoc, patient string, lines ...string) {
	w.t.Helper()
	got := userLines(d.Histories[patient])
	at := 0
	for _, want := range lines {
		i := slices.Index(got[at:], want)
		if i < 0 {
			w.t.Fatalf("%s's history lacks %q after the lines before it: %q; the screen now:\n%s", patient, want, got, w.screen())
		}
		at += i + 1
	}
}

// onceEach checks that each mark is in exactly one stored user message, archives included, and
// that no message holds two: nothing lost, nothing doubled, nothing joined.
func (w *tmuxWard) onceEach(d records.DumpDoc, marks ...string) {
	w.t.Helper()
	all := userLines(d.SessionHistory)
	for _, h := range d.Histories {
		all = append(all, userLines(h)...)
	}
	for _, a := range d.Archives {
		all = append(all, userLines(a.SessionHistory)...)
		for _, h := range a.Histories {
			all = append(all, userLines(h)...)
		}
	}
	for _, mark := range marks {
		n := 0
		for _, l := range all {
			n += strings.Count(l, mark)
			if strings.Contains(l, mark) && slices.ContainsFunc(marks, func(o string) bool { return o != mark && strings.Contains(l, o) }) {
				w.t.Errorf("lines joined into one message: %q", l)
			}
		}
		if n != 1 {
			w.t.Errorf("%s is stored %d times, want once", mark, n)
		}
	}
}

func userLines(msgs []memory.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Role == memory.RoleUser {
			out = append(out, m.Content)
		}
	}
	return out
}
