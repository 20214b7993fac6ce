package llm

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// gate is a backend whose calls each wait until the test lets them finish, so a test decides
// when a slot frees. Each call's Request.Agent names who made it.
type gate struct {
	mu       sync.Mutex
	started  []string       // who, in the order the calls reached the backend
	running  map[string]int // calls in flight per caller
	most     int            // the most calls in flight at once
	mostEach int            // the most calls in flight at once for one caller
	finish   chan struct{}  // each receive lets one call finish
	arrived  chan string
}

func newGate() *gate {
	return &gate{running: map[string]int{}, finish: make(chan struct{}), arrived: make(chan string, 100)}
}

func (g *gate) Name() string  { return "gate" }
func (g *gate) Model() string { return "" }

func (g *gate) Chat(ctx context.Context, req Request, _ func(string)) (Response, error) {
	g.mu.Lock()
	g.started = append(g.started, req.Agent)
	g.running[req.Agent]++
	total := 0
	for _, n := range g.running {
		total += n
	}
	g.most, g.mostEach = max(g.most, total), max(g.mostEach, g.running[req.Agent])
	g.mu.Unlock()
	g.arrived <- req.Agent
	defer func() {
		g.mu.Lock()
		g.running[req.Agent]--
		g.mu.Unlock()
	}()
	select {
	case <-g.finish:
		return Response{DoneReason: "stop"}, nil
	case <-ctx.Done():
		return Response{}, context.Cause(ctx)
	}
}

// call makes one call for who through q on its own goroutine; the result arrives on the channel.
func call(ctx context.Context, q *Queue, who string) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := q.For(who).Chat(ctx, Request{Agent: who}, nil)
		done <- err
	}()
	return done
}

// queued waits until q holds n calls waiting.
func waitQueued(t *testing.T, q *Queue, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		q.mu.Lock()
		held := 0
		for _, tr := range q.trainees {
			held += len(tr.waiting)
		}
		q.mu.Unlock()
		if held == n {
			return
		}
	}
	t.Fatalf("the queue never held %d calls", n)
}

func TestQueueServesTraineesInTurn(t *testing.T) {
	g := newGate()
	q := NewQueue(g, 1)
	var results []<-chan error
	results = append(results, call(t.Context(), q, "amy"))
	<-g.arrived
	for i, who := range []string{"amy", "amy", "amy", "ben", "cat"} {
		results = append(results, call(t.Context(), q, who))
		waitQueued(t, q, i+1)
	}
	for range 5 {
		g.finish <- struct{}{}
		<-g.arrived
	}
	g.finish <- struct{}{}
	for _, r := range results {
		if err := <-r; err != nil {
			t.Fatal(err)
		}
	}
	// First come, first served would be amy ×4, ben, cat: amy's queued calls would starve them.
	want := []string{"amy", "ben", "cat", "amy", "amy", "amy"}
	if !slices.Equal(g.started, want) {
		t.Errorf("served %v, want %v", g.started, want)
	}
}

func TestQueueHoldsSlotsAndOneCallPerTrainee(t *testing.T) {
	g := newGate()
	q := NewQueue(g, 3)
	var results []<-chan error
	for i := range 24 {
		results = append(results, call(t.Context(), q, fmt.Sprint("trainee", i%6)))
	}
	go func() {
		for range 24 {
			g.finish <- struct{}{}
		}
	}()
	for _, r := range results {
		if err := <-r; err != nil {
			t.Fatal(err)
		}
	}
	if g.most > 3 || g.mostEach > 1 {
		t.Errorf("at most %d calls at once, %d of one trainee; want ≤ 3 and 1", g.most, g.mostEach)
	}
	if g.most < 3 {
		t.Errorf("at most %d calls at once with 24 waiting: slots were left idle", g.most)
	}
	assertEmpty(t, q)
}

// assertEmpty checks that nothing is left in q: no slot held, no trainee remembered.
func assertEmpty(t *testing.T, q *Queue) {
	t.Helper()
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.inFlight != 0 || len(q.line) != 0 || len(q.trainees) != 0 {
		t.Errorf("queue left with %d in flight, %d in line, %d trainees", q.inFlight, len(q.line), len(q.trainees))
	}
}

