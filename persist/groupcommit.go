package persist

import (
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
)

// groupCommit writes the sessions' updates that arrive while a commit is being written in the
// next one, one transaction and one pair of fsyncs for all of them: a class's trainees on one
// file then share the disk's time instead of each waiting in line for a commit of their own. A
// lone update commits at once, as bolt's Update would; each caller returns once its update is
// durable, or with its own error.
//
// An update whose group holds one that fails runs again, without it, in a new transaction: so an
// update changes nothing outside its transaction but through Tx.OnCommit.
type groupCommit struct {
	db      *bolt.DB
	mu      sync.Mutex
	queue   []*queuedUpdate
	writing bool // a writer goroutine is draining queue

	// the writer's time since the store opened, in nanoseconds: in transactions until their
	// commit (opening them, running the updates' functions), and in all (the commits' writing
	// and fsyncs included)
	inUpdates, inAll atomic.Int64
}

// writerTime is how long the writer has spent in transactions before their commit, and in all.
func (g *groupCommit) writerTime() (updates, all time.Duration) {
	return time.Duration(g.inUpdates.Load()), time.Duration(g.inAll.Load())
}

type queuedUpdate struct {
	fn   func(*bolt.Tx) error
	done chan error
}

// panicked is a panic in an update, carried back to the goroutine that asked for the update,
// where it is raised again: the writer is everyone's, and must not die of one update.
type panicked struct {
	value any
	stack []byte
}

func (p *panicked) Error() string { return fmt.Sprintf("panic in an update: %v", p.value) }

// update runs fn in a durable commit, with whatever other updates are waiting.
func (g *groupCommit) update(fn func(*bolt.Tx) error) error {
	u := &queuedUpdate{fn: fn, done: make(chan error, 1)}
	g.mu.Lock()
	g.queue = append(g.queue, u)
	if !g.writing {
		g.writing = true
		go g.write()
	}
	g.mu.Unlock()
	err := <-u.done
	if p, ok := err.(*panicked); ok {
		panic(fmt.Sprintf("%v\n\nthe update's own stack:\n%s", p.value, p.stack))
	}
	return err
}

// write commits the queue a group at a time until it is empty.
func (g *groupCommit) write() {
	for {
		g.mu.Lock()
		group := g.queue
		g.queue = nil
		if len(group) == 0 {
			g.writing = false
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
		g.commit(group)
	}
}

// commit writes group in one transaction. An update that fails is answered with its error, and
// the others are written again without it.
func (g *groupCommit) commit(group []*queuedUpdate) {
	for len(group) > 0 {
		failed := -1
		t0 := time.Now()
		err := g.db.Update(func(tx *bolt.Tx) error {
			defer func() { g.inUpdates.Add(int64(time.Since(t0))) }()
			for i, u := range group {
				if err := caught(u.fn, tx); err != nil {
					failed = i
					return err
				}
			}
			return nil
		})
		g.inAll.Add(int64(time.Since(t0)))
		if failed < 0 { // written, or the commit itself failed for all alike
			for _, u := range group {
				u.done <- err
			}
			return
		}
		group[failed].done <- err
		group = slices.Delete(slices.Clone(group), failed, failed+1)
	}
}

// caught runs fn, a panic in it returned as a *panicked.
func caught(fn func(*bolt.Tx) error, tx *bolt.Tx) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &panicked{value: v, stack: debug.Stack()}
		}
	}()
	return fn(tx)
}
