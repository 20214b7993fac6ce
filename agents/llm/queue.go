package llm

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Queue shares one backend among a class: one model server has a few parallel slots, and thirty
// trainees must take turns at them fairly. A trainee has at most one call in flight (their next
// call waits behind it), and when a slot frees, the trainees waiting are served in turn, so one
// with many calls queued cannot keep the others waiting.
type Queue struct {
	b     Backend
	slots int

	mu       sync.Mutex
	inFlight int
	line     []*trainee          // trainees with calls waiting, in the order they are served
	trainees map[string]*trainee // trainees with a call waiting or in flight
}

// trainee is one trainee's place in the queue.
type trainee struct {
	name    string
	busy    bool      // a call of theirs is in flight
	waiting []*waiter // their calls waiting, oldest first
}

// waiter is one call waiting its turn, on its caller's goroutine.
type waiter struct {
	ready chan struct{} // closed when the call leaves the queue
	moved chan struct{} // told (without blocking) when ahead changed
	ahead int           // guarded by Queue.mu
}

// NewQueue shares b among trainees: at most slots calls in flight in all, at most one per
// trainee, and the trainees waiting served in turn (round robin), not first come first served.
func NewQueue(b Backend, slots int) *Queue {
	return &Queue{b: b, slots: max(slots, 1), trainees: map[string]*trainee{}}
}

// For is b as one trainee uses it; its Chat waits its turn in the queue. A backend that answers
// in the process still does behind the queue: what a call waits for there is other trainees'
// calls of microseconds, not a model, so a turn need not make its line durable first.
func (q *Queue) For(trainee string) Backend {
	if AnswersInProcess(q.b) {
		return queuedInProcess{queued{q, trainee}}
	}
	return queued{q, trainee}
}

type queued struct {
	q    *Queue
	name string
}

type queuedInProcess struct{ queued }

func (queuedInProcess) InProcess() {}

func (c queued) Name() string  { return c.q.b.Name() }
func (c queued) Model() string { return c.q.b.Model() }

// Pace is the shared backend's: waiting in the queue does not change how fast the model is.
func (c queued) Pace() Pace { return PaceOf(c.q.b) }

// Chat waits for the trainee's turn, then makes the call. The time limits of ctx (WithTimeout)
// stand still while it waits, so a busy server is not taken for a stuck one. A ctx cancelled
// while waiting leaves the queue at once.
func (c queued) Chat(ctx context.Context, req Request, onDelta func(string)) (Response, error) {
	if err := c.q.wait(ctx, c.name); err != nil {
		return Response{}, err
	}
	defer c.q.release(c.name)
	return c.q.b.Chat(ctx, req, onDelta)
}

type waitingKey struct{}

// WithWaiting makes the queue tell report how many calls are ahead while a call made with ctx
// waits (0 when it leaves the queue).
//
// Ahead counts the calls that go to the model before this one: those in line before it, and the
// one in flight whose slot it will take, so a call waiting is never told 0. report runs on the
// caller's goroutine, never inside the queue's lock, and is not called for a call that finds a
// slot free.
func WithWaiting(ctx context.Context, report func(ahead int)) context.Context {
	return context.WithValue(ctx, waitingKey{}, report)
}

type waitNoteKey struct{}

// noteWait makes the queue add to *waited how long a call made with ctx waited in it, so the
// trace can tell the model's time from the class's.
func noteWait(ctx context.Context, waited *time.Duration) context.Context {
	return context.WithValue(ctx, waitNoteKey{}, waited)
}

// wait returns once the call may go, or with ctx's error, having left the queue, when ctx ends
// first.
func (q *Queue) wait(ctx context.Context, name string) error {
	resume := pauseClocks(ctx)
	defer resume()
	if waited, ok := ctx.Value(waitNoteKey{}).(*time.Duration); ok {
		defer func(entered time.Time) { *waited += time.Since(entered) }(time.Now())
	}
	report, _ := ctx.Value(waitingKey{}).(func(int))
	w := q.enter(name)
	told := 0
	for {
		select {
		case <-w.ready:
			if told > 0 && report != nil {
				report(0)
			}
			return nil
		case <-ctx.Done():
			q.leave(name, w)
			return context.Cause(ctx)
		case <-w.moved:
			q.mu.Lock()
			ahead := w.ahead
			q.mu.Unlock()
			if ahead != told && report != nil {
				report(ahead)
			}
			told = ahead
		}
	}
}