func TestQueueCancelledCallLeavesAtOnce(t *testing.T) {
	g := newGate()
	q := NewQueue(g, 1)
	first := call(t.Context(), q, "amy")
	<-g.arrived
	ctx, cancel := context.WithCancel(t.Context())
	waiting := call(ctx, q, "ben")
	behind := call(t.Context(), q, "cat")
	waitQueued(t, q, 2)
	cancel()
	if err := <-waiting; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call returned %v, want context.Canceled", err)
	}
	g.finish <- struct{}{}
	if who := <-g.arrived; who != "cat" {
		t.Errorf("after the cancel, %s was served, want cat", who)
	}
	g.finish <- struct{}{}
	for _, r := range []<-chan error{first, behind} {
		if err := <-r; err != nil {
			t.Fatal(err)
		}
	}
	assertEmpty(t, q)
}

func TestQueueCancelledCallInFlightGivesItsSlotBack(t *testing.T) {
	g := newGate()
	q := NewQueue(g, 1)
	ctx, cancel := context.WithCancel(t.Context())
	first := call(ctx, q, "amy")
	<-g.arrived
	cancel()
	if err := <-first; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call returned %v", err)
	}
	next := call(t.Context(), q, "amy")
	<-g.arrived
	g.finish <- struct{}{}
	if err := <-next; err != nil {
		t.Fatal(err)
	}
	assertEmpty(t, q)
}

func TestQueueTellsHowManyAreAhead(t *testing.T) {
	g := newGate()
	q := NewQueue(g, 1)
	first := call(t.Context(), q, "amy")
	<-g.arrived
	var mu sync.Mutex
	var told []int
	ctx := WithWaiting(t.Context(), func(ahead int) {
		mu.Lock()
		defer mu.Unlock()
		told = append(told, ahead)
	})
	// toldLast waits until dan was last told ahead.
	toldLast := func(ahead int) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			mu.Lock()
			n := len(told)
			last := n > 0 && told[n-1] == ahead
			mu.Unlock()
			if last {
				return
			}
		}
		t.Fatalf("dan was never told %d ahead", ahead)
	}
	results := []<-chan error{first, call(t.Context(), q, "ben"), call(t.Context(), q, "cat")}
	waitQueued(t, q, 2)
	results = append(results, call(ctx, q, "dan"))
	// ben and cat are ahead in line, and amy's call holds the one slot.
	toldLast(3)
	for _, ahead := range []int{2, 1, 0} {
		g.finish <- struct{}{}
		<-g.arrived
		toldLast(ahead)
	}
	g.finish <- struct{}{}
	for _, r := range results {
		if err := <-r; err != nil {
			t.Fatal(err)
		}
	}
	if want := []int{3, 2, 1, 0}; !slices.Equal(told, want) {
		t.Errorf("dan was told %v, want %v", told, want)
	}
}

func TestQueueDoesNotReportACallThatFindsASlot(t *testing.T) {
	g := newGate()
	q := NewQueue(g, 2)
	var reported atomic.Bool
	ctx := WithWaiting(t.Context(), func(int) { reported.Store(true) })
	done := call(ctx, q, "amy")
	<-g.arrived
	g.finish <- struct{}{}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if reported.Load() {
		t.Error("a call that never waited was reported as waiting")
	}
}

func TestWithTimeoutStandsStillInTheQueue(t *testing.T) {
	g := newGate()
	q := NewQueue(g, 1)
	first := call(t.Context(), q, "amy")
	<-g.arrived
	ctx, cancel := WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	timed := call(ctx, q, "ben")
	waitQueued(t, q, 1)
	time.Sleep(500 * time.Millisecond) // over twice the limit, waiting in the queue
	g.finish <- struct{}{}
	<-g.arrived
	if err := ctx.Err(); err != nil {
		t.Fatalf("the limit ran while the call waited in the queue: %v", context.Cause(ctx))
	}
	// Once the call left the queue, the limit runs: the call never finishes, so it ends there.
	if err := <-timed; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the call over its limit returned %v, want context.DeadlineExceeded", err)
	}
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	assertEmpty(t, q)
}

func TestWithTimeoutRunsOutWithoutAQueue(t *testing.T) {
	ctx, cancel := WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err := newGate().Chat(ctx, Request{Agent: "amy"}, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want context.DeadlineExceeded", err)
	}
}

// counting is a backend that takes a little while and counts what it holds at once, overall and
// per trainee (Request.Agent).
type counting struct {
	mu       sync.Mutex
	running  map[string]int
	now      int
	most     int
	mostEach int
}

func (c *counting) Name() string  { return "counting" }
func (c *counting) Model() string { return "" }

