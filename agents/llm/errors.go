package llm

import (
	"errors"
	"fmt"
	"time"
)

// ErrEmpty matches every *EmptyError: the model gave no usable answer. The caller retries once
// with a smaller prompt, then shows the error's message.
var ErrEmpty = errors.New("the model returned nothing — retry with ctrl+r")

// EmptyError is an answer with no text and no tool calls: an empty reply, a "length" stop before
// any text, or a stream that stalled. Reason says which, for the trace; the user sees only
// ErrEmpty's message.
type EmptyError struct {
	Reason string
}

func (e *EmptyError) Error() string        { return ErrEmpty.Error() }
func (e *EmptyError) Is(target error) bool { return target == ErrEmpty }

// UnreachableError means nothing answered at the model server's address.
type UnreachableError struct {
	URL string // scheme://host:port of the server that was dialled
	Err error
}

func (e *UnreachableError) Error() string {
	return e.Problem() + " — start it with `ollama serve`, or run with --backend offline"
}

// Problem is what went wrong without what to do: for a caller that says how to fix it itself.
func (e *UnreachableError) Problem() string { return "Ollama is not reachable at " + e.URL }

func (e *UnreachableError) Unwrap() error { return e.Err }

// ModelNotFoundError means the server answered but does not have the model.
type ModelNotFoundError struct {
	Model string
}

func (e *ModelNotFoundError) Error() string {
	return "model " + e.Model + " not found — ollama pull " + e.Model
}

// StallError is a model that sent nothing for the stall timeout. Nothing arrived, so there is
// nothing to keep; it is not retried on its own, since a second wait would be as long.
type StallError struct {
	After time.Duration
}

func (e *StallError) Error() string {
	return fmt.Sprintf("the model sent nothing for %s — ctrl+r retries (--stall sets how long ward waits)", e.After)
}

// Done reasons of a reply whose text is kept although it may be unfinished. The server's own
// reasons ("stop", "length") pass through as it sends them.
const (
	DoneCut     = "cut"      // the stream ended without a done chunk: the server stopped it
	DoneLength  = "length"   // the output budget (num_predict) ran out
	DoneStalled = "stalled"  // the model stopped sending mid-reply; what arrived is kept
	DoneTooLong = "too_long" // the reply passed MaxReplyBytes and ward stopped reading
	DoneOverdue = "overdue"  // the reply went on past its time limit and ward stopped reading
)

// MaxReplyBytes bounds one reply: far above any output budget ward sets, so only a runaway
// model meets it, and then its first part is kept rather than megabytes stored and printed.
const MaxReplyBytes = 256 << 10

// Unfinished says in words why a kept reply may be unfinished; "" for a finished one.
func Unfinished(doneReason string) string {
	switch doneReason {
	case DoneCut:
		return "the model stopped in the middle of its answer"
	case DoneLength:
		return "the answer reached the output budget (--num-predict) and was cut there"
	case DoneStalled:
		return "the model stalled in the middle of its answer; what arrived is kept"
	case DoneTooLong:
		return fmt.Sprintf("the answer ran past %d KiB and was cut there", MaxReplyBytes>>10)
	case DoneOverdue:
		return "the answer went on past ward's time limit for one reply and was cut there"
	}
	return ""
}

// CutMark is what ends a reply ward itself stopped reading (past MaxReplyBytes, or past its time
// limit), stored with it so that no one reads the part for the whole; "" for any other.
func CutMark(doneReason string) string {
	if doneReason != DoneTooLong && doneReason != DoneOverdue {
		return ""
	}
	return " [cut by ward: " + Unfinished(doneReason) + "]"
}