// enter puts a call of name's in the queue, and lets it go at once when it may.
func (q *Queue) enter(name string) *waiter {
	q.mu.Lock()
	defer q.mu.Unlock()
	t := q.trainees[name]
	if t == nil {
		t = &trainee{name: name}
		q.trainees[name] = t
	}
	w := &waiter{ready: make(chan struct{}), moved: make(chan struct{}, 1)}
	if len(t.waiting) == 0 {
		q.line = append(q.line, t)
	}
	t.waiting = append(t.waiting, w)
	q.admit()
	return w
}

// leave takes a cancelled call out of the queue; one that was let go as ctx ended gives its slot
// back instead.
func (q *Queue) leave(name string, w *waiter) {
	q.mu.Lock()
	defer q.mu.Unlock()
	t := q.trainees[name]
	select {
	case <-w.ready:
		q.end(t)
		return
	default:
	}
	t.waiting = slices.DeleteFunc(t.waiting, func(x *waiter) bool { return x == w })
	if len(t.waiting) == 0 {
		q.line = slices.DeleteFunc(q.line, func(x *trainee) bool { return x == t })
	}
	q.forget(t)
	q.admit()
}

// release ends name's call in flight.
func (q *Queue) release(name string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.end(q.trainees[name])
}

// end gives t's slot to the next trainee in line; t goes to the back of the line with their next
// call. The caller holds mu.
func (q *Queue) end(t *trainee) {
	t.busy = false
	q.inFlight--
	if len(t.waiting) > 0 {
		q.toBack(t)
	}
	q.forget(t)
	q.admit()
}

// admit lets calls go while slots are free: each time the first trainee in line who has no call
// in flight, who then goes to the back of the line. The caller holds mu.
func (q *Queue) admit() {
	for q.inFlight < q.slots {
		i := slices.IndexFunc(q.line, func(t *trainee) bool { return !t.busy })
		if i < 0 {
			break
		}
		t := q.line[i]
		w := t.waiting[0]
		t.waiting = t.waiting[1:]
		t.busy = true
		q.inFlight++
		close(w.ready)
		q.line = slices.Delete(q.line, i, i+1)
		if len(t.waiting) > 0 {
			q.line = append(q.line, t)
		}
	}
	q.tell()
}

// tell gives every call waiting its count of calls ahead, and wakes those whose count changed.
// The caller holds mu.
func (q *Queue) tell() {
	for i, t := range q.line {
		for k, w := range t.waiting {
			if ahead := q.ahead(i, k); ahead != w.ahead {
				w.ahead = ahead
				select {
				case w.moved <- struct{}{}:
				default: // already woken; it reads the newest count
				}
			}
		}
	}
}

// ahead counts the calls that go before the k-th waiting call of the i-th trainee in line: in
// each round every trainee in line sends one call, those before it in line first; and one call in
// flight must end to free the slot it will take.
func (q *Queue) ahead(i, k int) int {
	n := 1 + k
	for j, t := range q.line {
		if j == i {
			continue
		}
		rounds := k
		if j < i {
			rounds++
		}
		n += min(len(t.waiting), rounds)
	}
	return n
}

// toBack moves t to the end of the line. The caller holds mu.
func (q *Queue) toBack(t *trainee) {
	q.line = slices.DeleteFunc(q.line, func(x *trainee) bool { return x == t })
	q.line = append(q.line, t)
}

// forget drops a trainee with nothing waiting or in flight, so a class that comes and goes does
// not grow the map. The caller holds mu.
func (q *Queue) forget(t *trainee) {
	if !t.busy && len(t.waiting) == 0 {
		delete(q.trainees, t.name)
	}
}
