package session

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/memory/knowledge"
	"github.com/ward-sim/ward/themes"
)

// CallRecord is one LLM call as the inspector shows it: the trace, plus what memory recalled
// and how ward held the reply to the engine's record, which happens after the trace is written.
type CallRecord struct {
	Trace  llm.TraceRecord
	Recall memory.Selection // what memory put in the prompt, each item with its rule
	Held   string           // how ward held the reply to the engine's record, "" when it stood as written
	// Retrieved are the protocol passages the prompt carried, with how each was found.
	Retrieved []knowledge.Passage
}

// call sends one prompt, fitted under num_ctx, and returns the reply text. An empty answer is
// retried once with a smaller prompt; a second empty answer is the user's to retry. When the
// model calls tools, their results go back in a second call that must answer in words. A first
// call that offers tools cannot also hold the model to the output format (the grammar would
// forbid the tool call), so a reply that broke it is counted and asked again under the format.
// Every call of an agent offers the same tools, so the prompt's start stays in the server's cache
// from one to the next; the calls after the first are held to the format. Speak writes the calls
// to the trace once the reply is held to the record.
func (c *conversation) call(ctx context.Context, a agents.Agent, p agents.Prompt, retry string) (string, error) {
	s, t := c.s, c.t
	q := ask{agent: a.Name, prompt: p, budget: s.cfg.NumCtx, x: c.x, tools: s.toolsFor(a, c.x), retry: retry}
	free := q.tools != nil // the first call may call a tool instead of answering in the format
	q.held = !free
	resp, err := s.send(ctx, t, q)
	if errors.Is(err, llm.ErrEmpty) && retry == "" {
		q.budget, q.retry = s.cfg.NumCtx/2, "empty answer: retried with a smaller prompt"
		resp, err = s.send(ctx, t, q)
	}
	q.budget, q.held = s.cfg.NumCtx, true // every later call answers in the format
	if err == nil && len(resp.Message.ToolCalls) > 0 {
		exchange := s.runTools(t, a.Name, c.x, resp.Message)
		c.keep(exchange...)
		q.prompt.After, q.retry = memory.Spoken(exchange), "tool results: second call"
		resp, err = s.send(ctx, t, q)
	} else if err == nil && free && memory.ParseAgentOutput(resp.Message.Content).Malformed {
		s.countFormatFailure(a.Name)
		q.retry = "reply broke the output format: asked again held to it"
		resp, err = s.send(ctx, t, q)
	}
	if err != nil {
		return "", err
	}
	if why := llm.Unfinished(resp.DoneReason); why != "" {
		t.emit(ErrorEvent{Code: "LLM_CUT", Message: why + " — ctrl+r asks again"})
	}
	reply, merge := s.absorb(t, a.Name, resp.Message.Content)
	t.calls[len(t.calls)-1].Trace.Merge = merge
	return reply, nil
}

// numPredictFor is the output budget: the compound rule's 2000/3000/4000, scaled when the
// session's base budget is not the default 2000 (a slow CPU, or a test model).
func (s *Session) numPredictFor(x *examination) int {
	budget := max(x.compound.NumPredict, memory.BaseNumPredict)
	return budget * s.cfg.OutputBudget / memory.BaseNumPredict
}

// ask is one call of an agent, as send makes it: the agent's prompt, fitted into budget tokens,
// for the turn's examination x; the tools it is offered; held asks for the output format, which a
// call that lets the model call a tool cannot (the output grammar would forbid the call); retry
// says why this is not the agent's first call of the turn ("" when it is).
type ask struct {
	agent  string
	prompt agents.Prompt
	budget int
	x      *examination
	tools  []llm.Tool
	held   bool
	retry  string
}

// send fits the prompt into its budget (num_ctx itself stays constant, so Ollama never reloads),
// makes the backend call, streams its tokens to the UI, and reports it to the event stream, the
// trace file and the inspector.
func (s *Session) send(ctx context.Context, t *turn, q ask) (llm.Response, error) {
	numPredict := s.numPredictFor(q.x)
	p, shrunk, err := q.prompt.Fit(&s.est, q.budget, numPredict)
	var tooLong *agents.PromptTooLongError
	if errors.As(err, &tooLong) && tooLong.Tokens+numPredict <= s.cfg.NumCtx {
		err = nil // the smallest prompt misses a retry's tighter budget but fits the context itself
	}
	if err != nil {
		return llm.Response{}, err
	}
	sections := p.Sections(&s.est)
	req := llm.Request{
		Agent: q.agent, Messages: p.Messages(), Tools: q.tools,
		Options:   llm.Options{NumCtx: s.cfg.NumCtx, NumPredict: numPredict},
		KeepAlive: llm.DefaultKeepAlive,
	}
	if q.held {
		req.Format = agents.AgentOutputSchema
	}
	v := s.vetter(q.agent, q.x, q.prompt)
	stream := replyStream{
		emit:  func(text string) { t.emit(DeltaEvent{PatientID: s.active, Agent: q.agent, Text: text}) },
		clean: func(text string) bool { return v.why(text) == "" },
	}
	s.noticeModelLoad(t)
	resp, trace, err := llm.Call(ctx, s.cfg.Backend, req, stream.add)
	stream.flush()
	if err == nil && resp.Metrics.PromptEvalCount > 0 {
		s.est.Calibrate(sections.Total(), resp.Metrics.PromptEvalCount)
	}
	rec := CallRecord{Trace: trace, Recall: p.Memory}
	rec.Trace.PatientID, rec.Trace.Retry, rec.Trace.Shrunk = s.active, q.retry, shrunk
	rec.Trace.Sections, rec.Trace.SectionTexts, rec.Trace.WindowLen = agents.SectionMap(sections), p.Texts(), len(p.Window)
	rec.Trace.RecallRules = ruleNames(p.Memory.Rules)
	s.recordCall(t, rec)
	return resp, err
}

