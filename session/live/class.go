package live

import (
	"context"
	"github.com/ward-sim/ward/session/aar"
	"time"

	"github.com/ward-sim/ward/session"
)

// What the instructor's board (ui/board) reads of a trainee's shift and does to it. Reading never
// waits for a running turn, as Snapshot does not; injecting and ending hold the Live's lock, as a
// turn does, so a trainee's turn and the instructor's change never run at once, and the trainee's
// screen sees the change at its next snapshot.

// Standing is a shift as the instructor's board shows it: the score so far and what may be
// injected.
type Standing struct {
	// Score and Max are the patients' After Action Review scores added up, as the debrief would
	// give them if the shift ended now.
	Score, Max int
	Patients   []PatientStanding // roster order
	Choices    session.Choices   // the states and scenarios an injection may name
	Ended      bool              // the instructor ended the shift
	At         time.Time         // when it was read
}

// PatientStanding is one patient's case as the instructor sees it, the engine's state included.
type PatientStanding struct {
	ID, Scenario, State string
	Score, Max          int
	CriticalErrors      int
	Closed              bool // the patient has gone, or the instructor ended the case
}

// standingEvery is the least time between two readings of the score: each reviews every
// patient's record, and the board asks every second for every trainee.
const standingEvery = time.Second

// Standing returns the shift's latest standing, read again when it is older than standingEvery
// and no turn is running; the zero Standing until it was first read.
func (e *Live) Standing() Standing {
	last := e.standing.Load()
	if (last == nil || time.Since(last.At) >= standingEvery) && e.mu.TryLock() {
		st := e.readStanding()
		e.standing.Store(&st)
		e.mu.Unlock()
		return st
	}
	if last == nil {
		return Standing{}
	}
	return *last
}

// readStanding reviews every patient as the debrief would now. The caller holds mu.
func (e *Live) readStanding() Standing {
	st := Standing{Choices: e.s.InjectChoices(), Ended: e.s.Ended(), At: time.Now()}
	for _, p := range e.s.Summaries() {
		ps := PatientStanding{ID: p.ID, State: p.State, Closed: p.Disposition != ""}
		if eng, _ := e.s.Engine(p.ID); eng != nil { // an unreadable patient scores nothing; the trainee's turn reports why
			r := aar.Of(eng)
			ps.Scenario, ps.Score, ps.Max, ps.CriticalErrors = r.Scenario, r.Score.Total, r.Score.Max, len(r.CriticalErrors)
			st.Score, st.Max = st.Score+ps.Score, st.Max+ps.Max
		}
		st.Patients = append(st.Patients, ps)
	}
	return st
}

// Inject applies an event the instructor injects into the shift (session.Inject), after letting
// the clock catch up as a turn does. A refused injection returns why and changes nothing.
func (e *Live) Inject(ctx context.Context, in session.Injection) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.tick()
	defer e.changedByInstructor()
	return e.s.Inject(ctx, in, e.hear)
}

// End ends the shift for debrief (session.End).
func (e *Live) End(context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.tick()
	defer e.changedByInstructor()
	return e.s.End(e.hear)
}

// changedByInstructor rebuilds the views after the instructor changed the shift, so the
// trainee's next snapshot and the board's next reading show it. The caller holds mu.
func (e *Live) changedByInstructor() {
	e.chat.valid = false
	e.refresh()
	st := e.readStanding()
	e.standing.Store(&st)
}
