package persist

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A reader copies the file while a writer holds it and commits as fast as it can: every
// snapshot is consistent (both histories, written in one transaction each time, have the same
// length) and at least as new as the last commit finished before the snapshot was asked for.
func TestSnapshotDuringAStreamOfCommits(t *testing.T) {
	s, path := openTemp(t)
	newSession(t, s, "s1")
	s.db.NoSync = true // commits as fast as the page cache takes them: many land during each copy
	var committed atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 1; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			err := s.Update("s1", func(tx *Tx) error {
				if err := tx.Append("patient_a", msg("user", strings.Repeat("a", 100+i%3000), i)); err != nil {
					return err
				}
				return tx.Append("patient_b", msg("user", strings.Repeat("b", 100+i%2000), i))
			})
			if err != nil {
				t.Error(err)
				return
			}
			committed.Store(int64(i))
			switch {
			case i%50 == 0:
				// Now and then the trainee reads and types: a pause longer than a copy of the
				// file takes on a loaded machine, without which no copy could ever be whole.
				time.Sleep(30 * time.Millisecond)
			case i%5 == 0:
				// A turn commits a few times in a row, then waits for the model.
				time.Sleep(2 * time.Millisecond)
			}
		}
	}()
	defer func() { close(stop); wg.Wait() }()

	const wantCommits = 1000
	rounds := 0
	// At least wantCommits commits and 20 snapshots, whichever takes longer: on a loaded machine
	// a copy is slow and the writer reaches its count in a few rounds (it commits on throughout).
	for ; (committed.Load() < wantCommits || rounds < 20) && rounds < 10000; rounds++ {
		round := rounds
		floor := committed.Load()
		snap, err := OpenSnapshot(path)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		var a, b int
		err = snap.View("s1", func(tx *Tx) error {
			a, b = tx.Len("patient_a"), tx.Len("patient_b")
			return nil
		})
		snap.Close()
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if a != b {
			t.Fatalf("round %d: torn snapshot, %d messages in one history and %d in the other", round, a, b)
		}
		if int64(a) < floor {
			t.Fatalf("round %d: snapshot holds %d commits, but %d had finished before it was asked for", round, a, floor)
		}
	}
	if committed.Load() < wantCommits || rounds < 20 {
		t.Fatalf("%d commits during %d snapshots: the test did not read during a stream of commits", committed.Load(), rounds)
	}
}

func TestSnapshotOfAMissingFileCreatesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing")
	path := filepath.Join(dir, "ward.db")
	_, err := OpenSnapshot(path)
	if !errors.Is(err, ErrNoDatabase) || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v, want ErrNoDatabase naming %s", err, path)
	}
	if _, statErr := os.Stat(dir); !errors.Is(statErr, os.ErrNotExist) {
		t.Fatalf("the directory was created: %v", statErr)
	}
}

func TestSnapshotRefusesForeignFiles(t *testing.T) {
	for name, data := range map[string][]byte{
		"text":  []byte("hello, not a database\n"),
		"empty": nil,
	} {
		path := filepath.Join(t.TempDir(), "x.db")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := OpenSnapshot(path); !errors.Is(err, ErrNotWard) {
			t.Errorf("%s: err = %v, want ErrNotWard", name, err)
		}
	}
}

// A snapshot is read-only: what it reads cannot be written back into the live file.
func TestSnapshotIsReadOnly(t *testing.T) {
	s, path := openTemp(t)
	newSession(t, s, "s1")
	snap, err := OpenSnapshot(path)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	if err := snap.Update("s1", func(tx *Tx) error { return tx.Append("", msg("user", "x", 1)) }); err == nil {
		t.Fatal("a write through a snapshot succeeded")
	}
}

// BenchmarkOpenSnapshot opens a snapshot of the benchmark shift (100 patients × 1,000 messages)
// while a writer holds it, and reads its latest session: what `ward dump` pays before it reads.
func BenchmarkOpenSnapshot(b *testing.B) {
	s := benchStore(b)
	path := s.db.Path()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		snap, err := OpenSnapshot(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := snap.LatestSession(); err != nil {
			b.Fatal(err)
		}
		snap.Close()
	}
	info, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(info.Size())/(1<<20), "MiB")
}
