package ui

import (
	"strings"
	"testing"

	"github.com/ward-sim/ward/session/live"
)

// A reply another screen's turn is streaming (a team member's) shows as it grows, at each
// snapshot, and once stored it shows once, from the history.
func TestAnotherScreensReplyShowsAsItStreams(t *testing.T) {
	f := newFakeWard()
	m := newTestModel(t, f, 100, 30)
	state := f.Snapshot()
	state.Writing = []live.Writing{{ID: "live-7", Agent: "Nurse", Text: "Adrenaline 1 mg IV is"}}
	m.Update(snapshotMsg{state: state})
	if s := screen(m); !strings.Contains(s, "Adrenaline 1 mg IV is") {
		t.Fatalf("the reply streaming on another screen is not shown:\n%s", s)
	}
	state.Writing[0].Text += " in; flushed with 20 mL."
	m.Update(snapshotMsg{state: state})
	if s := screen(m); !strings.Contains(s, "flushed with 20 mL") {
		t.Fatalf("the reply did not grow:\n%s", s)
	}
	state.Writing = nil
	state.Chat = append(state.Chat, live.ChatMessage{ID: "live-7", Role: "assistant", Agent: "Nurse", Content: "Adrenaline 1 mg IV is in; flushed with 20 mL."})
	m.Update(snapshotMsg{state: state})
	if n := strings.Count(screen(m), "flushed with 20 mL"); n != 1 {
		t.Errorf("the stored reply shows %d times:\n%s", n, screen(m))
	}
}

// A screen whose own turn is running shows its own deltas, never the view's copy of them twice.
func TestOwnTurnIgnoresTheViewsWriting(t *testing.T) {
	f := newFakeWard()
	m := newTestModel(t, f, 100, 30)
	m.turn = &turn{}
	state := f.Snapshot()
	state.Writing = []live.Writing{{ID: "live-1", Agent: "Nurse", Text: "written on the view"}}
	m.applyState(state)
	if strings.Contains(screen(m), "written on the view") {
		t.Errorf("a screen with its own turn running drew the view's writing:\n%s", screen(m))
	}
}
