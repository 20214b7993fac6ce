package playback

import (
	"context"
	"strings"
	"testing"

	"github.com/ward-sim/ward/session"
)

// A shift the instructor steered replays as it was played: each injection and the end are
// inputs of the trace, and the team's prompts after them (which hear the nurse's call, the
// result and the relative) are sent byte for byte as recorded.
func TestReplayOfAnInjectedShift(t *testing.T) {
	runs := recordShift(t, func(*session.Config) {}, func(t *testing.T, s *session.Session) {
		ctx := context.Background()
		ignore := func(session.Event) {}
		s.Turn(ctx, "/admit patient_1 anaphylaxis", ignore)
		s.Turn(ctx, "What happened to you?", ignore)
		for _, in := range []session.Injection{
			{Kind: session.InjectDeterioration, PatientID: "patient_1", State: "shock"},
			{Kind: session.InjectResult, PatientID: "patient_1", Text: "tryptase raised"},
			{Kind: session.InjectDeterioration, PatientID: "patient_1", State: "no-such-state"}, // refused, in the recording too
			{Kind: session.InjectAdmission, Scenario: "hypoglycaemia"},
		} {
			_ = s.Inject(ctx, in, ignore)
		}
		s.Turn(ctx, "How are you feeling now?", ignore)
		if err := s.End(ignore); err != nil {
			t.Fatal(err)
		}
		s.Turn(ctx, "/aar", ignore)
	})
	var ops []string
	for _, in := range runs[0].Inputs {
		ops = append(ops, in.Op)
	}
	if got := strings.Join(ops, " "); !strings.Contains(got, "turn turn inject inject inject inject turn end turn") {
		t.Fatalf("inputs: %s", got)
	}
	if len(runs[0].Calls) < 3 {
		t.Fatalf("recorded %d calls", len(runs[0].Calls))
	}
	if d := replayShift(t, runs, nil, func(*session.Config) {}); d != nil {
		t.Fatalf("the replay diverged:\n%s", d)
	}
}
