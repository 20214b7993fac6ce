package llm

import (
	"context"
	"sync"
	"time"
)

// Call makes one call through b and describes it for the trace, streamed chunks included, its
// time at the model apart from its wait in a class's queue. A nil onDelta asks for no streaming,
// as it does of b.
func Call(ctx context.Context, b Backend, req Request, onDelta func(string)) (Response, TraceRecord, error) {
	var chunks []string
	deltas := onDelta
	if onDelta != nil {
		deltas = func(s string) {
			chunks = append(chunks, s)
			onDelta(s)
		}
	}
	var queued time.Duration
	t0 := time.Now()
	resp, err := b.Chat(noteWait(ctx, &queued), req, deltas)
	rec := NewTraceRecord(b, req, resp, err, time.Since(t0)-queued)
	rec.Chunks, rec.QueuedMS = chunks, float64(queued.Microseconds())/1000
	return resp, rec, err
}

// Observer hears of the calls made through the backends that report to it (Traced): before each
// is sent, and with its record after. Its owner says who hears (Hear), turn by turn; until then,
// and after Hear(nil, nil), no one does. A nil *Observer hears nothing. It is how the session
// counts and shows the calls it does not build itself, the analyzer's and the router's.
type Observer struct {
	mu       sync.Mutex
	starting func()
	finished func(TraceRecord)
}

// Hear sends what the observer hears to starting, before each call, and finished, with its
// record, after; nil for either hears nothing of it.
func (o *Observer) Hear(starting func(), finished func(TraceRecord)) {
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.starting, o.finished = starting, finished
}

func (o *Observer) listeners() (func(), func(TraceRecord)) {
	if o == nil {
		return nil, nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.starting, o.finished
}

// Traced is b with every call written to w (nil: to no file) and reported to o (nil: to no one),
// for callers that build their own requests and add nothing to the record (the analyzer, the
// router).
func Traced(b Backend, w *TraceWriter, o *Observer) Backend { return tracedBackend{b, w, o} }

type tracedBackend struct {
	Backend
	w *TraceWriter
	o *Observer
}

// Pace is the wrapped backend's, so the timeouts of traced calls follow the model's speed too.
func (t tracedBackend) Pace() Pace { return PaceOf(t.Backend) }

func (t tracedBackend) Chat(ctx context.Context, req Request, onDelta func(string)) (Response, error) {
	starting, finished := t.o.listeners()
	if starting != nil {
		starting()
	}
	resp, rec, err := Call(ctx, t.Backend, req, onDelta)
	_ = t.w.Write(rec) // a trace that cannot be written must not change the answer
	if finished != nil {
		finished(rec)
	}
	return resp, err
}
