package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/memory/knowledge"
	"github.com/ward-sim/ward/session/action"
	"github.com/ward-sim/ward/session/records"
	"github.com/ward-sim/ward/session/scenario"
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
	q := ask{agent: a.Name, prompt: p, budget: s.cfg.NumCtx, x: c.x, tools: c.toolsFor(a), retry: retry}
	free := q.tools != nil // the first call may call a tool instead of answering in the format
	q.held = !free
	resp, err := c.send(ctx, q)
	if errors.Is(err, llm.ErrEmpty) && retry == "" {
		q.budget, q.retry = s.cfg.NumCtx/2, "empty answer: retried with a smaller prompt"
		resp, err = c.send(ctx, q)
	}
	q.budget, q.held = s.cfg.NumCtx, true // every later call answers in the format
	if err == nil && len(resp.Message.ToolCalls) > 0 {
		exchange := c.runTools(a.Name, q.tools, resp.Message)
		c.keep(exchange...)
		q.prompt.After, q.retry = memory.Spoken(exchange), "tool results: second call"
		resp, err = c.send(ctx, q)
	} else if err == nil && free && memory.ParseAgentOutput(resp.Message.Content).Malformed {
		c.countFormatFailure(a.Name)
		q.retry = "reply broke the output format: asked again held to it"
		resp, err = c.send(ctx, q)
	}
	if err != nil {
		return "", err
	}
	if why := llm.Unfinished(resp.DoneReason); why != "" {
		t.emit(ErrorEvent{Code: "LLM_CUT", Message: why + " — ctrl+r asks again"})
	}
	reply, merge := c.absorb(a.Name, resp.Message.Content)
	t.calls[len(t.calls)-1].Trace.Merge = merge
	return reply + llm.CutMark(resp.DoneReason), nil
}

