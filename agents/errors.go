package agents

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/ollama/ollama/api"
)

// ErrEmpty matches every *EmptyError: the model gave no usable answer. The
// caller retries once with a smaller prompt, then shows the error's message.
var ErrEmpty = errors.New("the model returned nothing — retry with ctrl+r")

// EmptyError is an answer with no text and no tool calls: an empty reply, a
// "length" stop before any text, or a stream that stalled. Reason says which,
// for the trace; the user sees only ErrEmpty's message.
type EmptyError struct {
	Reason string
}

func (e *EmptyError) Error() string        { return ErrEmpty.Error() }
func (e *EmptyError) Is(target error) bool { return target == ErrEmpty }

// UnreachableError means nothing answered at the Ollama address.
type UnreachableError struct {
	URL string // scheme://host:port of the server that was dialled
	Err error
}

func (e *UnreachableError) Error() string {
	return "Ollama is not reachable at " + e.URL + " — start it with `ollama serve`, or run with --backend offline"
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// ModelNotFoundError means Ollama answered but does not have the model.
type ModelNotFoundError struct {
	Model string
}

func (e *ModelNotFoundError) Error() string {
	return "model " + e.Model + " not found — ollama pull " + e.Model
}

// ollamaError turns what the api client returned into one of the typed
// errors above where it can, so the user reads what to do next.
func ollamaError(err error, model string) error {
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return &UnreachableError{URL: serverURL(err), Err: err}
	}
	if isModelNotFound(err) {
		return &ModelNotFoundError{Model: model}
	}
	return fmt.Errorf("ollama: %w", err)
}

// isModelNotFound covers both ways the client reports a missing model: a
// StatusError from plain calls (Show, List), and the bare error text the
// streaming calls (Chat) return.
func isModelNotFound(err error) bool {
	var status api.StatusError
	if errors.As(err, &status) && status.StatusCode == 404 {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "model") && strings.Contains(msg, "not found")
}

// serverURL recovers the server address from the failed request, because
// api.Client does not expose its base URL.
func serverURL(err error) string {
	var urlErr *url.Error
	if !errors.As(err, &urlErr) {
		return "the configured OLLAMA_HOST"
	}
	u, parseErr := url.Parse(urlErr.URL)
	if parseErr != nil {
		return urlErr.URL
	}
	return u.Scheme + "://" + u.Host
}
