package session

import (
	"time"

	"github.com/ward-sim/ward/agents/llm"
)

// advance lets seconds of sim time pass for every patient on the ward. The engine steps one sim
// second at a time, so a long wait and many short ticks end in the same state.
func (s *Session) advance(t *turn, seconds float64) {
	if err := s.sim.wakeAll(); err != nil {
		t.emit(ErrorEvent{Code: "STORAGE", Message: "some patients could not be read, and time passes without them: " + err.Error()})
	}
	events := s.sim.ward.Advance(seconds)
	s.recordEvents(events)
	for _, e := range s.sim.ward.Engines() {
		s.sim.dirty[e.PatientID()] = true
	}
	for _, ev := range events {
		t.emit(SimEvent{ev})
	}
	s.tellAlerts(t, events)
}

// Tick moves the real-time clock of the TUI on by a wall-clock interval, at the session's speed,
// unless it is paused. `ward run` never calls it: there time passes only by /wait, so headless
// runs are deterministic. The sim state is saved with the next commit, or by Flush.
func (s *Session) Tick(wall time.Duration, emit func(Event)) {
	if s.paused || wall <= 0 {
		return
	}
	s.begin(llm.TraceInput{Op: llm.InputTick, Wall: wall}, emit)
	s.advance(&turn{emit: emit}, wall.Seconds()*s.speed)
}

// Flush saves what the clock changed since the last commit; the TUI calls it every few seconds
// and on exit, so a crash loses at most that much sim time and never a message. With nothing to
// save it makes no commit.
func (s *Session) Flush() error {
	if len(s.sim.dirty) == 0 && s.sim.ward.Clock() == s.info.ClockSeconds {
		return nil
	}
	return s.cfg.Store.Update(s.info.ID, s.saveSim)
}
