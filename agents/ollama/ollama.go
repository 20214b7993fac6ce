// Package ollama is the backend that answers through a running Ollama server. It is the one
// package that speaks Ollama's types: it converts ward's requests to them and its replies back.
package ollama

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"

	"github.com/ward-sim/ward/agents/llm"
)

// DefaultStallTimeout bounds the silence between two streamed chunks. It
// also covers the wait for the first chunk, which includes loading the
// model and evaluating the prompt, so it is generous.
const DefaultStallTimeout = 30 * time.Second

// Options tune the backend. The zero value uses the defaults.
type Options struct {
	StallTimeout time.Duration
}

// Backend answers through a running Ollama server.
type Backend struct {
	client *api.Client
	model  string
	stall  time.Duration
}

// New wraps a client for one model.
func New(client *api.Client, model string, opts Options) *Backend {
	if opts.StallTimeout <= 0 {
		opts.StallTimeout = DefaultStallTimeout
	}
	return &Backend{client: client, model: model, stall: opts.StallTimeout}
}

// FromEnvironment connects to the server OLLAMA_HOST names (Ollama's own default when unset).
func FromEnvironment(model string, opts Options) (*Backend, error) {
	client, err := api.ClientFromEnvironment()
	if err != nil {
		return nil, fmt.Errorf("OLLAMA_HOST: %w", err)
	}
	return New(client, model, opts), nil
}

func (o *Backend) Name() string  { return "ollama" }
func (o *Backend) Model() string { return o.model }

// errStalled is the cancel cause the watchdog sets, so a stall can be told
// apart from the caller cancelling.
var errStalled = errors.New("no chunk within the stall timeout")

// Chat streams one reply. The watchdog cancels the request when no chunk
// arrives for the stall timeout; that, an empty reply and a "length" stop
// with no text all come back as *EmptyError.
func (o *Backend) Chat(ctx context.Context, req llm.Request, onDelta func(string)) (llm.Response, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	watchdog := time.AfterFunc(o.stall, func() { cancel(errStalled) })
	defer watchdog.Stop()

	var reply replyAccumulator
	err := o.client.Chat(ctx, Wire(o.model, req), func(chunk api.ChatResponse) error {
		watchdog.Reset(o.stall)
		reply.add(chunk, onDelta)
		return nil
	})
	// The client ends a stream cut by cancellation without an error, so a
	// missing done chunk is checked against the cancel cause.
	switch {
	case err == nil && reply.done:
		return reply.response()
	case errors.Is(context.Cause(ctx), errStalled):
		return llm.Response{}, &llm.EmptyError{Reason: fmt.Sprintf("stalled: %s without a chunk", o.stall)}
	case ctx.Err() != nil:
		return llm.Response{}, ctx.Err()
	case err != nil:
		return llm.Response{}, ollamaError(err, o.model)
	}
	return reply.response()
}

// replyAccumulator joins streamed chunks into one assistant message.
type replyAccumulator struct {
	text      strings.Builder
	toolCalls []api.ToolCall
	final     api.ChatResponse
	done      bool
}

func (r *replyAccumulator) add(chunk api.ChatResponse, onDelta func(string)) {
	if chunk.Message.Content != "" {
		r.text.WriteString(chunk.Message.Content)
		if onDelta != nil {
			onDelta(chunk.Message.Content)
		}
	}
	r.toolCalls = append(r.toolCalls, chunk.Message.ToolCalls...)
	if chunk.Done {
		r.final, r.done = chunk, true
	}
}

func (r *replyAccumulator) response() (llm.Response, error) {
	msg := fromAPI(api.Message{Role: "assistant", Content: r.text.String(), ToolCalls: r.toolCalls})
	if strings.TrimSpace(msg.Content) == "" && len(msg.ToolCalls) == 0 {
		return llm.Response{}, &llm.EmptyError{Reason: r.emptyReason()}
	}
	reason := r.final.DoneReason
	if !r.done {
		reason = llm.DoneCut // the server stopped the stream (a token repeated too often, say)
	}
	return llm.Response{Message: msg, DoneReason: reason, Metrics: metrics(r.final.Metrics)}, nil
}

func (r *replyAccumulator) emptyReason() string {
	switch {
	case !r.done:
		return "stream ended before done"
	case r.final.DoneReason == "length":
		return "num_predict reached before any text"
	default:
		return "empty answer"
	}
}

// Capabilities is what Probe learned about the model.
type Capabilities struct {
	Tools bool
}

// Probe checks, for --backend auto, that the server answers, has the model
// and can chat with it. A non-nil error's message is the one-line reason to
// show when falling back to the offline backend.
func (o *Backend) Probe(ctx context.Context) (Capabilities, error) {
	show, err := o.client.Show(ctx, &api.ShowRequest{Model: o.model})
	if err != nil {
		return Capabilities{}, ollamaError(err, o.model)
	}
	caps := show.Capabilities
	if len(caps) > 0 && !slices.Contains(caps, model.CapabilityCompletion) {
		return Capabilities{}, fmt.Errorf("model %s cannot chat (capabilities: %v) — choose another with --model", o.model, caps)
	}
	return Capabilities{Tools: supportsTools(show)}, nil
}

// supportsTools trusts the server's capability list and, from servers that
// send none, falls back to the check the server itself makes: whether the
// chat template renders .Tools.
func supportsTools(show *api.ShowResponse) bool {
	if len(show.Capabilities) > 0 {
		return slices.Contains(show.Capabilities, model.CapabilityTools)
	}
	return strings.Contains(show.Template, ".Tools")
}

// Embed turns texts into vectors with an embedding model, one per text, in order: the semantic
// half of the knowledge base's retrieval.
func (o *Backend) Embed(ctx context.Context, model string, texts []string) ([][]float32, error) {
	resp, err := o.client.Embed(ctx, &api.EmbedRequest{Model: model, Input: texts})
	if err != nil {
		return nil, ollamaError(err, model)
	}
	if len(resp.Embeddings) != len(texts) {
		return nil, fmt.Errorf("model %s embedded %d of %d texts", model, len(resp.Embeddings), len(texts))
	}
	return resp.Embeddings, nil
}
