package llm

import "errors"

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
	return "Ollama is not reachable at " + e.URL + " — start it with `ollama serve`, or run with --backend offline"
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// ModelNotFoundError means the server answered but does not have the model.
type ModelNotFoundError struct {
	Model string
}

func (e *ModelNotFoundError) Error() string {
	return "model " + e.Model + " not found — ollama pull " + e.Model
}

// DoneCut is the done reason of a reply whose stream ended without a done chunk: the server
// stopped it, so the text is kept but may be unfinished.
const DoneCut = "cut"
