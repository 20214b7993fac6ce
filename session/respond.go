package session

import (
	"context"
	"errors"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/memory"
)

// respond answers a turn that stayed clinical: roster questions from the registry, everything
// else from the engine first and then the agent team.
func (s *Session) respond(ctx context.Context, t *turn) {
	if agents.IsRosterQuestion(t.input) {
		s.reply(t, systemAgent, s.rosterAnswer())
		return
	}
	ct := s.examine(t)
	history := s.priorHistory(t)
	_, err := s.cfg.Team.Run(ctx, history, t.input, s.speaker(t, ct), func(ev agents.TeamEvent) { s.teamEvent(t, ev) })
	if err != nil {
		s.reportLLMError(t, err)
	}
	s.saveSimChanges(t) // what the engine did, even when no agent spoke
}

func (s *Session) saveSimChanges(t *turn) {
	err := t.storage(s.Flush)
	if err != nil {
		t.emit(ErrorEvent{Code: "STORAGE", Message: "could not save the simulation state: " + err.Error()})
	}
}

// teamEvent turns the team's routing, gate and guard notes into turn events.
func (s *Session) teamEvent(t *turn, ev agents.TeamEvent) {
	switch ev.Kind {
	case agents.EventRoute:
		t.emit(RouteEvent{Agent: ev.Agent, Source: ev.Source, Reasoning: ev.Reasoning})
	case agents.EventGate:
		t.emit(GateEvent{State: ev.Gate})
	case agents.EventNote:
		t.emit(NoteEvent{PatientID: s.active, Stop: ev.Stop, Text: ev.Text})
		s.countStop(ev.Stop)
	}
}

// reply stores an assistant message with the active conversation and shows it.
func (s *Session) reply(t *turn, agent, text string) {
	msg := memory.Message{Role: "assistant", Agent: agent, Content: text, At: s.cfg.Now().UTC()}
	if s.store(t, s.active, msg) {
		t.emit(MessageEvent{PatientID: s.active, Role: "assistant", Agent: agent, Text: text, At: msg.At})
	}
}

func (s *Session) reportLLMError(t *turn, err error) {
	code := "LLM_ERROR"
	var unreachable *agents.UnreachableError
	var notFound *agents.ModelNotFoundError
	var tooLong *agents.PromptTooLongError
	switch {
	case errors.As(err, &tooLong):
		code = "PROMPT_TOO_LONG"
	case errors.As(err, &unreachable):
		code = "LLM_UNREACHABLE"
	case errors.As(err, &notFound):
		code = "MODEL_NOT_FOUND"
	case errors.Is(err, agents.ErrEmpty):
		code = "LLM_EMPTY"
	case errors.Is(err, context.Canceled):
		code = "CANCELLED"
	}
	t.emit(ErrorEvent{Code: code, Message: err.Error()})
}
