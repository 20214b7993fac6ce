package session

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/persist"
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

// converse lets the team answer the trainee's text. It returns what was said, and the error that
// stopped the team, if one did: whatever was said before it is kept.
//
// The Pharmacist's word on the turn's orders comes first (pharmacistSays); when the turn was
// nothing but orders held back, it is the whole answer.
func (s *Session) converse(ctx context.Context, t *turn, prior []memory.Message, x *examination) ([]memory.Message, error) {
	c := &conversation{s: s, t: t, x: x, window: prior}
	if msg, ok := s.pharmacistSays(t, x); ok {
		c.keep(msg)
		if x.onlyHeld() {
			return c.said, nil
		}
	}
	_, err := s.cfg.Team.Run(ctx, prior, t.input, c)
	return c.said, err
}

// Speak makes one agent answer: its prompt, a backend call, a second call for the missing parts
// of a compound answer, and the reply shown to the trainee.
func (c *conversation) Speak(ctx context.Context, a agents.Agent, r agents.Route) (string, error) {
	c.t.emit(RouteEvent{Agent: a.Name, Source: r.Source, Reasoning: r.Reasoning})
	checklist := c.spoken == 0 && c.x.compound.IsCompound()
	c.spoken++
	p := c.s.prompt(a, c.x, c.window, c.t.input)
	if checklist {
		p.Instruction = c.x.compound.Instruction()
	}
	reply, err := c.call(ctx, a, p, "")
	if err == nil && checklist {
		reply, err = c.completeChecklist(ctx, a, p, reply)
	}
	if err == nil && strings.TrimSpace(reply) == "" {
		err = llm.ErrEmpty // the JSON arrived but said nothing
	}
	if err != nil {
		return "", err
	}
	msg := c.s.message(memory.RoleAssistant, a.Name, reply)
	c.keep(msg)
	c.t.emit(MessageEvent{PatientID: c.s.active, Role: msg.Role, Agent: a.Name, Text: reply, At: msg.At})
	return reply, nil
}

// Hear turns the team's gate and guard notes into turn events.
func (c *conversation) Hear(ev agents.TeamEvent) {
	switch ev.Kind {
	case agents.EventGate:
		c.t.emit(GateEvent{State: ev.Gate})
	case agents.EventNote:
		c.t.emit(NoteEvent{PatientID: c.s.active, Stop: ev.Stop, Text: ev.Text})
		c.s.countStop(ev.Stop)
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

// record is the last stage: it stores what the turn said with the active conversation, with the
// engine's changes, in one commit, then reports the error that stopped the turn.
func (s *Session) record(t *turn, said []memory.Message, failure error) {
	for i := range said {
		said[i].Sim = s.sim.ward.Clock()
	}
	err := t.storage(func() error {
		return s.cfg.Store.Update(s.info.ID, func(tx *persist.Tx) error {
			if err := tx.Append(s.active, said...); err != nil {
				return err
			}
			return s.saveSim(tx)
		})
	})
	if err != nil {
		t.emit(ErrorEvent{Code: CodeNotSaved, Message: "could not save the turn: " + err.Error()})
	} else {
		s.remember(said...)
	}
	if failure != nil {
		s.reportLLMError(t, failure)
	}
}

func (s *Session) reportLLMError(t *turn, err error) {
	code := "LLM_ERROR"
	var unreachable *llm.UnreachableError
	var notFound *llm.ModelNotFoundError
	var tooLong *agents.PromptTooLongError
	var stall *llm.StallError
	switch {
	case errors.As(err, &stall):
		code = "LLM_STALLED"
	case errors.As(err, &tooLong):
		code = "PROMPT_TOO_LONG"
	case errors.As(err, &unreachable):
		code = "LLM_UNREACHABLE"
	case errors.As(err, &notFound):
		code = "MODEL_NOT_FOUND"
	case errors.Is(err, llm.ErrEmpty):
		code = "LLM_EMPTY"
	case errors.Is(err, context.Canceled):
		code = "CANCELLED"
	}
	t.emit(ErrorEvent{Code: code, Message: err.Error()})
}

// wardSays is a reply from ward itself, shown at once and recorded with the turn.
func (s *Session) wardSays(t *turn, text string) memory.Message {
	msg := s.message(memory.RoleAssistant, systemAgent, text)
	t.emit(MessageEvent{PatientID: s.active, Role: msg.Role, Agent: systemAgent, Text: text, At: msg.At})
	return msg
}
