package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"time"

	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/agents/replay"
	"github.com/ward-sim/ward/persist"
)

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

// ReplayTrace replays the runs of a trace in order on base's store and definitions, each with a
// backend that answers from its recording; wire completes each run's configuration as the
// recording ward did (a model's analyzer and router). It returns the first divergence, or nil
// when every run sent every request as recorded.
func ReplayTrace(ctx context.Context, base Config, runs []llm.TraceRun, wire func(*Config)) (*replay.Divergence, error) {
	for i, run := range runs {
		cfg, err := replayConfig(base, run.Header)
		if err != nil {
			return nil, err
		}
		backend := replay.NewBackend(run)
		var sent bytes.Buffer
		cfg.Backend, cfg.Trace = backend, llm.NewTraceWriter(&sent)
		wire(&cfg)
		if err := replayRun(ctx, cfg, run, backend.Stopped); err != nil {
			return nil, fmt.Errorf("run %d: %w", i+1, err)
		}
		replayed, err := llm.ReadTrace(&sent)
		if err != nil || len(replayed) != 1 {
			return nil, fmt.Errorf("run %d: the replay's own trace: %d runs, %v", i+1, len(replayed), err)
		}
		stopped, diverged := backend.Diverged()
		if !diverged {
			stopped = -1
		}
		if d := replay.Diverge(i+1, run, replayed[0].Calls, stopped); d != nil {
			return d, nil
		}
	}
	return nil, nil
}

// replayConfig is cfg with the settings of a recorded run: the ones its prompts depend on.
func replayConfig(cfg Config, h llm.TraceHeader) (Config, error) {
	pattern, err := regexp.Compile(h.PatientIDPattern)
	if err != nil {
		return cfg, fmt.Errorf("%w: its PATIENT_ID_PATTERN %q: %v", replay.ErrUnreplayable, h.PatientIDPattern, err)
	}
	cfg.Pattern, cfg.Window, cfg.Tools = pattern, h.Window, h.Tools
	cfg.NumCtx, cfg.OutputBudget = h.NumCtx, h.OutputBudget
	cfg.Seed, cfg.Shift, cfg.ConfirmAdmissions = h.Seed, h.Shift, h.ConfirmAdmissions
	if h.KnowledgeHash == "" {
		cfg.Knowledge = nil // the recording answered from no cards
	}
	cfg.recorded = &h
	if h.Trainee == "" {
		return cfg, nil
	}
	if err := cfg.Store.SignIn(persist.Person{Trainee: h.Trainee}, nil); err != nil {
		return cfg, err
	}
	if h.Prefs != nil {
		return cfg, cfg.Store.PutPrefs(h.Trainee, h.Prefs)
	}
	return cfg, nil
}

// replayRun starts the run's shift at its start time, or resumes it, then hands the session each
// recorded input at its recorded time, until stop says to end early.
func replayRun(ctx context.Context, cfg Config, run llm.TraceRun, stop func() bool) error {
	clock := &replayClock{at: run.Header.StartedAt}
	cfg.Now = clock.now
	if run.Header.EmbedModel != "" {
		cfg.retrievals = &recordedRetrievals{left: run.Retrievals}
	}
	start := Start
	if run.Header.Resumed {
		start = Resume
	}
	s, err := start(cfg)
	if err != nil {
		return err
	}
	if s.ID() != run.Header.SessionID {
		return fmt.Errorf("%w: the replay's shift is %s, the recording's %s", replay.ErrUnreplayable, s.ID(), run.Header.SessionID)
	}
	for _, in := range run.Inputs {
		if stop() {
			break
		}
		clock.at, clock.n = in.At, 0
		if err := s.replay(ctx, in); err != nil {
			return err
		}
	}
	return s.Flush()
}

// replay hands the session one recorded input, as the runner or the screen did.
func (s *Session) replay(ctx context.Context, in llm.TraceInput) error {
	ignore := func(Event) {}
	switch in.Op {
	case llm.InputTurn:
		s.Turn(ctx, in.Text, ignore)
	case llm.InputRetry:
		s.Retry(ctx, ignore)
	case llm.InputSwitch:
		s.Switch(in.Text, ignore)
	case llm.InputRestore:
		s.Restore(ignore)
	case llm.InputTick:
		s.Tick(in.Wall, ignore)
	default:
		return fmt.Errorf("%w: it holds an input this ward does not know: %q", replay.ErrUnreplayable, in.Op)
	}
	return nil
}

// replayClock gives the session the recorded wall time of the input it handles: exactly at the
// input's start, as the recording took it, then a nanosecond later at each reading, so messages
// keep distinct times.
type replayClock struct {
	at time.Time
	n  time.Duration
}

func (c *replayClock) now() time.Time {
	t := c.at.Add(c.n)
	c.n++
	return t
}
