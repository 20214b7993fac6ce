// Package sessiontest runs real shifts for the tests of the packages above session (the screen's
// adapter, the replay and eval tools): a session on a real bbolt file in a temp dir, answered by
// the rules analyzer and the offline backend, with a clock that ticks one second per reading.
package sessiontest

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ward-sim/ward/agents/analyzer"
	"github.com/ward-sim/ward/agents/offline"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/scenario"
)

// Rig is one shift under test and what started it.
type Rig struct {
	T     testing.TB
	Store *persist.Store
	Cfg   session.Config
	S     *session.Session
}

// New starts a shift on a new store; change adjusts the configuration before it starts.
func New(t testing.TB, change func(*session.Config)) *Rig {
	t.Helper()
	store, err := persist.Open(filepath.Join(t.TempDir(), "ward.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	clock := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	lib, err := builtinLibrary()
	if err != nil {
		t.Fatal(err)
	}
	cfg := session.Config{
		Store: store, Backend: offline.New(), Analyzer: analyzer.NewAnalyzer(nil), Scenarios: lib,
		Now: func() time.Time { clock = clock.Add(time.Second); return clock },
	}
	change(&cfg)
	r := &Rig{T: t, Store: store, Cfg: cfg}
	r.NewShift()
	return r
}

// builtinLibrary is the built-in library, loaded once and shared by the rigs, as ward serve shares
// one among a class (a Library is read-only and safe to share): a library per rig would parse
// every scenario again whenever a patient arrives without one (PickScenario parses them all).
var builtinLibrary = sync.OnceValues(func() (*scenario.Library, error) { return scenario.Load() })

// Seeded is a rig whose shift's physiology is seeded, as `ward run --seed 1` is.
func Seeded(t testing.TB) *Rig { return New(t, func(c *session.Config) { c.Seed = 1 }) }

// Trainee is a rig whose store acts for trainee.
func Trainee(t testing.TB, trainee string) *Rig {
	t.Helper()
	return New(t, func(cfg *session.Config) {
		if err := cfg.Store.SignIn(persist.Person{Trainee: trainee}, nil); err != nil {
			t.Fatal(err)
		}
	})
}

// Turn runs one line and returns its events.
func (r *Rig) Turn(text string) []session.Event {
	r.T.Helper()
	var events []session.Event
	r.S.Turn(context.Background(), text, func(e session.Event) { events = append(events, e) })
	return events
}

// NewShift starts another shift on the rig's configuration, as `ward --new` would.
func (r *Rig) NewShift() {
	r.T.Helper()
	s, err := session.Start(r.Cfg)
	if err != nil {
		r.T.Fatal(err)
	}
	r.S = s
}

// Restart drops the in-memory session and resumes from the store, as a new process would.
func (r *Rig) Restart() {
	r.T.Helper()
	s, err := session.Resume(r.Cfg)
	if err != nil {
		r.T.Fatal(err)
	}
	r.S = s
}
