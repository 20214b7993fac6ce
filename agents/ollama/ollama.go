// Package ollama is the backend that answers through a running Ollama server. It is the one
// package that speaks Ollama's types: it converts ward's requests to them and its replies back.
package ollama

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"

	"github.com/ward-sim/ward/agents/llm"
)

// DefaultStallTimeout bounds the silence between two streamed chunks once a reply has begun.
// The wait for the first chunk, which includes loading the model and evaluating the prompt, is
// longer: see firstChunk.
const DefaultStallTimeout = 30 * time.Second

// DefaultReplyLimit bounds a whole reply once its first chunk is due: the stall timeout only
// measures the gaps between chunks, and a model that sends a byte a second never stalls.
const DefaultReplyLimit = 5 * time.Minute

// firstCallAllowance is how long the first chunk of the first call may take, before the model's
// speed is known: loading a model from disk on a laptop CPU takes that long.
const firstCallAllowance = 3 * time.Minute

// Options tune the backend. The zero value uses the defaults.
type Options struct {
	StallTimeout time.Duration
	// FirstCall is how long the first chunk may take before the model's speed is known
	// (default firstCallAllowance).
	FirstCall time.Duration
	// ReplyLimit is how long a reply may take after its first chunk was due (default
	// DefaultReplyLimit); what arrived by then is kept, marked as cut.
	ReplyLimit time.Duration
}

// Backend answers through a running Ollama server. It is safe for concurrent use.
type Backend struct {
	client    *api.Client
	model     string
	stall     time.Duration
	firstCall time.Duration
	limit     time.Duration

	mu   sync.Mutex
	pace llm.Pace
}