// numPredictFor is the output budget: the compound rule's 2000/3000/4000, scaled when the
// session's base budget is not the default 2000 (a slow CPU, or a test model).
func (c *conversation) numPredictFor() int {
	s, x := c.s, c.x
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
func (c *conversation) send(ctx context.Context, q ask) (llm.Response, error) {
	s, t := c.s, c.t
	numPredict := c.numPredictFor()
	p, shrunk, err := q.prompt.Fit(&s.chat.est, q.budget, numPredict)
	var tooLong *agents.PromptTooLongError
	if errors.As(err, &tooLong) && tooLong.Tokens+numPredict <= s.cfg.NumCtx {
		err = nil // the smallest prompt misses a retry's tighter budget but fits the context itself
	}
	if err != nil {
		return llm.Response{}, err
	}
	sections := p.Sections(&s.chat.est)
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
	if err := s.beforeModelCall(t); err != nil {
		return llm.Response{}, err
	}
	resp, trace, err := llm.Call(ctx, s.cfg.Backend, req, stream.add)
	stream.flush()
	if err == nil && resp.Metrics.PromptEvalCount > 0 {
		s.chat.est.Calibrate(sections.Total(), resp.Metrics.PromptEvalCount)
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

// beforeModelCall is what a turn owes the trainee before a model is asked: the line they typed
// on disk, since a model may take minutes in which the process can be killed or the machine
// sleep (one commit of its own: the reply's commit cannot come before the reply), and a word if
// the model may still be loading. A backend answering in the process (llm.InProcess) is no such
// wait: the line goes with the answer, in the turn's one commit.
func (s *Session) beforeModelCall(t *turn) error {
	s.noticeModelLoad(t)
	if !t.holdsLine() || llm.AnswersInProcess(s.cfg.Backend) {
		return nil
	}
	if !s.commit(t, nil) {
		return errLineNotSaved
	}
	return nil
}

// errLineNotSaved stops a model call whose turn could not store the trainee's line first (the
// turn has said why).
var errLineNotSaved = errors.New("the line was not saved, so no model was asked")

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

// The trace (--trace) holds what a replay needs: a header for each session the process runs,
// every input the session handles, and every call it makes. A session given the same inputs at
// the same wall times, on the same settings and definitions, with a backend that answers each
// call as the trace recorded, builds the same prompts byte for byte: the physiology's noise comes
// from the seed, and the only wall time a prompt carries is its input's (s.at).

// traceHeader opens this session's run in the trace.
func (s *Session) traceHeader(resumed bool) error {
	c := s.cfg
	if c.Trace == nil {
		return nil // hashing the definitions is for the trace alone
	}
	prefs, err := json.Marshal(s.prefs)
	if err != nil || s.prefs == (Prefs{}) {
		prefs = nil
	}
	var knowledgeHash, embedModel string
	if c.Knowledge != nil {
		var err error
		if knowledgeHash, err = c.Knowledge.Hash(); err != nil {
			return err
		}
		embedModel = c.Knowledge.EmbedModel()
	}
	return c.Trace.WriteHeader(llm.TraceHeader{
		SessionID: s.info.ID, StartedAt: s.info.CreatedAt, Resumed: resumed, Shift: c.Shift, Seed: s.info.Seed,
		Backend: c.Backend.Name(), Model: c.Backend.Model(), Tools: c.Tools,
		NumCtx: c.NumCtx, OutputBudget: c.OutputBudget, KeepAlive: llm.DefaultKeepAlive.String(),
		Window: c.Window, PatientIDPattern: c.Pattern.String(), ConfirmAdmissions: c.ConfirmAdmissions,
		ScenariosHash: c.Scenarios.Hash(), AgentsHash: c.Team.Hash(), KnowledgeHash: knowledgeHash, EmbedModel: embedModel,
		Trainee: s.info.Trainee, Prefs: prefs, Recurring: s.recurring,
	})
}

// begin starts handling one input: it takes the wall time the input's prompts carry and records
// the input in the trace.
func (s *Session) begin(in llm.TraceInput, emit func(Event)) {
	s.at = s.cfg.Now().UTC()
	in.At = s.at
	_ = s.cfg.Trace.WriteInput(in)
	s.reportTrace(emit)
}

// reportTrace tells the trainee, once, that the trace stopped being written (by this write or an
// analyzer's or router's call before it); the shift goes on.
func (s *Session) reportTrace(emit func(Event)) {
	if err := s.cfg.Trace.Failure(); err != nil {
		emit(ErrorEvent{Code: "TRACE", Message: "could not write the trace file: " + err.Error() + "; the shift goes on untraced"})
	}
}

// TurnRecord is one finished turn as the inspector shows it: the analyzer's decision and every
// LLM call with its prompt, sections, recall rules and metrics.
type TurnRecord struct {
	Number   int
	Input    string
	Decision *DecisionEvent // nil for commands that made no decision
	Calls    []CallRecord
	Counters *memory.EntityStats // the active patient's entity and team counters after the turn
	// Rates are seed 002's rates of the active patient's turns so far, per agent and in all,
	// held to the seed's thresholds.
	Rates []records.Metrics
	// Pruned is what the turn's pruning rules took out of what prompts may carry.
	Pruned []PruneEvent
	// Engine is the engine's truth about the active patient after the turn: the scenario, its
	// title, the state and the true GCS, masked in a trainee's view (views.go).
	Engine string
}

// maxTurnRecords bounds what the inspector keeps in memory; --trace keeps everything on disk.
const maxTurnRecords = 200

func (s *Session) keepTurnRecord(t *turn) {
	rec := TurnRecord{Input: t.input, Decision: t.decisionEvent, Calls: t.calls, Number: 1, Pruned: t.pruned}
	if e := s.sim.ward.Engine(s.active); e != nil {
		rec.Engine = fmt.Sprintf("%s (%s) · state %s · true GCS %d", e.Scenario().ID, e.Scenario().Title, e.State(), e.TrueVitals().GCS)
	}
	if ents := s.sim.ents[s.active]; ents != nil {
		stats := ents.Stats
		rec.Counters = &stats
		rec.Rates = records.MetricsOver(ents.Tallies, records.Window{}, records.SeedThresholds)
	}
	if n := len(s.turns); n > 0 {
		rec.Number = s.turns[n-1].Number + 1
	}
	s.turns = append(s.turns, rec)
	if extra := len(s.turns) - maxTurnRecords; extra > 0 {
		s.turns = append(s.turns[:0:0], s.turns[extra:]...)
	}
}

// Turns returns a copy of the inspector's records, oldest first.
// In a trainee's view the engine's secrets are masked (views.go).
func (s *Session) Turns() []TurnRecord {
	out := make([]TurnRecord, len(s.turns))
	for i, rec := range s.turns {
		out[i] = s.forTrainee(rec)
	}
	return out
}

// cmdInspect summarises the previous turn in text, for `ward run` and the chat. The TUI's
// inspector (ctrl+o) shows the same records in full.
func (s *Session) cmdInspect(_ context.Context, t *turn, _ string) {
	if len(s.turns) == 0 {
		s.say(t, "Nothing to inspect yet: no turn has finished.")
		return
	}
	s.say(t, describeTurn(s.forTrainee(s.turns[len(s.turns)-1])))
}

func describeTurn(rec TurnRecord) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Turn %d: %q\n", rec.Number, rec.Input)
	if d := rec.Decision; d != nil {
		fmt.Fprintf(&b, "analyzer: %s → %s (%s, %.3f ms) %s\n", d.AnalyzerAction, d.Decision, d.Source, d.Timing.AnalyzerMS, d.Reasoning)
	}
	for _, c := range rec.Calls {
		tr := c.Trace
		fmt.Fprintf(&b, "call %s on %s: num_predict %d, window %d messages, sections %v, recall %v",
			tr.Agent, tr.Backend, tr.Options.NumPredict, tr.WindowLen, tr.Sections, tr.RecallRules)
		if m := tr.Metrics; m.PromptEvalCount > 0 {
			fmt.Fprintf(&b, ", prompt_eval %d tokens in %s", m.PromptEvalCount, m.PromptEvalDuration)
		}
		if tr.Retry != "" {
			fmt.Fprintf(&b, ", retry: %s", tr.Retry)
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// toolsFor is what agent a may call: its tools from the team file, when the model can call tools
// at all. Without tool support the engine's results are already in the dynamic context.
func (c *conversation) toolsFor(a agents.Agent) []llm.Tool {
	s, x := c.s, c.x
	if !s.cfg.Tools || x.engine == nil {
		return nil
	}
	return agents.Tools(a.Tools)
}

// runTools executes the model's tool calls against the engine and memory, each once it holds to
// the tools offered, and returns the exchange (the call, then each result) for the second call
// and the patient's interaction log.
func (c *conversation) runTools(agent string, offered []llm.Tool, call memory.Message) []memory.Message {
	s, t := c.s, c.t
	now := s.cfg.Now().UTC()
	asked := memory.Message{Role: memory.RoleAssistant, Agent: agent, Content: call.Content, At: now}
	var results []memory.Message
	for _, tc := range call.ToolCalls {
		// The ID reaches the next prompt, so it is made from the input's time, as the prompt's
		// other stamps are, and numbered within the turn, whose agents may each call tools.
		id := fmt.Sprintf("call_%d_%d", s.at.UnixNano(), t.toolCalls)
		t.toolCalls++
		asked.ToolCalls = append(asked.ToolCalls, memory.ToolCall{ID: id, Name: tc.Name, Args: tc.Args})
		content := c.runTool(offered, tc.Name, tc.Args)
		results = append(results, memory.Message{Role: memory.RoleTool, ToolCallID: id, ToolName: tc.Name, Content: content, At: now})
	}
	return append([]memory.Message{asked}, results...)
}

// runTool answers one call. Whatever the model sent, the answer is the engine's or a validation
// error the model can read; it never reaches the trainee as fact.
func (c *conversation) runTool(offered []llm.Tool, name string, args map[string]any) string {
	s := c.s
	if err := agents.CheckCall(offered, name, args); err != nil {
		return "error: " + err.Error()
	}
	mem := s.sim.memory(s.active)
	clock := s.sim.ward.Clock()
	var err error
	switch name {
	case agents.ToolCheckVitals:
		return c.checkVitalsTool()
	case agents.ToolRecordQuote:
		err = mem.AddQuote(clock, stringArg(args, "speaker"), stringArg(args, "quote"))
	case agents.ToolRecordAssessment:
		err = mem.AddAssessment(clock, stringArg(args, "finding"))
	default:
		err = fmt.Errorf("no tool named %q", name)
	}
	if err != nil {
		return "error: " + err.Error()
	}
	s.sim.dirty[s.active] = true
	return "recorded"
}

// checkVitalsTool measures the patient as a trainee's check would, so the reading is logged,
// scored and remembered like any other.
func (c *conversation) checkVitalsTool() string {
	s, t, e := c.s, c.t, c.x.engine
	events := e.Apply(action.Action{Kind: scenario.KindCheckVitals})
	s.recordEvents(t, events)
	emitSim(t.emit, events)
	r, _ := e.Measured()
	b, _ := json.Marshal(r)
	return string(b)
}

func stringArg(args map[string]any, key string) string {
	v, _ := args[key].(string)
	return v
}
