package ollama

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/ward-sim/ward/agents/llm"
)

// ollamaError turns what the api client returned into one of ward's typed errors where it can,
// so the user reads what to do next.
func ollamaError(err error, model string) error {
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return &llm.UnreachableError{URL: serverURL(err), Err: err}
	}
	if isModelNotFound(err) {
		return &llm.ModelNotFoundError{Model: model}
	}
	if strings.HasPrefix(err.Error(), "unmarshal:") { // the client's words for a line it could not decode
		return fmt.Errorf("Ollama sent a reply ward could not read (%v) — check the server's log, then retry", err) //nolint:staticcheck // ST1005: Ollama is a name, and the sentence is shown as it is
	}
	return fmt.Errorf("ollama: %w", err)
}

// isModelNotFound covers both ways the client reports a missing model: a StatusError from plain
// calls (Show, List), and the bare error text the streaming calls (Chat) return.
func isModelNotFound(err error) bool {
	var status api.StatusError
	if errors.As(err, &status) && status.StatusCode == 404 {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "model") && strings.Contains(msg, "not found")
}

// serverURL recovers the server address from the failed request, because api.Client does not
// expose its base URL.
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
