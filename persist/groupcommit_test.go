package persist

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// Updates that arrive while a commit is being written go together into the next one: one
// transaction for the lot, each of them durable when its caller returns.
func TestUpdatesWaitingForACommitShareTheNext(t *testing.T) {
	s, path := openTemp(t)
	const sessions = 12
	for i := range sessions {
		newSession(t, s, fmt.Sprintf("s%d", i))
	}
	hold, held := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the first update holds the writer until the others are queued
		defer wg.Done()
		updateAside(t, s, "s0", func(tx *Tx) error {
			close(held)
			<-hold
			return tx.Append("patient_1", msg("user", "first", 1))
		})
	}()
	<-held
	txOf := make([]int, sessions)
	for i := 1; i < sessions; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			updateAside(t, s, fmt.Sprintf("s%d", i), func(tx *Tx) error {
				txOf[i] = tx.b.Tx().ID()
				return tx.Append("patient_1", msg("user", "queued", 1))
			})
		}()
	}
	waitQueued(t, s.commits, sessions-1)
	close(hold)
	wg.Wait()
	for i := 2; i < sessions; i++ {
		if txOf[i] != txOf[1] {
			t.Fatalf("the queued updates ran in transactions %v; want one", txOf[1:])
		}
	}
	s.Close()
	reopened, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer reopened.Close()
	for i := range sessions {
		if n := lenOf(t, reopened, fmt.Sprintf("s%d", i), "patient_1"); n != 1 {
			t.Errorf("s%d holds %d messages after reopening; want 1", i, n)
		}
	}
}

// An update that fails, or panics, fails alone: the others of its group are written, run again
// without it, and what they leave for the commit happens once.
func TestAFailingUpdateFailsAloneInItsGroup(t *testing.T) {
	s, _ := openTemp(t)
	for _, id := range []string{"a", "bad", "panics", "b"} {
		newSession(t, s, id)
	}
	hold, held := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		updateAside(t, s, "a", func(*Tx) error { close(held); <-hold; return nil })
	}()
	<-held
	var mu sync.Mutex
	runs, commits := 0, 0
	errs := make(chan error, 2)
	wg.Add(3)
	go func() { // b first in the group, so that it has run when the others fail
		defer wg.Done()
		updateAside(t, s, "b", func(tx *Tx) error {
			mu.Lock()
			runs++
			mu.Unlock()
			tx.OnCommit(func() { mu.Lock(); commits++; mu.Unlock() })
			return tx.Append("patient_1", msg("user", "kept", 1))
		})
	}()
	waitQueued(t, s.commits, 1)
	go func() {
		defer wg.Done()
		errs <- s.Update("bad", func(tx *Tx) error {
			if err := tx.Append("patient_1", msg("user", "never kept", 1)); err != nil {
				return err
			}
			return errors.New("planted failure")
		})
	}()
	waitQueued(t, s.commits, 2)
	go func() {
		defer wg.Done()
		defer func() { errs <- fmt.Errorf("recovered: %v", recover()) }()
		_ = s.Update("panics", func(*Tx) error { panic("planted panic") })
	}()
	waitQueued(t, s.commits, 3)
	close(hold)
	wg.Wait()
	close(errs)
	var said []string
	for err := range errs {
		said = append(said, err.Error())
	}
	if len(said) != 2 || !containsPrefix(said, "planted failure") || !containsPrefix(said, "recovered: planted panic") {
		t.Errorf("the failing updates said %q; want their own failure and panic", said)
	}
	if lenOf(t, s, "b", "patient_1") != 1 || lenOf(t, s, "bad", "patient_1") != 0 {
		t.Error("b's message was lost, or the failed update's was kept")
	}
	if runs != 3 || commits != 1 {
		t.Errorf("b ran %d times and committed %d; want it run again after each failure (3) and committed once", runs, commits)
	}
}

// updateAside is mustUpdate for a goroutine of the test's own: a failure is an error, not a stop.
func updateAside(t *testing.T, s *Store, id string, fn func(*Tx) error) {
	t.Helper()
	if err := s.Update(id, fn); err != nil {
		t.Error(err)
	}
}

// waitQueued waits until n updates wait behind the one being written.
func waitQueued(t *testing.T, g *groupCommit, n int) {
	t.Helper()
	for range 5000 {
		g.mu.Lock()
		queued := len(g.queue)
		g.mu.Unlock()
		if queued == n {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("fewer than %d updates queued", n)
}

func lenOf(t *testing.T, s *Store, id, conv string) (n int) {
	t.Helper()
	if err := s.View(id, func(tx *Tx) error { n = tx.Len(conv); return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

func containsPrefix(said []string, prefix string) bool {
	for _, s := range said {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}
