// Package playback plays inputs into fresh shifts, as tools do: a trace's recorded inputs, to
// check that ward sends every request as recorded (`ward replay`, the prompt regression), and
// the evals' scripts (`ward eval`).
package playback

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
	"github.com/ward-sim/ward/session"
)

// ReplayTrace replays the runs of a trace in order on base's store and definitions, each with a
// backend that answers from its recording; wire completes each run's configuration as the
// recording ward did (a model's analyzer and router). It returns the first divergence, or nil
// when every run sent every request as recorded.
func ReplayTrace(ctx context.Context, base session.Config, runs []llm.TraceRun, wire func(*session.Config)) (*replay.Divergence, error) {
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
func replayConfig(cfg session.Config, h llm.TraceHeader) (session.Config, error) {
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
func replayRun(ctx context.Context, cfg session.Config, run llm.TraceRun, stop func() bool) error {
	clock := &replayClock{at: run.Header.StartedAt}
	cfg.Now = clock.now
	cfg.Replaying = &run
	start := session.Start
	if run.Header.Resumed {
		start = session.Resume
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
		if err := replayInput(ctx, s, in); err != nil {
			return err
		}
	}
	return s.Flush()
}

// replayInput hands the session one recorded input, as the runner or the screen did.
func replayInput(ctx context.Context, s *session.Session, in llm.TraceInput) error {
	ignore := func(session.Event) {}
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
	case llm.InputInject:
		var injected session.Injection
		if err := json.Unmarshal([]byte(in.Text), &injected); err != nil {
			return fmt.Errorf("%w: an injection it holds is unreadable: %v", replay.ErrUnreplayable, err)
		}
		_ = s.Inject(ctx, injected, ignore) // refused as the recording's was, or applied as it was
	case llm.InputEnd:
		_ = s.End(ignore)
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
