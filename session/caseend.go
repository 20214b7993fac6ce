package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/session/physio"
	sc "github.com/ward-sim/ward/session/scenario"
)

// cmdDiagnosis records the trainee's working diagnosis for the active patient. The reply says it
// was noted and never whether it is right: the debrief says that.
func (s *Session) cmdDiagnosis(ctx context.Context, t *turn, arg string) {
	if arg == "" {
		t.emit(ErrorEvent{Code: "USAGE", Message: "usage: /diagnosis TEXT — your working diagnosis, e.g. /diagnosis acute severe asthma (revise it any time)"})
		return
	}
	e := s.activeEngine(t)
	switch {
	case e == nil:
		return
	case e.Closed():
		s.caseRefused(t, e, physio.ErrClosed)
		return
	}
	t.hold(s.typed(t))
	earlier := e.Diagnoses()
	d, err := e.Diagnose(arg)
	if err != nil {
		s.caseRefused(t, e, err)
		return
	}
	if d.Verdict != sc.VerdictAccepted && d.Verdict != "" && s.beforeModelCall(t) == nil {
		s.secondOpinion(ctx, e, d)
	}
	s.sim.dirty[s.active] = true
	text := fmt.Sprintf("Working diagnosis noted at %s: %s.", physio.SimTime(e.Elapsed()), d.Text)
	if n := len(earlier); n > 0 {
		text = fmt.Sprintf("Working diagnosis revised at %s: %s (was %s).", physio.SimTime(e.Elapsed()), d.Text, earlier[n-1].Text)
	}
	s.record(t, []memory.Message{s.wardSays(t, text)}, nil)
}

// cmdDispo sends the active patient somewhere, which ends their case, and asks the first
// reflective question.
func (s *Session) cmdDispo(_ context.Context, t *turn, arg string) {
	if arg == "" {
		t.emit(ErrorEvent{Code: "USAGE", Message: "usage: /dispo " + strings.Join(sc.Dispositions, "|") + " — ends the case for the active patient"})
		return
	}
	e := s.activeEngine(t)
	if e == nil {
		return
	}
	d, err := e.Dispose(arg)
	if err != nil {
		s.caseRefused(t, e, err)
		return
	}
	s.sim.dirty[s.active] = true
	s.reg.noteSummary(s.active, summaryOf(e))
	text := fmt.Sprintf("%s leaves for %s at %s; the case is closed.", s.active, d.Place, physio.SimTime(e.Elapsed()))
	if len(e.Diagnoses()) == 0 {
		text += " No working diagnosis was given."
	}
	s.caseNote(t, text+" "+nextQuestion(e))
}

// afterCase answers a line to a patient whose case has ended: the answer to the waiting
// reflective question, or a word that the patient has gone. The engine is not asked: the
// patient has left the ward.
func (s *Session) afterCase(t *turn, e *physio.Engine) {
	if _, _, waiting := e.NextQuestion(); waiting {
		if err := e.Reflect(agents.WithoutMention(t.input)); err != nil {
			t.emit(ErrorEvent{Code: "USAGE", Message: err.Error()})
			return
		}
		s.sim.dirty[s.active] = true
		s.record(t, []memory.Message{s.wardSays(t, "Answer kept with the shift. "+nextQuestion(e))}, nil)
		return
	}
	s.record(t, []memory.Message{s.wardSays(t, closedWords(s.active, e)+". /aar reviews it; /switch ID attends another patient.")}, nil)
}

// closedWords say why a case is closed: where the patient went, or that the instructor ended it.
func closedWords(id string, e *physio.Engine) string {
	d, _ := e.Disposition()
	if d.Place == physio.PlaceEnded {
		return "The instructor ended " + id + "'s case for debrief; the case is closed"
	}
	return fmt.Sprintf("%s has gone to %s; the case is closed", id, d.Place)
}

// nextQuestion asks the next reflective question, or says the reflection is done.
func nextQuestion(e *physio.Engine) string {
	i, q, ok := e.NextQuestion()
	if !ok {
		if len(e.Scenario().Reflection) == 0 {
			return "Type /aar for the review."
		}
		return "Thank you — that was the last reflective question. Type /aar for the review."
	}
	return fmt.Sprintf("Reflection %d of %d: %s (type your answer)", i+1, len(e.Scenario().Reflection), q.Question)
}

// caseRefused says why a diagnosis or disposition was not taken.
func (s *Session) caseRefused(t *turn, e *physio.Engine, err error) {
	if errors.Is(err, physio.ErrClosed) {
		err = errors.New(closedWords(s.active, e))
	}
	t.emit(ErrorEvent{Code: "CASE", Message: err.Error()})
}

// caseNote stores the command with the patient's history and ward's answer after it.
func (s *Session) caseNote(t *turn, text string) {
	t.hold(s.typed(t))
	s.record(t, []memory.Message{s.wardSays(t, text)}, nil)
}

// secondOpinion asks the model, when there is one, about a diagnosis the rules did not accept,
// and records its verdict beside theirs; the offline backend has no opinion of its own to give.
func (s *Session) secondOpinion(ctx context.Context, e *physio.Engine, d physio.DiagnosisRecord) {
	b, key := s.cfg.Backend, e.Scenario().Diagnosis
	if b == nil || b.Name() == offlineBackend || key == nil {
		return
	}
	op := physio.SecondOpinion{Model: b.Model()}
	verdict, why, err := agents.SecondOpinion(ctx, b, key.Accepted, key.Differentials, d.Text)
	if err != nil {
		op.Why = "no answer: " + err.Error()
	} else {
		op.Verdict, op.Why = verdict, why
	}
	e.RecordSecondOpinion(op)
}

// offlineBackend is the offline backend's name.
const offlineBackend = "offline"

// Over reports whether the shift has nothing left to play: the instructor ended it, or every
// patient on it has gone (a disposition). The screen then offers the next shift rather than
// resuming this one without a word.
func (s *Session) Over() bool {
	sums := s.Summaries()
	return s.Ended() || (len(sums) > 0 && !slices.ContainsFunc(sums, func(p PatientSummary) bool { return p.Disposition == "" }))
}
