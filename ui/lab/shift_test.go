package lab

import (
	"context"
	"errors"
	"testing"

	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/live"
	"github.com/ward-sim/ward/session/sessiontest"
)

// Once its screen is gone a shift starts nothing a late command asks for: no turn, no new
// shift, no switch.
func TestAShiftWhoseScreenIsGoneStartsNothing(t *testing.T) {
	r := sessiontest.Trainee(t, "alice")
	restarted := false
	sh := &shift{gone: make(chan struct{})}
	sh.Live = live.NewLive(r.S, func(string, string) (*session.Session, error) {
		restarted = true
		return nil, errors.New("not here")
	})
	sh.stop()
	if _, open := <-sh.Submit(context.Background(), "review patient_1"); open {
		t.Error("a turn ran after the screen was gone")
	}
	if err := sh.Start(context.Background(), "quiet-night", "alice"); !errors.Is(err, errGone) || restarted {
		t.Errorf("a start after the screen was gone: %v (restarted %v)", err, restarted)
	}
	if err := sh.Switch(context.Background(), "patient_1"); !errors.Is(err, errGone) {
		t.Errorf("a switch after the screen was gone: %v", err)
	}
}
