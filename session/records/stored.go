// Package records is the read side: what a stored shift says, read without running it — the
// dump, the After Action Review, exports, progress, the class report, stats, archives and the
// findings that recur across a trainee's shifts. It sits below the turn, which reads earlier
// shifts through it, and restores stored engines (RestoreEngine) for every reader.
package records

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session/physio"
	"github.com/ward-sim/ward/session/scenario"
)

// storedWard puts a stored shift's engines back on a ward of the shift's seed and clock, each as
// it was stored.
func storedWard(lib *scenario.Library, info persist.SessionInfo, docs map[string]json.RawMessage) (*physio.Ward, error) {
	w := physio.NewWard(info.Seed, info.ClockSeconds)
	for _, id := range inOrder(docs) {
		if _, err := RestoreEngine(w, lib, id, docs[id]); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// inOrder are the patients' IDs in a fixed order, so every read lists them the same way:
// patient_2 before patient_10 (shorter first, then by the letter).
func inOrder(docs map[string]json.RawMessage) []string {
	return slices.SortedFunc(maps.Keys(docs), func(a, b string) int {
		return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b))
	})
}

// currentWard is storedWard for the shift's current patients, each brought up to the shift's
// clock. A shift stores an engine when something happens to it, not each time its clock moves;
// the engine is deterministic, so the seconds since pass again here exactly as they did. (An
// archive's engines are as its clear stored them, every one at the clock of the clear.)
func currentWard(lib *scenario.Library, info persist.SessionInfo, docs map[string]json.RawMessage) (*physio.Ward, error) {
	w, err := storedWard(lib, info, docs)
	if err == nil {
		w.Advance(0)
	}
	return w, err
}

// RestoreEngine puts one patient's stored engine (its snapshot, doc) back on w, running its
// scenario from lib. The turn wakes a patient with it as every read of a stored shift does.
func RestoreEngine(w *physio.Ward, lib *scenario.Library, id string, doc []byte) (*physio.Engine, error) {
	var snap physio.Snapshot
	if err := json.Unmarshal(doc, &snap); err != nil {
		return nil, fmt.Errorf("sim state of %s is unreadable: %w", id, err)
	}
	sc, ok := lib.Get(snap.Scenario)
	if !ok {
		return nil, fmt.Errorf("%s runs scenario %q, which is not in the library (pass --scenarios DIR?)", id, snap.Scenario)
	}
	return w.Restore(snap, sc)
}

// ErrNoShift is what Resume and every read of the latest shift return when the store holds
// no shift yet.
var ErrNoShift = errors.New("no session in this database yet")

// latest is the newest shift of the person the store acts for.
func latest(store *persist.Store) (persist.SessionInfo, error) {
	info, ok, err := store.LatestSession()
	if err == nil && !ok {
		err = ErrNoShift
		if who := store.Person(); who.Trainee != "" {
			err = noShiftOf(who.Trainee)
		}
	}
	return info, err
}

// noShiftOf says that a trainee has no shift yet; it matches ErrNoShift.
type noShiftOf string

func (t noShiftOf) Error() string {
	return fmt.Sprintf("trainee %s has no shift in this database yet (--trainee names another)", string(t))
}

func (noShiftOf) Unwrap() error { return ErrNoShift }