func (c *counting) Chat(ctx context.Context, req Request, _ func(string)) (Response, error) {
	c.mu.Lock()
	c.now++
	c.running[req.Agent]++
	c.most, c.mostEach = max(c.most, c.now), max(c.mostEach, c.running[req.Agent])
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.now--
		c.running[req.Agent]--
		c.mu.Unlock()
	}()
	select {
	case <-time.After(time.Duration(len(req.Agent)%3+1) * time.Millisecond):
		return Response{DoneReason: "stop"}, nil
	case <-ctx.Done():
		return Response{}, context.Cause(ctx)
	}
}

// Calls cancelled at any moment, waiting or in flight, leave nothing behind: every other call
// completes, the limits hold throughout, and no slot or goroutine is left over.
func TestQueueUnderCancellationsLeavesNothingBehind(t *testing.T) {
	before := runtime.NumGoroutine()
	c := &counting{running: map[string]int{}}
	q := NewQueue(c, 3)
	var wg sync.WaitGroup
	var done, cancelled atomic.Int64
	for i := range 12 {
		who := fmt.Sprint("trainee-", i)
		wg.Go(func() {
			for k := range 15 {
				ctx, cancel := context.WithCancel(context.Background())
				if (i+k)%4 == 0 { // a quarter are cancelled, some while waiting, some at the model
					time.AfterFunc(time.Duration(k%3)*time.Millisecond, cancel)
				}
				_, err := q.For(who).Chat(ctx, Request{Agent: who}, nil)
				cancel()
				switch {
				case err == nil:
					done.Add(1)
				case errors.Is(err, context.Canceled):
					cancelled.Add(1)
				default:
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if done.Load()+cancelled.Load() != 12*15 || done.Load() < 12*15*3/4 || cancelled.Load() == 0 {
		t.Errorf("%d calls answered and %d cancelled of %d, a quarter of them meant to be cancelled", done.Load(), cancelled.Load(), 12*15)
	}
	if c.most > 3 || c.mostEach > 1 {
		t.Errorf("at most %d calls at once, %d of one trainee; want ≤ 3 and 1", c.most, c.mostEach)
	}
	assertEmpty(t, q)
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines left over", runtime.NumGoroutine()-before)
		}
	}
}

// The trace tells the model's time from the class's: a call's wait in the queue is its own figure.
func TestCallTracesTheWaitInTheQueueApart(t *testing.T) {
	g := newGate()
	q := NewQueue(g, 1)
	first := call(t.Context(), q, "amy")
	<-g.arrived
	traced := make(chan TraceRecord, 1)
	started := time.Now()
	go func() {
		_, rec, _ := Call(t.Context(), q.For("ben"), Request{Agent: "ben"}, nil)
		traced <- rec
	}()
	waitQueued(t, q, 1)
	const held = 300 * time.Millisecond
	time.Sleep(held)
	g.finish <- struct{}{}
	<-g.arrived
	g.finish <- struct{}{}
	rec := <-traced
	total := float64(time.Since(started).Microseconds()) / 1000
	if rec.QueuedMS < float64(held.Milliseconds()) || rec.ElapsedMS+rec.QueuedMS > total {
		t.Errorf("queued %.1f ms, at the model %.1f ms, of %.1f ms in all; want at least %s queued, and the two within the whole",
			rec.QueuedMS, rec.ElapsedMS, total, held)
	}
	if err := <-first; err != nil {
		t.Fatal(err)
	}
}

// BenchmarkQueueUncontended is what the queue adds to a call that finds a slot free.
func BenchmarkQueueUncontended(b *testing.B) {
	q := NewQueue(instant{}, 4)
	backend := q.For("amy")
	ctx := WithWaiting(context.Background(), func(int) {})
	req := Request{Agent: "amy"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := backend.Chat(ctx, req, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// instant answers at once, so the benchmark measures the queue alone.
type instant struct{}

func (instant) Name() string  { return "instant" }
func (instant) Model() string { return "" }
func (instant) Chat(context.Context, Request, func(string)) (Response, error) {
	return Response{DoneReason: "stop"}, nil
}

// inProcess is a backend that answers inside the process, as the offline one does.
type inProcess struct{ *gate }

func (inProcess) InProcess() {}

// A trainee's place in the queue answers in the process when the shared backend does, so a
// class on the offline backend makes one commit a turn, as a trainee alone does.
func TestQueueAnswersInProcessAsItsBackend(t *testing.T) {
	if !AnswersInProcess(NewQueue(inProcess{newGate()}, 2).For("t01")) {
		t.Error("a queue of an in-process backend does not answer in the process")
	}
	if AnswersInProcess(NewQueue(newGate(), 2).For("t01")) {
		t.Error("a queue of a model server answers in the process")
	}
}