// New wraps a client for one model.
func New(client *api.Client, model string, opts Options) *Backend {
	if opts.StallTimeout <= 0 {
		opts.StallTimeout = DefaultStallTimeout
	}
	if opts.FirstCall <= 0 {
		opts.FirstCall = firstCallAllowance
	}
	if opts.ReplyLimit <= 0 {
		opts.ReplyLimit = DefaultReplyLimit
	}
	return &Backend{client: client, model: model, stall: opts.StallTimeout, firstCall: opts.FirstCall, limit: opts.ReplyLimit}
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

// Pace is the model's speed as the calls so far measured it.
func (o *Backend) Pace() llm.Pace {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.pace
}

// measure keeps what a finished call of promptBytes showed of the model's speed. The prompt's
// pace is the slowest seen: a prompt the server's cache held evaluates faster than a new one.
func (o *Backend) measure(m llm.Metrics, promptBytes int) {
	if m.EvalCount == 0 || m.EvalDuration == 0 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.pace.ReplyPerToken = m.EvalDuration / time.Duration(m.EvalCount)
	if promptBytes > 0 {
		o.pace.PromptPerByte = max(o.pace.PromptPerByte, m.PromptEvalDuration/time.Duration(promptBytes))
	}
}

// firstChunk is how long the first chunk of req may take: the prompt's evaluation at the
// measured pace, or the first-call allowance before anything was measured, and never less than
// the stall timeout.
func (o *Backend) firstChunk(req llm.Request) time.Duration {
	return o.Pace().Expect(llm.PromptBytes(req), 0, o.stall, o.firstCall)
}

// errStalled is the cancel cause the watchdog sets, so a stall can be told apart from the
// caller cancelling; errTooLong stops reading a runaway reply, errOverdue a reply past its time.
var (
	errStalled = errors.New("no chunk within the stall timeout")
	errTooLong = errors.New("reply too long")
	errOverdue = errors.New("reply past its time limit")
)

// Chat streams one reply. The watchdog cancels the request when no chunk arrives in time, the
// deadline when the whole reply takes longer than its first chunk's allowance and the reply
// limit. A reply that stalls, runs past llm.MaxReplyBytes or past its deadline keeps what
// arrived, with its done reason saying so; an empty reply, or a "length" stop with no text, is an
// *llm.EmptyError; a stall before any chunk is an *llm.StallError.
func (o *Backend) Chat(ctx context.Context, req llm.Request, onDelta func(string)) (llm.Response, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	wait := o.firstChunk(req)
	watchdog := time.AfterFunc(wait, func() { cancel(errStalled) })
	defer watchdog.Stop()
	deadline := time.AfterFunc(wait+o.limit, func() { cancel(errOverdue) })
	defer deadline.Stop()

	var reply replyAccumulator
	err := o.client.Chat(ctx, Wire(o.model, req), func(chunk api.ChatResponse) error {
		watchdog.Reset(o.stall)
		wait = o.stall
		return reply.add(chunk, onDelta)
	})
	// The client ends a stream cut by cancellation without an error, so a missing done chunk is
	// checked against the cancel cause.
	switch {
	case err == nil && reply.done:
		resp, err := reply.response("")
		o.measure(resp.Metrics, llm.PromptBytes(req))
		return resp, err
	case errors.Is(err, errTooLong):
		return reply.response(llm.DoneTooLong)
	case errors.Is(context.Cause(ctx), errOverdue) && reply.text.Len() > 0:
		return reply.response(llm.DoneOverdue)
	case errors.Is(context.Cause(ctx), errOverdue):
		return llm.Response{}, &llm.StallError{After: wait + o.limit}
	case errors.Is(context.Cause(ctx), errStalled) && reply.text.Len() > 0:
		return reply.response(llm.DoneStalled)
	case errors.Is(context.Cause(ctx), errStalled):
		return llm.Response{}, &llm.StallError{After: wait}
	case ctx.Err() != nil:
		return llm.Response{}, context.Cause(ctx) // a call's time limit (llm.WithTimeout) is its cause
	case err != nil:
		return llm.Response{}, ollamaError(err, o.model)
	}
	if !reply.begun {
		return llm.Response{}, errEndedEarly
	}
	return reply.response(llm.DoneCut)
}

// errEndedEarly is a stream that ended, with no error, before any chunk: the api client stops
// reading at a line over its 512 KiB limit and reports nothing, so that is the likely cause.
var errEndedEarly = errors.New("Ollama's stream ended before a reply began: a line over 512 KiB (the client's limit) ends it there — check the server's log, then retry") //nolint:staticcheck // ST1005: Ollama is a name

// replyAccumulator joins streamed chunks into one assistant message.
type replyAccumulator struct {
	begun     bool // a chunk arrived
	text      strings.Builder
	toolCalls []api.ToolCall
	final     api.ChatResponse
	done      bool
}

func (r *replyAccumulator) add(chunk api.ChatResponse, onDelta func(string)) error {
	r.begun = true
	if content := chunk.Message.Content; content != "" {
		if room := llm.MaxReplyBytes - r.text.Len(); len(content) > room {
			r.text.WriteString(strings.ToValidUTF8(content[:room], ""))
			return errTooLong
		}
		r.text.WriteString(content)
		if onDelta != nil {
			onDelta(content)
		}
	}
	r.toolCalls = append(r.toolCalls, chunk.Message.ToolCalls...)
	if chunk.Done {
		r.final, r.done = chunk, true
	}
	return nil
}

// response is the reply as it stands; unfinished is the done reason of a reply that did not
// end with a done chunk, "" for one that did.
func (r *replyAccumulator) response(unfinished string) (llm.Response, error) {
	msg := fromAPI(api.Message{Role: "assistant", Content: r.text.String(), ToolCalls: r.toolCalls})
	if strings.TrimSpace(msg.Content) == "" && len(msg.ToolCalls) == 0 {
		return llm.Response{}, &llm.EmptyError{Reason: r.emptyReason()}
	}
	reason := r.final.DoneReason
	if unfinished != "" {
		reason = unfinished
	}
	return llm.Response{Message: msg, DoneReason: reason, Metrics: metrics(r.final.Metrics)}, nil
}

func (r *replyAccumulator) emptyReason() string {
	switch {
	case !r.done:
		return "the stream ended before the reply was done"
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
