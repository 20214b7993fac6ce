package session

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/session/aar"
	"github.com/ward-sim/ward/themes"
)

// conversation is the converse stage: the team speaks through it (it is the team's Speaker), and
// it keeps what was said, for the next agent's prompt and for the record stage. Nothing here
// stores anything.
type conversation struct {
	s      *Session
	t      *turn
	x      *examination
	window []memory.Message // what the next agent sees: the prior conversation, then this turn's messages
	said   []memory.Message // this turn's messages, in order
	spoken int
}

// converse lets the team answer the trainee's text, after what ward says at the bedside: the
// Pharmacist's word on the turn's orders, the nurse's confirmations and a relative's answers.
// When the turn was nothing but orders held back, the Pharmacist's word is the whole answer.
// After the team, the Monitor reads out what the engine measured if the team did not. It
// returns what was said, and the error that stopped the team, if one did: whatever was said
// before it is kept.
func (s *Session) converse(ctx context.Context, t *turn, prior []memory.Message, x *examination) ([]memory.Message, error) {
	c := &conversation{s: s, t: t, x: x, window: prior}
	if msg, ok := s.pharmacistSays(t, x); ok {
		c.keep(msg)
	}
	c.bedside()
	if x.onlyHeld() {
		return c.said, nil
	}
	_, err := s.cfg.Team.Run(ctx, prior, t.input, c)
	if err == nil {
		c.reportFindings()
	}
	return c.said, err
}

// bedside is what ward says before the team: the nurse confirming what was done, and a
// relative answering what the patient could not.
func (c *conversation) bedside() {
	if c.x.engine == nil {
		return
	}
	done := append(refusals(c.x.events), confirmations(c.x.events)...)
	if line := examinationLine(c.x.examined); line != "" {
		done = append(done, line)
	}
	if len(done) > 0 {
		c.keep(c.s.saySpoken(c.t, nurseAgent, strings.Join(done, " ")))
	}
	if len(c.x.bystander) > 0 {
		var told []string
		for _, d := range c.x.bystander {
			told = append(told, d.Text)
		}
		c.keep(c.s.saySpoken(c.t, bystanderSource(c.x.engine.Scenario().Bystander), strings.Join(told, "\n\n")))
	}
}

// reportFindings reads out what the engine measured this turn in the Monitor's voice when the
// team did not already hear from the Monitor: every measurement asked for is reported, whoever
// the turn was routed to. The lines are the engine's
// own, so they cost no model call and cannot misquote a number.
func (c *conversation) reportFindings() {
	x := c.x
	if x.engine == nil {
		return
	}
	if lines, _ := reportLines(x); len(lines) > 0 && !c.spokeThisTurn(agents.AgentMonitor) {
		c.keep(c.s.saySpoken(c.t, agents.AgentMonitor, strings.Join(lines, "\n")))
	}
}

func (c *conversation) spokeThisTurn(agent string) bool {
	return slices.ContainsFunc(c.said, func(m memory.Message) bool { return strings.EqualFold(m.Agent, agent) })
}

// Speak makes one agent answer, and counts the conversation passing to it from another agent
// (seed 002's agent switch) with whether it answered.
func (c *conversation) Speak(ctx context.Context, a agents.Agent, r agents.Route) (string, error) {
	switched := c.passesTo(a.Name)
	reply, err := c.speak(ctx, a, r)
	if switched {
		c.countSwitch(a.Name, err == nil)
	}
	return reply, err
}

// passesTo reports whether the team's agent who last spoke to this patient is another than agent.
func (c *conversation) passesTo(agent string) bool {
	for _, m := range slices.Backward(c.window) {
		if _, ok := c.s.cfg.Team.Agent(m.Agent); ok && m.Role == memory.RoleAssistant {
			return m.Agent != agent
		}
	}
	return false
}

// speak makes one agent answer: its prompt, a backend call, a second call for the missing parts
// of a compound answer, and the reply shown to the trainee.
func (c *conversation) speak(ctx context.Context, a agents.Agent, r agents.Route) (string, error) {
	reasoning := c.s.maskCase(r.Reasoning) // a model's words, which may guess at the case
	c.t.emit(RouteEvent{Agent: a.Name, Source: r.Source, Reasoning: reasoning})
	if r.Source == agents.RouteRouterFailed { // never silently, as with the analyzer
		c.t.emit(NoteEvent{PatientID: c.s.active, Stop: "router", Text: "The router model gave no usable answer (" + reasoning + "), so the " + a.Name + " takes the question."})
	}
	checklist := c.spoken == 0 && c.x.compound.IsCompound()
	c.spoken++
	c.retrieve(ctx, a)
	first := len(c.t.calls)
	defer func() { // once the reply is held to the record, so the trace says how it was
		for i := range c.t.calls[first:] {
			c.t.calls[first+i].Retrieved = c.s.cards.passagesFor(a, c.x)
		}
		c.s.writeTrace(c.t, c.t.calls[first:])
	}()
	p := c.s.prompt(a, c.x, c.window, c.s.heardBy(a, c.t))
	c.s.noticeWindow(c.t, c.window, c.s.cfg.Window.Apply(c.window, elapsed(c.x)))
	if checklist {
		p.Instruction = c.x.compound.Instruction()
	}
	reply, err := c.call(ctx, a, p, "")
	if err == nil && checklist {
		reply, err = c.completeChecklist(ctx, a, p, reply)
	}
	if err == nil {
		reply = c.heldToTheRecord(ctx, a, p, c.heldToTheFacts(ctx, a, p, reply))
	}
	if err == nil && strings.TrimSpace(reply) == "" {
		err = llm.ErrEmpty // the JSON arrived but said nothing
	}
	if err != nil {
		return "", err
	}
	msg := c.s.message(memory.RoleAssistant, a.Name, reply)
	msg.Content, msg.Sources = c.cite(a, reply)
	c.keep(msg)
	c.t.emit(MessageEvent{PatientID: c.s.active, Role: msg.Role, Agent: a.Name, Text: msg.Content, Sources: msg.Sources, At: msg.At})
	return msg.Content, nil
}

