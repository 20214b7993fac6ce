// Package replay is what `ward replay` and `ward diff` need beside the session: a backend that
// answers a recorded run's calls from its trace, the checks that say whether a trace can be
// replayed at all, and the comparison of two runs' calls, section by section.
package replay

import (
	"bytes"
	"context"
	"errors"
	"sync"

	"github.com/ward-sim/ward/agents/llm"
)

// ErrDiverged is the answer to a request that is not the one the recording made at that point,
// and to every request after it: the replay has nothing true left to answer with.
var ErrDiverged = errors.New("replay: this request is not the one the trace recorded here")

// Backend answers each call of a recorded run with the reply the trace holds for it, streamed
// in the recorded chunks, once it has checked that the request is byte for byte the recorded
// one. It is named after the recording's backend, so a session wires it as it wired that one.
type Backend struct {
	header llm.TraceHeader

	mu       sync.Mutex
	calls    []llm.TraceRecord
	next     int
	diverged int // index of the first call that differed, -1 while none did
}

// NewBackend answers the calls of run.
func NewBackend(run llm.TraceRun) *Backend {
	return &Backend{header: run.Header, calls: run.Calls, diverged: -1}
}

func (b *Backend) Name() string  { return b.header.Backend }
func (b *Backend) Model() string { return b.header.Model }

// Chat answers req as the recording answered its call at this point, failure included.
func (b *Backend) Chat(_ context.Context, req llm.Request, onDelta func(string)) (llm.Response, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.diverged >= 0 {
		return llm.Response{}, ErrDiverged
	}
	i := b.next
	b.next++
	if i >= len(b.calls) || req.Agent != b.calls[i].Agent || !bytes.Equal(llm.RequestJSON(req), b.calls[i].Sent()) {
		b.diverged = i
		return llm.Response{}, ErrDiverged
	}
	rec := b.calls[i]
	if onDelta != nil {
		for _, chunk := range rec.Chunks {
			onDelta(chunk)
		}
	}
	return rec.Response(), rec.Err()
}

// Stopped reports whether a request differed from the recording.
func (b *Backend) Stopped() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.diverged >= 0
}

// Diverged is the index, among the run's calls, of the first request that differed; ok is false
// while none did. An index past the recorded calls is a call the recording never made.
func (b *Backend) Diverged() (index int, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.diverged, b.diverged >= 0
}
