package session

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/memory"
)

// CallRecord is one LLM call as the inspector shows it: the trace, plus how the prompt was built.
type CallRecord struct {
	Trace      agents.TraceRecord
	Recall     memory.Selection // what memory put in the prompt, each item with its rule
	WindowLen  int              // messages of the window, which follow the static message
	NumPredict int
	Shrunk     []string // what the budget cut to fit num_ctx
	Retry      string   // why this call repeated an earlier one, "" for a first call
}

// speaker is the team's way to make one agent speak in this turn.
func (s *Session) speaker(t *turn, ct *clinicalTurn) agents.SpeakFunc {
	first := true
	return func(ctx context.Context, a agents.Agent) (string, error) {
		checklist := first && ct.compound.IsCompound()
		first = false
		p := s.prompt(a, ct, t)
		if checklist {
			p.Instruction = ct.compound.Instruction()
		}
		reply, err := s.call(ctx, t, a, p, ct, "")
		if err == nil && checklist {
			reply, err = s.completeChecklist(ctx, t, a, p, ct, reply)
		}
		if err == nil && strings.TrimSpace(reply) == "" {
			err = agents.ErrEmpty // the JSON arrived but said nothing
		}
		if err != nil {
			return "", err
		}
		s.reply(t, a.Name, reply)
		return reply, nil
	}
}

// completeChecklist asks once more, for the missing parts only, when a compound answer skipped
// some of them. The two answers are shown as one.
func (s *Session) completeChecklist(ctx context.Context, t *turn, a agents.Agent, p agents.Prompt, ct *clinicalTurn, reply string) (string, error) {
	missing := slices.DeleteFunc(memory.Missing(ct.compound.Checklist, reply), func(p memory.Part) bool {
		return ct.disclosedIn(p, reply)
	})
	if len(missing) == 0 {
		return reply, nil
	}
	p.Window = append(append([]api.Message{}, p.Window...), api.Message{Role: "user", Content: p.User}, api.Message{Role: "assistant", Content: reply})
	p.User, p.Instruction = memory.FollowUp(missing), ""
	more, err := s.call(ctx, t, a, p, ct, "checklist: missing parts")
	if err != nil || strings.TrimSpace(more) == strings.TrimSpace(reply) {
		return reply, nil // the first answer stands; the gap is in the trace
	}
	return reply + "\n\n" + more, nil
}

// prompt builds one agent's prompt for this turn.
func (s *Session) prompt(a agents.Agent, ct *clinicalTurn, t *turn) agents.Prompt {
	p := agents.Prompt{Static: a.SystemText(), User: t.input}
	conv := s.Conversation() // the fresh snapshot at index 0 goes to the dynamic section
	snap := conv[0].Content
	history := withoutTyped(conv[1:], t)
	p.Window = s.cfg.Window.Apply(memory.LoadRecent(history, 0), s.elapsed(ct))
	if ct.engine == nil {
		p.Dynamic = snap
		return p
	}
	if knowsBaseline(a) {
		p.Static += "\n\n" + baseline(ct.engine)
	}
	p.Dynamic = agents.JoinSections(presentation(ct.engine, a), s.entityContext(a), snap)
	if ct.wantsAAR && a.Name == agents.AgentPreceptor {
		p.Dynamic = agents.JoinSections(p.Dynamic, "After Action Review (debrief from this only):\n"+ct.engine.Report().Markdown())
	}
	if mem := s.sim.mems[s.active]; mem != nil {
		turn := memory.Turn{Now: s.sim.ward.Clock(), Parts: ct.parts}
		if len(p.Window) > 0 { // the window is the end of history, message for message
			turn.WindowFrom = &history[len(history)-len(p.Window)].Sim
		}
		p.Memory = visibleTo(a, mem.Recall(turn))
	}
	return p
}

// visibleTo keeps the recalled items of the categories the agent sees. Safety items are kept for
// every agent: a treatment turn must carry every disclosed allergy, whoever answers it.
func visibleTo(a agents.Agent, sel memory.Selection) memory.Selection {
	hidden := func(it memory.Selected) bool { return !it.Protected() && !a.SeesMemory(it.Category) }
	sel.Items = slices.DeleteFunc(slices.Clone(sel.Items), hidden)
	sel.Shown = slices.DeleteFunc(slices.Clone(sel.Shown), hidden)
	return sel
}

func (s *Session) elapsed(ct *clinicalTurn) float64 {
	if ct.engine == nil {
		return 0
	}
	return ct.engine.Elapsed()
}

// priorHistory is the conversation before this turn's user message, plus what agents said since
// it: the user message itself goes last in the prompt.
func (s *Session) priorHistory(t *turn) []memory.Message { return withoutTyped(s.history, t) }

// withoutTyped is msgs without the turn's own typed message.
func withoutTyped(msgs []memory.Message, t *turn) []memory.Message {
	out := make([]memory.Message, 0, len(msgs))
	for _, m := range msgs {
		if m.Role == "user" && m.At.Equal(t.userAt) && m.Content == t.input {
			continue
		}
		out = append(out, m)
	}
	return out
}