// Hear turns the team's gate and guard notes into turn events.
func (c *conversation) Hear(ev agents.TeamEvent) {
	switch ev.Kind {
	case agents.EventGate:
		c.t.emit(GateEvent{State: ev.Gate})
	case agents.EventNote:
		c.t.emit(NoteEvent{PatientID: c.s.active, Stop: ev.Stop, Text: ev.Text})
		c.countStop(ev.Stop)
	}
}

func (c *conversation) keep(msgs ...memory.Message) {
	c.said = append(c.said, msgs...)
	c.window = append(c.window, msgs...)
}

// completeChecklist asks once more, for the missing parts only, when a compound answer skipped
// some of them. The two answers are shown as one.
func (c *conversation) completeChecklist(ctx context.Context, a agents.Agent, p agents.Prompt, reply string) (string, error) {
	missing := slices.DeleteFunc(memory.Missing(c.x.compound.Checklist, reply), func(p memory.Part) bool {
		return c.x.disclosedIn(p, reply)
	})
	if len(missing) == 0 {
		return reply, nil
	}
	p.Window = append(slices.Clone(p.Window), memory.Message{Role: memory.RoleUser, Content: p.User}, memory.Message{Role: memory.RoleAssistant, Content: reply})
	p.User, p.Instruction = memory.FollowUp(missing), ""
	more, err := c.call(ctx, a, p, "checklist: missing parts")
	if err != nil || strings.TrimSpace(more) == strings.TrimSpace(reply) {
		return reply, nil // the first answer stands; the gap is in the trace
	}
	return reply + "\n\n" + more, nil
}

// heldToTheRecord keeps an agent's reply true to the engine, whoever wrote it: the Patient says
// no more than their consciousness allows, the Monitor reads out every measurement of the turn,
// and the Preceptor's debrief names every critical error, missed critical action and near miss.
func (c *conversation) heldToTheRecord(ctx context.Context, a agents.Agent, p agents.Prompt, reply string) string {
	x := c.x
	switch {
	case x.engine == nil:
	case a.Name == agents.AgentPatient:
		bounded, cut := boundSpeech(reply, x.speech, looks(x.engine.Felt(), x.speech))
		if cut {
			c.held(fmt.Sprintf("the patient said more than one who %s can; the engine's description replaced it", x.speech))
		}
		return bounded
	case a.Name == agents.AgentMonitor:
		lines, needles := reportLines(x)
		if missing := unreported(reply, lines, needles); len(missing) > 0 {
			c.held(fmt.Sprintf("the readout left out %d of the engine's measurements; they were added", len(missing)))
			return reply + "\n\nFrom the monitor:\n- " + strings.Join(missing, "\n- ")
		}
	case a.Name == agents.AgentPreceptor && x.review != nil:
		return c.completeDebrief(ctx, a, p, reply)
	}
	return reply
}

// completeDebrief holds a debrief to the review: when it leaves out a critical error, a missed
// critical action or a near miss, the Preceptor is asked once more for what is missing, and whatever is still
// missing then leads the debrief in the review's own words.
func (c *conversation) completeDebrief(ctx context.Context, a agents.Agent, p agents.Prompt, reply string) string {
	missing := c.x.review.Unnamed(reply)
	if len(missing) == 0 {
		return reply
	}
	p.Window = append(slices.Clone(p.Window), memory.Message{Role: memory.RoleUser, Content: p.User}, memory.Message{Role: memory.RoleAssistant, Content: reply})
	p.User, p.Instruction = debriefFollowUp(missing), ""
	more, err := c.call(ctx, a, p, "debrief: missing critical points")
	if more = themes.Printable(more); err == nil && strings.TrimSpace(more) != "" && c.s.vetter(a.Name, c.x, p).why(more) == "" {
		reply += "\n\n" + more // held to the record as the first answer was; the review's lines below fill any gap
	}
	if missing = c.x.review.Unnamed(reply); len(missing) == 0 {
		return reply
	}
	c.held(fmt.Sprintf("the debrief still left out %d critical points; the review's own lines lead it", len(missing)))
	return "**From the record** (the debrief below leaves these out):\n- " + strings.Join(pointLines(missing), "\n- ") + "\n\n" + reply
}

// held notes on the turn's last call how ward changed its reply, for the inspector and the trace.
func (c *conversation) held(why string) {
	if n := len(c.t.calls); n > 0 {
		c.t.calls[n-1].Held, c.t.calls[n-1].Trace.Held = why, why
	}
}

func debriefFollowUp(missing []aar.Point) string {
	return "Your debrief left out what the review records. Name each of these plainly, first, and say what to do instead:\n- " +
		strings.Join(pointLines(missing), "\n- ")
}

func pointLines(points []aar.Point) []string {
	out := make([]string, len(points))
	for i, pt := range points {
		out[i] = pt.Labelled()
	}
	return out
}
