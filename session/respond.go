package session

import (
	"context"
	"errors"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/persist"
)

// respond answers a turn that stayed clinical: roster questions from the registry, everything
// else from the backend.
func (s *Session) respond(ctx context.Context, t *turn) {
	if agents.IsRosterQuestion(t.input) {
		reg, ok := s.hydrate(t)
		if ok {
			s.reply(t, systemAgent, rosterAnswer(s.active, rosterIDs(reg)))
		}
		return
	}
	conv, err := s.Conversation()
	if err != nil {
		t.emit(ErrorEvent{Code: "STORAGE", Message: err.Error()})
		return
	}
	req := agents.Request{Agent: "Patient", Messages: memory.LoadRecent(conv, len(conv)), Scene: &agents.Scene{Agent: "Patient", ActivePatient: s.active}}
	resp, err := s.cfg.Backend.Chat(ctx, req, func(d string) {
		t.emit(DeltaEvent{PatientID: s.active, Agent: req.Agent, Text: d})
	})
	if err != nil {
		s.reportLLMError(t, err)
		return
	}
	s.reply(t, req.Agent, resp.Message.Content)
}

// reply stores an assistant message with the active conversation and shows it.
func (s *Session) reply(t *turn, agent, text string) {
	msg := persist.Message{Role: "assistant", Agent: agent, Content: text, At: s.cfg.Now().UTC()}
	if s.store(t, s.active, msg) {
		t.emit(MessageEvent{PatientID: s.active, Role: "assistant", Agent: agent, Text: text})
	}
}

func (s *Session) reportLLMError(t *turn, err error) {
	code := "LLM_ERROR"
	var unreachable *agents.UnreachableError
	var notFound *agents.ModelNotFoundError
	switch {
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