func ruleNames(rules []memory.Rule) []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = string(r)
	}
	return out
}

// recordCall reports a call as the llm_call event and in the turn's inspector record; the trace
// line follows once the reply's entities are merged.
func (s *Session) recordCall(t *turn, rec CallRecord) {
	tr := rec.Trace
	ev := LLMCallEvent{
		PatientID: tr.PatientID, Agent: tr.Agent, Backend: tr.Backend, Model: tr.Model,
		NumPredict: tr.Options.NumPredict, WindowMessages: tr.WindowLen, Sections: tr.Sections,
		RecallRules: tr.RecallRules, Shrunk: tr.Shrunk, Retry: tr.Retry, LatencyMS: tr.ElapsedMS, Error: tr.Error,
	}
	if ev.RecallRules == nil {
		ev.RecallRules = []string{}
	}
	for _, n := range tr.Sections {
		ev.PromptTokensEst += n
	}
	if m := tr.Metrics; m.PromptEvalCount > 0 {
		ev.PromptEvalCount, ev.EvalCount = &m.PromptEvalCount, &m.EvalCount
		promptMS, evalMS := ms(m.PromptEvalDuration), ms(m.EvalDuration)
		ev.PromptEvalMS, ev.EvalMS = &promptMS, &evalMS
	}
	t.emit(ev)
	t.calls = append(t.calls, rec)
}

// writeTrace appends the calls to --trace, once their entity merge is known.
func (s *Session) writeTrace(t *turn, calls []CallRecord) {
	for _, c := range calls {
		_ = s.cfg.Trace.Write(c.Trace)
	}
	s.reportTrace(t.emit)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// replyStream turns the streamed JSON of an agent's output into the reply's own words, so the UI
// shows text as it arrives rather than braces and keys. An answer that is not JSON (a call that
// offered tools answers in plain text) streams as it is. Text is shown a sentence at a time,
// cleaned, and only while each sentence passes the check every reply is held to (vet.go): the
// first that does not stops the stream, and the reply as checked replaces what was shown.
type replyStream struct {
	dec     memory.ReplyDecoder
	plain   int // bytes of a plain-text answer sent so far
	emit    func(string)
	clean   func(string) bool
	pending []byte // the sentence in progress
	stopped bool
}

func (r *replyStream) add(chunk string) {
	text, begun := r.dec.Add(chunk)
	raw := r.dec.Raw()
	if r.plain == 0 && (begun || !startsPlain(raw)) {
		r.show(text)
		return
	}
	if len(raw) > r.plain {
		r.show(raw[r.plain:])
		r.plain = len(raw)
	}
}

// show passes on the sentences text completes, once each is checked.
func (r *replyStream) show(text string) {
	if r.stopped || text == "" {
		return
	}
	r.pending = append(r.pending, text...)
	if end := strings.LastIndexAny(text, ".!?\n"); end >= 0 { // only the new text can end a sentence
		r.pass(len(r.pending) - len(text) + end + 1)
	}
}

// flush passes on the last sentence, which ends with the reply rather than a full stop.
func (r *replyStream) flush() {
	if !r.stopped {
		r.pass(len(r.pending))
	}
}

// pass checks the first n bytes of the pending text and shows them, or stops the stream.
func (r *replyStream) pass(n int) {
	ready := string(r.pending[:n])
	if r.clean != nil && !r.clean(ready) {
		r.stopped = true
		return
	}
	r.pending = append(r.pending[:0], r.pending[n:]...)
	if ready = themes.Printable(ready); ready != "" {
		r.emit(ready)
	}
}

// startsPlain reports whether output has begun with something other than a JSON object.
func startsPlain(raw string) bool {
	trimmed := strings.TrimSpace(raw)
	return trimmed != "" && !strings.HasPrefix(trimmed, "{")
}

// noticeModelLoad tells the trainee, once a turn, that a model no call has answered yet may be
// loading.
func (s *Session) noticeModelLoad(t *turn) {
	b := s.cfg.Backend
	if t.loadNoticed || b.Name() != "ollama" || llm.PaceOf(b).Measured() {
		return
	}
	t.loadNoticed = true
	t.emit(ProgressEvent{Stage: "load", Text: "waiting for " + b.Model() + " to load and answer its first call — a minute or more on a CPU"})
}