// call sends one prompt, fitted under num_ctx, and returns the reply text. An empty answer is
// retried once with a smaller prompt; a second empty answer is the user's to retry. When the
// model calls tools, their results go back in a second call that must answer in words.
func (s *Session) call(ctx context.Context, t *turn, a agents.Agent, p agents.Prompt, ct *clinicalTurn, retry string) (string, error) {
	first := len(t.calls)
	defer func() { s.writeTrace(t, t.calls[first:]) }()
	tools := s.toolsFor(a, ct)
	resp, err := s.send(ctx, t, a.Name, p, s.cfg.NumCtx, ct, tools, retry)
	if errors.Is(err, agents.ErrEmpty) && retry == "" {
		resp, err = s.send(ctx, t, a.Name, p, s.cfg.NumCtx/2, ct, tools, "empty answer: retried with a smaller prompt")
	}
	if err == nil && len(resp.Message.ToolCalls) > 0 {
		p.After = s.runTools(t, a.Name, ct, resp.Message)
		resp, err = s.send(ctx, t, a.Name, p, s.cfg.NumCtx, ct, nil, "tool results: second call")
	}
	if err != nil {
		return "", err
	}
	if resp.DoneReason == agents.DoneCut {
		t.emit(ErrorEvent{Code: "LLM_CUT", Message: "the model stopped in the middle of its answer — ctrl+r retries"})
	}
	reply, merge := s.absorb(t, a.Name, resp.Message.Content)
	t.calls[len(t.calls)-1].Trace.Merge = merge
	return reply, nil
}

// numPredictFor is the output budget: the compound rule's 2000/3000/4000, scaled when the
// session's base budget is not the default 2000 (a slow CPU, or a test model).
func (s *Session) numPredictFor(ct *clinicalTurn) int {
	budget := max(ct.compound.NumPredict, memory.BaseNumPredict)
	return budget * s.cfg.OutputBudget / memory.BaseNumPredict
}

// send fits the prompt into budget tokens (num_ctx itself stays constant, so Ollama never
// reloads), makes the backend call, streams its tokens to the UI, and reports it to the event
// stream, the trace file and the inspector. A call that offers tools asks for no JSON format:
// a model held to the output grammar could not call them.
func (s *Session) send(ctx context.Context, t *turn, agent string, full agents.Prompt, budget int, ct *clinicalTurn, tools api.Tools, retry string) (agents.Response, error) {
	numPredict := s.numPredictFor(ct)
	p, shrunk, err := full.Fit(&s.est, budget, numPredict)
	var tooLong *agents.PromptTooLongError
	if errors.As(err, &tooLong) && tooLong.Tokens+numPredict <= s.cfg.NumCtx {
		err = nil // the smallest prompt misses a retry's tighter budget but fits the context itself
	}
	if err != nil {
		return agents.Response{}, err
	}
	sections := p.Sections(&s.est)
	req := agents.Request{
		Agent: agent, Messages: p.Messages(), Sections: agents.SectionMap(sections), Tools: tools,
		Options:   map[string]any{"num_ctx": s.cfg.NumCtx, "num_predict": numPredict},
		KeepAlive: &api.Duration{Duration: agents.DefaultKeepAlive},
		Scene:     s.scene(agent, ct),
	}
	if tools == nil {
		req.Format = agents.AgentOutputSchema
	}
	t0 := time.Now()
	stream := replyStream{emit: func(text string) { t.emit(DeltaEvent{PatientID: s.active, Agent: agent, Text: text}) }}
	resp, err := s.cfg.Backend.Chat(ctx, req, stream.add)
	elapsed := time.Since(t0)
	if err == nil && resp.Metrics.PromptEvalCount > 0 {
		s.est.Calibrate(sections.Total(), resp.Metrics.PromptEvalCount)
	}
	rec := CallRecord{Trace: agents.NewTraceRecord(s.cfg.Backend, req, resp, err, elapsed), Recall: p.Memory,
		WindowLen: len(p.Window), NumPredict: numPredict, Shrunk: shrunk, Retry: retry}
	rec.Trace.PatientID = s.active
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
		NumPredict: rec.NumPredict, WindowMessages: rec.WindowLen, Sections: tr.Sections,
		RecallRules: tr.RecallRules, Shrunk: rec.Shrunk, Retry: rec.Retry, LatencyMS: tr.ElapsedMS, Error: tr.Error,
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
		if err := s.cfg.Trace.Write(c.Trace); err != nil {
			t.emit(ErrorEvent{Code: "TRACE", Message: "could not write the trace file: " + err.Error()})
			return
		}
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// replyStream turns the streamed JSON of an agent's output into the reply's own words, so the UI
// shows text as it arrives rather than braces and keys. An answer that is not JSON (a call that
// offered tools answers in plain text) streams as it is.
type replyStream struct {
	dec   memory.ReplyDecoder
	plain int // bytes of a plain-text answer sent so far
	emit  func(string)
}

func (r *replyStream) add(chunk string) {
	text, begun := r.dec.Add(chunk)
	raw := r.dec.Raw()
	if r.plain == 0 && (begun || !startsPlain(raw)) {
		if text != "" {
			r.emit(text)
		}
		return
	}
	if len(raw) > r.plain {
		r.emit(raw[r.plain:])
		r.plain = len(raw)
	}
}

// startsPlain reports whether output has begun with something other than a JSON object.
func startsPlain(raw string) bool {
	trimmed := strings.TrimSpace(raw)
	return trimmed != "" && !strings.HasPrefix(trimmed, "{")
}
