package session

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/agents/offline"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/persist"
)

// commitsOf is how many durable commits the store made while line ran as a turn, and the turn's
// events.
func (r *rig) commitsOf(line string) (uint64, []Event) {
	r.t.Helper()
	before := storeCommits(r.t, r.store)
	events := r.turn(line)
	return storeCommits(r.t, r.store) - before, events
}

func storeCommits(t *testing.T, s *persist.Store) uint64 {
	t.Helper()
	n, err := s.Commits()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A class shares its backend through a queue; on the offline backend its turns are still one
// commit each, as a trainee's alone are.
func TestTurnIsOneCommitAnsweredInProcessBehindAClassQueue(t *testing.T) {
	r := newRigWith(t, func(c *Config) { c.Backend = llm.NewQueue(c.Backend, 2).For("t01") })
	r.turn("/admit patient_1 sepsis-urosepsis")
	r.turn("review patient_1")
	if n, _ := r.commitsOf("how are you feeling?"); n != 1 {
		t.Errorf("a question behind the class's queue made %d commits, want 1", n)
	}
}

// An acknowledged turn answered in the process is one durable commit: the trainee's line goes to
// disk with what answers it, a switch's registry with them, and /wait's alarms with the state
// that raised them.
func TestTurnIsOneCommitAnsweredInProcess(t *testing.T) {
	r := newRig(t)
	r.turn("/admit patient_1 sepsis-urosepsis")
	r.turn("/admit patient_2 asthma-exacerbation")
	for _, line := range []string{
		"review patient_1", // a switch by name: the registry with the line and the reply
		"how are you feeling?",
		"/vitals",
		"give 500 ml of hartmann's iv",
		"review patient_2",
		"/wait 10m", // every patient steps; the alarms it raises go with the state
		"who is on the ward?",
		"/switch patient_1",
	} {
		n, events := r.commitsOf(line)
		if n != 1 {
			t.Errorf("%q made %d commits, want 1", line, n)
		}
		if line == "/wait 10m" && !slices.ContainsFunc(events, func(e Event) bool {
			m, ok := e.(MessageEvent)
			return ok && m.Agent == nurseAgent
		}) {
			t.Errorf("/wait 10m told no alarm: it no longer covers the alarms' commit")
		}
	}
	r.restart() // what the turns told is what the store has
	if got := r.s.reg.ActivePatientID; got != "patient_1" {
		t.Fatalf("stored active patient %q, want patient_1", got)
	}
	var typed []string
	if err := r.store.View(r.s.ID(), func(tx *persist.Tx) error {
		h, err := tx.Recent("patient_1", tx.Len("patient_1"))
		for _, m := range h {
			if m.Role == memory.RoleUser {
				typed = append(typed, m.Content)
			}
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{"/admit patient_1", "review patient_1", "how are you feeling?", "/vitals", "give 500 ml of hartmann's iv", "/switch patient_1"}
	if !slices.Equal(typed, want) {
		t.Fatalf("patient_1's stored lines %q, want %q", typed, want)
	}
}

// waiting is a backend a turn waits on (it does not answer in the process): before every call it
// checks that the trainee's line is already in the store.
type waiting struct {
	llm.Backend
	t     *testing.T
	store *persist.Store
	sid   func() string
	want  string
	calls int
}

func (w *waiting) Chat(ctx context.Context, req llm.Request, onDelta func(string)) (llm.Response, error) {
	w.calls++
	var last string
	err := w.store.View(w.sid(), func(tx *persist.Tx) error {
		h, err := tx.Recent("patient_1", 1)
		if len(h) == 1 {
			last = h[0].Content
		}
		return err
	})
	if err != nil || last != w.want {
		w.t.Errorf("a model was asked while the newest stored line was %q (%v), want %q", last, err, w.want)
	}
	return w.Backend.Chat(ctx, req, onDelta)
}

// A turn that waits on a model makes the line durable before the call, and the reply is a
// second commit: two in all, the least a durable line before a call of unknown length allows.
func TestTurnStoresTheLineBeforeAModelIsAsked(t *testing.T) {
	w := &waiting{Backend: offline.New(), t: t}
	r := newRigWith(t, func(c *Config) { c.Backend = w })
	w.store, w.sid = r.store, r.s.ID
	r.turn("/admit patient_1 sepsis-urosepsis")
	for _, line := range []string{"how are you feeling?", "/vitals"} {
		w.want = line
		before := w.calls
		if n, _ := r.commitsOf(line); n != 2 {
			t.Errorf("%q made %d commits, want 2 (the line, then the reply)", line, n)
		}
		if w.calls == before {
			t.Fatalf("%q asked no model", line)
		}
	}
}

// A turn's writes are encoded in the turn, before it queues its update: the writer every session
// on the file shares only puts bytes. So a value that does not encode fails the turn with its
// clear message without the writer running anything of it, and nothing of the turn is stored.
func TestATurnEncodesItsWritesBeforeTheCommit(t *testing.T) {
	r := newRig(t)
	r.turn("review patient_1")
	r.s.sim.mems["patient_1"].Start = math.NaN() // encoding/json refuses NaN
	r.s.sim.dirty["patient_1"] = true
	stored := len(r.stored("patient_1"))
	updates0, _ := r.store.WriterTime()
	n, events := r.commitsOf("how are you feeling?")
	want := "could not save the turn: put memory document of patient_1: json: unsupported value: NaN"
	if n != 0 || !strings.Contains(errorsOf(events), want) {
		t.Fatalf("made %d commits and said %q; want none and %q", n, errorsOf(events), want)
	}
	if updates, _ := r.store.WriterTime(); updates != updates0 {
		t.Errorf("the shared writer spent %s on a turn whose writes did not encode: it encoded them", updates-updates0)
	}
	if got := len(r.stored("patient_1")); got != stored {
		t.Errorf("patient_1's history went from %d to %d messages on a turn that was not saved", stored, got)
	}
	r.s.sim.mems["patient_1"].Start = 0
	if n, events := r.commitsOf("any pain?"); n != 1 || errorsOf(events) != "" {
		t.Fatalf("the next turn made %d commits and said %q; want one and no error", n, errorsOf(events))
	}
	if got := len(r.stored("patient_1")); got <= stored {
		t.Errorf("patient_1's history holds %d messages after a saved turn, want more than %d", got, stored)
	}
}
