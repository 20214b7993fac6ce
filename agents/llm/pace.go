package llm

import "time"

// Pace is what a backend has measured of its model's speed, so timeouts fit the machine — a GPU
// and a loaded laptop CPU differ a hundredfold. It is zero until the model has answered once.
type Pace struct {
	// PromptPerByte is evaluating the prompt, per byte of its text: bytes, not tokens, because
	// only the server knows how its model splits text. The slowest seen: a cached prompt looks
	// faster than a new one is.
	PromptPerByte time.Duration
	ReplyPerToken time.Duration // writing the reply
}

// Measured reports whether the model has answered at least once.
func (p Pace) Measured() bool { return p.ReplyPerToken > 0 }

// paceMargin is how much slower than measured a call may be before it counts as stuck: a loaded
// machine, a longer prompt than the estimate, another client on the server.
const paceMargin = 4

// Expect is how long a call of promptBytes and up to replyTokens may take at this pace, and at
// least floor. Before anything was measured it is firstCall, which must cover loading the model.
func (p Pace) Expect(promptBytes, replyTokens int, floor, firstCall time.Duration) time.Duration {
	if !p.Measured() {
		return max(floor, firstCall)
	}
	expected := time.Duration(promptBytes)*p.PromptPerByte + time.Duration(replyTokens)*p.ReplyPerToken
	return max(floor, paceMargin*expected)
}

// Paced is a backend that measures its model's speed (Ollama does; the offline backend has
// nothing to measure).
type Paced interface {
	Pace() Pace
}

// PaceOf is b's pace, zero for a backend that does not measure one.
func PaceOf(b Backend) Pace {
	if p, ok := b.(Paced); ok {
		return p.Pace()
	}
	return Pace{}
}

// PromptBytes is the size of a request's prompt text, which Expect and a pace are measured in.
func PromptBytes(req Request) int {
	n := 0
	for _, m := range req.Messages {
		n += len(m.Content)
	}
	return n
}
