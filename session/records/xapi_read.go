package records

import (
	"fmt"
	"github.com/ward-sim/ward/session/aar"
	"sort"

	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session/scenario"
)

// ReadXAPI reads every shift the store can open as xAPI statements named as names say (its base
// as XAPIBase returns it), shift by shift in the order they began; lib resolves their scenarios.
// A shift with statements that names no trainee, or only the login it was played under, is
// refused (ErrNoTrainee).
func ReadXAPI(store *persist.Store, lib *scenario.Library, names XAPINames) ([]Statement, error) {
	sessions, err := store.Sessions()
	if err != nil {
		return nil, err
	}
	out := []Statement{}
	for _, info := range sessions {
		s, err := readXAPIShift(store, lib, info)
		if err != nil {
			return out, fmt.Errorf("shift %s: %w", info.ID, err)
		}
		statements := shiftStatements(names, s)
		switch {
		case len(statements) == 0:
		case info.Trainee == "":
			return out, fmt.Errorf("shift %s %w", info.ID, ErrNoTrainee)
		case info.TraineeIsLogin:
			return out, fmt.Errorf("shift %s was played without --trainee, under the login %q, which %w", info.ID, info.Trainee, ErrNoTrainee)
		}
		out = append(out, statements...)
	}
	return out, nil
}

// readXAPIShift reads a shift's reviews as it ended and, when it has patients, what was said in it.
func readXAPIShift(store *persist.Store, lib *scenario.Library, info persist.SessionInfo) (xapiShift, error) {
	s := xapiShift{info: info}
	w, err := endedWard(store, lib, info)
	if err != nil {
		return s, err
	}
	for _, e := range w.Engines() {
		s.reports = append(s.reports, aar.Of(e))
	}
	if len(s.reports) > 0 {
		s.chat, err = shiftChat(store, info.ID)
	}
	return s, err
}

// shiftChat is every message of a shift, live and archived, oldest first: a review's patients
// may be the latest archive's, and any message ties the shared ward clock to the wall's.
func shiftChat(store *persist.Store, sessionID string) ([]memory.Message, error) {
	var all []memory.Message
	err := store.View(sessionID, func(tx *persist.Tx) error {
		reg, err := tx.Registry()
		if err != nil {
			return err
		}
		for _, id := range append([]string{""}, reg.IDs()...) {
			msgs, err := tx.History(id)
			if err != nil {
				return err
			}
			all = append(all, msgs...)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sums, err := store.ArchiveSummaries(sessionID)
	if err != nil {
		return nil, err
	}
	for _, sum := range sums {
		a, err := store.ReadArchive(sessionID, sum.ID)
		if err != nil {
			return nil, err
		}
		all = append(all, a.SessionHistory...)
		for _, msgs := range a.Histories {
			all = append(all, msgs...)
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].At.Before(all[j].At) })
	return all, nil
}
