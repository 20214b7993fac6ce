package playback

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/ward-sim/ward/agents/eval"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/physio"
)

// scriptPatient is the patient an eval script plays with.
const scriptPatient = "patient_1"

// ScriptPlayer plays the evals' scripts on cfg, each on a new shift in a store of its own:
// scriptPatient is admitted on the script's scenario, then each line is a turn. wire completes
// the configuration once the shift's trace is set, as main wires a model's analyzer and router.
// The trace says which calls each line made; the engine, how conscious the patient was.
func ScriptPlayer(cfg session.Config, wire func(*session.Config)) eval.Player {
	return func(ctx context.Context, s eval.Script) (played eval.Played, err error) {
		dir, err := os.MkdirTemp("", "ward-eval-*")
		if err != nil {
			return played, err
		}
		defer os.RemoveAll(dir)
		store, err := persist.Open(filepath.Join(dir, "eval.db"))
		if err != nil {
			return played, err
		}
		defer store.Close()
		var trace bytes.Buffer
		cfg.Store, cfg.Trace, cfg.Shift = store, llm.NewTraceWriter(&trace), ""
		wire(&cfg)
		return playScript(ctx, cfg, s, &trace)
	}
}

func playScript(ctx context.Context, cfg session.Config, s eval.Script, trace *bytes.Buffer) (eval.Played, error) {
	var played eval.Played
	sess, err := session.Start(cfg)
	if err != nil {
		return played, err
	}
	var failure error
	sess.Turn(ctx, "/admit "+scriptPatient+" "+s.Scenario, func(ev session.Event) {
		if e, ok := ev.(session.ErrorEvent); ok {
			failure = errors.New(e.Message)
		}
	})
	if failure != nil {
		return played, failure
	}
	for _, line := range s.Lines {
		t := eval.PlayedTurn{Line: line}
		sess.Turn(ctx, line, func(ev session.Event) { t.Done = appendDone(t.Done, ev) })
		if e, _ := sess.Engine(scriptPatient); e != nil {
			v := e.TrueVitals()
			t.GCS, t.AVPU, t.Pulse = v.GCS, v.AVPU, !e.Rhythm().Arrest()
		}
		played.Turns = append(played.Turns, t)
	}
	runs, err := llm.ReadTrace(trace)
	if err != nil {
		return played, err
	}
	for _, c := range runs[0].Calls {
		if i := c.Turn - 2; i >= 0 && i < len(played.Turns) { // turn 1 is the admission
			played.Turns[i].Calls = append(played.Turns[i].Calls, c)
		}
	}
	if e, _ := sess.Engine(scriptPatient); e != nil {
		for _, er := range e.CriticalErrors() {
			played.CriticalErrors = append(played.CriticalErrors, eval.CriticalError{ID: er.ID, Description: er.Description})
		}
	}
	return played, nil
}

// appendDone adds what an engine event did to a turn's list: the action's kind, and the drug of
// a medication given.
func appendDone(done []string, ev session.Event) []string {
	sim, ok := ev.(session.SimEvent)
	if !ok || sim.Event.Kind != physio.EventAction {
		return done
	}
	a := sim.Event.Action
	done = append(done, string(a.Kind))
	if a.Drug != "" {
		done = append(done, a.Drug)
	}
	return done
}
