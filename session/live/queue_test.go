package live

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/agents/ollama"
	"github.com/ward-sim/ward/agents/ollamatest"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/scenario"
)

// A class shares one model server: 30 trainees, each playing a real shift on one bbolt store,
// reach a server with 4 parallel slots, where every call takes a quarter of a second (time scaled
// down from a model's second or so: only the ratios of call, stall limit and round matter, and
// the test runs in about 6 s instead of 26), through one queue. Every turn
// completes, no wait in the queue is taken for a stall, the server never holds more than its 4
// slots' worth of calls, and no trainee waits more than their share: a call waits at most one
// round of the class (each trainee ahead of it sends one call, 4 at a time), and no trainee's
// waiting adds up to more than a round over the class's mean. A round is counted in the longest
// call the server took, so a loaded machine that slows every call does not fail the test.
func TestClassSharesOneModelServerFairly(t *testing.T) {
	const (
		trainees = 30
		slots    = 4
		turns    = 3
		callTime = 250 * time.Millisecond
		margin   = time.Second // scheduling on a loaded CI machine, with -race
	)
	f := ollamatest.NewFake(t, ollamatest.Slow(ollamatest.Streamed(hardToBreathe[:30], hardToBreathe[30:60], hardToBreathe[60:]), callTime))
	f.Limit(slots)
	// Shorter than the waits in the queue: a wait counted as the model's silence would stall.
	limit := 4 * callTime
	server := &timedServer{Backend: ollama.New(f.Client(), ollamatest.TestModel, ollama.Options{StallTimeout: limit, FirstCall: limit})}
	q := llm.NewQueue(server, slots)
	class := startClass(t, q, trainees)

	calls := make([]traineeCalls, trainees)
	started := time.Now()
	var wg sync.WaitGroup
	for i, l := range class {
		wg.Go(func() {
			for range turns {
				calls[i].turn(l, "how is your breathing now?")
			}
		})
	}
	wg.Wait()
	wall := time.Since(started)

	var all []time.Duration
	var totals []time.Duration
	for i, c := range calls {
		if len(c.errors) > 0 {
			t.Errorf("trainee %d: %v", i, c.errors)
		}
		if replies := c.replies(class[i]); replies != turns {
			t.Errorf("trainee %d has %d of %d replies on screen", i, replies, turns)
		}
		all = append(all, c.waits...)
		totals = append(totals, sum(c.waits))
	}
	if len(all) < trainees-slots {
		t.Fatalf("the screens heard of %d waits; with %d trainees and %d slots at least %d calls wait", len(all), trainees, slots, trainees-slots)
	}
	if most := f.MostAtOnce(); most != slots {
		t.Errorf("the server held at most %d calls at once, want its %d slots full and never more", most, slots)
	}
	slowest := slices.Max(server.took)
	round := time.Duration((trainees+slots-1)/slots) * slowest
	slices.Sort(all)
	if worst := all[len(all)-1]; worst > round+margin {
		t.Errorf("a call waited %s in the queue, more than a round of the class (%s)", worst, round)
	}
	mean := sum(totals) / trainees
	if most := slices.Max(totals); most > mean+round+margin {
		t.Errorf("a trainee waited %s in all, more than a round (%s) over the mean %s", most, round, mean)
	}
	t.Logf("%d trainees × %d turns, %d slots, %s per call (slowest %s): %d calls in %s; wait per call p50 %s p99 %s max %s; per trainee mean %s max %s; most at once on the server %d",
		trainees, turns, slots, callTime, slowest.Round(time.Millisecond), len(f.Requests()), wall.Round(time.Millisecond),
		pct(all, 50), pct(all, 99), all[len(all)-1].Round(time.Millisecond), mean.Round(time.Millisecond),
		slices.Max(totals).Round(time.Millisecond), f.MostAtOnce())
}

const hardToBreathe = `{"reply":"It is hard to breathe.","entities_to_update":{},"derived_entities_to_update":{}}`

// startClass starts a shift for each trainee on one store and one scenario library, as ward
// serve does, each answered through q as that trainee, with a patient admitted. (A library per
// shift would parse every scenario once per trainee to pick their patient: most of the test's
// time under -race.)
func startClass(t *testing.T, q *llm.Queue, trainees int) []*Live {
	store, err := persist.Open(filepath.Join(t.TempDir(), "ward.db"))
	if err != nil {
		t.Fatal(err)
	}
	lib, err := scenario.Load()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	class := make([]*Live, trainees)
	for i := range class {
		s, err := session.Start(session.Config{Store: store, Scenarios: lib, Backend: q.For(fmt.Sprint("trainee", i))})
		if err != nil {
			t.Fatal(err)
		}
		class[i] = NewLive(s, nil)
		for _, u := range drain(class[i].Submit(t.Context(), "/admit patient_1")) {
			if u.Kind == UpdateError {
				t.Fatal(u.Text)
			}
		}
	}
	return class
}

// timedServer is the model server as the queue sees it: it keeps how long each call took there.
type timedServer struct {
	llm.Backend
	mu   sync.Mutex
	took []time.Duration
}

func (s *timedServer) Chat(ctx context.Context, req llm.Request, onDelta func(string)) (llm.Response, error) {
	started := time.Now()
	resp, err := s.Backend.Chat(ctx, req, onDelta)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.took = append(s.took, time.Since(started))
	return resp, err
}

// traineeCalls is what one trainee's screen heard: how long each model call waited in the queue
// (0 for one that found a slot free), and any error.
type traineeCalls struct {
	waits  []time.Duration
	errors []string
}

// turn plays one turn on l, timing the waits from the screen's updates.
func (c *traineeCalls) turn(l *Live, line string) {
	var since time.Time
	for u := range l.Submit(context.Background(), line) {
		switch {
		case u.Kind == UpdateWaiting && u.Ahead > 0 && since.IsZero():
			since = time.Now()
		case u.Kind == UpdateWaiting && u.Ahead == 0:
			c.waits = append(c.waits, time.Since(since))
			since = time.Time{}
		case u.Kind == UpdateError:
			c.errors = append(c.errors, u.Text)
		}
	}
}

// replies counts the Patient's replies on l's screen.
func (c *traineeCalls) replies(l *Live) int {
	n := 0
	for _, m := range l.Snapshot().Chat {
		if m.Agent == "Patient" && m.Content == "It is hard to breathe." {
			n++
		}
	}
	return n
}

func sum(ds []time.Duration) time.Duration {
	var total time.Duration
	for _, d := range ds {
		total += d
	}
	return total
}

// pct is the p-th percentile of sorted durations.
func pct(sorted []time.Duration, p int) time.Duration {
	return sorted[(len(sorted)-1)*p/100].Round(time.Millisecond)
}
