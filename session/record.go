package session

import (
	"context"
	"errors"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/persist"
)

// The record stage is the one place a turn writes to the store. What the turn owes the store
// rides on the turn (pending) until a commit takes it: commit writes it on its own, before
// anything waits; record writes it with what the turn said, in the turn's one commit.

// pending is what a turn owes the store: the trainee's line, a switch of patient (the registry
// goes with it), the alarms told.
type pending struct {
	line  *typedText // the trainee's line, held for the turn's next commit (hold)
	moved bool       // the turn switched patient: the registry goes with its next commit
	told  []told     // alarms told, for the turn's next commit
}

// hold keeps the typed line for the turn's next commit, which writes it first: a line the rules
// placed goes to disk with what answers it, in the turn's one commit. Before a model is asked,
// beforeModelCall commits it on its own, and endTurn commits a line still held, so it is durable
// before anything waits and before the turn is acknowledged.
func (p *pending) hold(typed *typedText) {
	if typed != nil && !typed.stored {
		p.line = typed
	}
}

// holdsLine reports whether the turn holds a line no commit has taken yet.
func (p *pending) holdsLine() bool { return p.line != nil && !p.line.stored }

// holds reports whether the turn holds anything the store must have before it is acknowledged:
// the line, a switch, the alarms it told.
func (p *pending) holds() bool { return p.holdsLine() || p.moved || len(p.told) > 0 }

// write puts what is owed in b: the line first, so it stays above whatever answers it, then the
// alarms told.
func (p pending) write(b *persist.Batch) error {
	if p.holdsLine() {
		if err := p.line.write(b); err != nil {
			return err
		}
	}
	for _, m := range p.told {
		if err := b.Append(m.patient, m.msg); err != nil {
			return err
		}
	}
	return nil
}

// stored marks what p wrote as the store's, and returns the messages it added to conversations,
// in the order written.
func (p pending) stored() []line {
	var out []line
	if p.holdsLine() {
		p.line.stored, p.line.from = true, ""
		out = append(out, line{p.line.to, p.line.msg})
	}
	for _, m := range p.told {
		out = append(out, line{m.patient, m.msg})
	}
	return out
}

// commit writes, in one durable commit, the line the turn holds (typed, if given), the registry
// when the turn switched patient, and whatever the sim changed since the last commit. It reports
// whether everything was written.
func (s *Session) commit(t *turn, typed *typedText) bool {
	t.hold(typed)
	if !t.holds() {
		return true
	}
	if err := s.update(t, nil); err != nil {
		t.emit(ErrorEvent{Code: CodeNotSaved, Message: "could not save the message: " + err.Error()})
		return false
	}
	return true
}

// update is every durable commit a turn makes, and the one place the typed text is stored: what
// the turn owes first (the line, the alarms it told), then said in the active conversation, then
// what the sim changed (a switch's registry with it).
func (s *Session) update(t *turn, said []memory.Message) error {
	owed := t.pending
	err := t.storage(func() error {
		return s.store(func(b *persist.Batch) error {
			if err := owed.write(b); err != nil {
				return err
			}
			return b.Append(s.active, said...)
		})
	})
	if err != nil {
		return err
	}
	t.moved, t.told = false, nil
	for _, l := range owed.stored() {
		if l.conv == s.active {
			s.chat.remember(l.msg)
		}
	}
	return nil
}

// record is the last stage: it stores what the turn said with the active conversation, after the
// line the turn holds and with the engine's changes, in one commit, then reports the error that stopped the turn. A turn with
// nothing left to store (its alarms' commit took the sim's changes) makes no commit.
func (s *Session) record(t *turn, said []memory.Message, failure error) {
	for i := range said {
		said[i].Sim = s.sim.ward.Clock()
	}
	if len(said) == 0 && !s.simUnsaved() && !t.holdsLine() {
		s.reportFailure(t, failure)
		return
	}
	err := s.update(t, said)
	if err != nil {
		t.emit(ErrorEvent{Code: CodeNotSaved, Message: "could not save the turn: " + err.Error()})
	} else {
		s.chat.remember(said...)
	}
	s.reportFailure(t, failure)
}

func (s *Session) reportFailure(t *turn, failure error) {
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

// store commits, in one durable commit, what write adds to a batch and then the sim's changes
// (saveSim). Both are encoded (and sealed, in an encrypted file) here, in the caller's goroutine:
// the commit's writer, which every session on the file shares, only puts the bytes.
func (s *Session) store(write func(*persist.Batch) error) error {
	b, err := s.cfg.Store.NewBatch(s.info.ID)
	if err != nil {
		return err
	}
	if err := write(b); err != nil {
		return err
	}
	if err := s.saveSim(b); err != nil {
		return err
	}
	return s.cfg.Store.Update(s.info.ID, func(tx *persist.Tx) error { return tx.Write(b) })
}

// saveSim encodes the sim's changes since the last commit, the roster summaries they changed and
// the shift's clock and trainee (named at resume), into b. They count as saved once b's
// transaction commits: one rolled back, or run again in a group commit (persist.Store.Update),
// writes them again.
func (s *Session) saveSim(b *persist.Batch) error {
	if s.reg.unsaved {
		if err := b.PutRegistry(s.reg.Registry); err != nil {
			return err
		}
		b.OnCommit(func() { s.reg.unsaved = false })
	}
	if err := s.sim.save(b); err != nil {
		return err
	}
	if clock := s.sim.ward.Clock(); clock != s.info.ClockSeconds || s.named {
		info := s.info
		info.ClockSeconds = clock
		b.OnCommit(func() { s.info.ClockSeconds, s.named = clock, false })
		return b.PutInfo(info)
	}
	return nil
}

// simUnsaved reports whether saveSim has anything to write: a dirty patient, a roster summary,
// the clock or the trainee's name.
func (s *Session) simUnsaved() bool {
	return len(s.sim.dirty) > 0 || s.reg.unsaved || s.sim.ward.Clock() != s.info.ClockSeconds || s.named
}
