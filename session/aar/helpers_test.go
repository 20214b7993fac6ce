package aar

import (
	"slices"
	"sync"
	"testing"

	"github.com/ward-sim/ward/session/action"
	"github.com/ward-sim/ward/session/physio"
	sc "github.com/ward-sim/ward/session/scenario"
)

// The review's tests play a scenario through the engine and read its record, as physio's own
// tests do (physio/helpers_test.go); these are the same few helpers, on the engine's public API.

var (
	libOnce sync.Once
	lib     *sc.Library
	libErr  error
)

func library(t testing.TB) *sc.Library {
	t.Helper()
	libOnce.Do(func() { lib, libErr = sc.Load() })
	if libErr != nil {
		t.Fatal(libErr)
	}
	return lib
}

func scenario(t testing.TB, id string) *sc.Scenario {
	t.Helper()
	s, ok := library(t).Get(id)
	if !ok {
		t.Fatalf("no scenario %q", id)
	}
	return s
}

// step is something the trainee types at a number of seconds after arrival.
type step struct {
	at  float64
	say string
}

// play admits a patient to scenario id, types each step at its time, and runs on until end
// seconds. It returns the engine and every event.
func play(t testing.TB, id string, end float64, steps ...step) (*physio.Engine, []physio.Event) {
	t.Helper()
	return playFrom(t, physio.NewEngine("patient_1", scenario(t, id), 42, 0), end, steps...)
}

// cannulated admits a patient to scenario id with IV access already in, for tests of what an IV
// drug does rather than of the access it needs.
func cannulated(t testing.TB, id string, seed uint64) *physio.Engine {
	t.Helper()
	snap := physio.NewEngine("patient_1", scenario(t, id), seed, 0).Snapshot()
	snap.AccessAt = 0
	e, err := physio.Restore(snap, scenario(t, id))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// playFrom is play from an engine the test admitted.
func playFrom(t testing.TB, e *physio.Engine, end float64, steps ...step) (*physio.Engine, []physio.Event) {
	t.Helper()
	var events []physio.Event
	for _, s := range steps {
		events = e.AdvanceTo(s.at, events)
		actions := action.Parse(s.say)
		if len(actions) == 0 {
			t.Fatalf("%q parsed to no actions", s.say)
		}
		for _, a := range actions {
			events = append(events, e.Apply(a)...)
		}
	}
	return e, e.AdvanceTo(end, events)
}

func eventsOf(events []physio.Event, kind string) []physio.Event {
	var out []physio.Event
	for _, ev := range events {
		if ev.Kind == kind {
			out = append(out, ev)
		}
	}
	return out
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func errOf[T any](_ T, err error) error { return err }

// playsEveryScenario fails for each scenario of the library not among ids.
func playsEveryScenario(t *testing.T, ids []string) {
	t.Helper()
	for _, s := range library(t).List() {
		if !slices.Contains(ids, s.ID) {
			t.Errorf("scenario %s is not played through", s.ID)
		}
	}
}
