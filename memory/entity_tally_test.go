package memory

import (
	"fmt"
	"testing"
	"time"
)

// A turn's row counts what the merges kept of what the model reported: a delta of eight keys
// into a window of seven keeps seven, one evicted; a refused delta keeps nothing and counts as
// refused, not merged; the rows of two turns stay apart.
func TestTalliesCountWhatTheMergeKept(t *testing.T) {
	var e Entities
	first, second := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC), time.Date(2026, 11, 28, 9, 1, 0, 0, time.UTC)
	eight := map[string]any{}
	for i := range MaxEntities + 1 {
		eight[fmt.Sprintf("topic_%d", i)] = i
	}
	if _, err := e.Merge(Delta{Agent: "Patient", At: first, Conversation: eight}); err != nil {
		t.Fatal(err)
	}
	e.ObserveParse(first, "Patient", ParseAgentOutput("not json"))
	if _, err := e.Merge(Delta{Agent: "Patient", At: second, Conversation: map[string]any{"bad key!": 1}}); err == nil {
		t.Fatal("a bad key was merged")
	}
	e.ObserveSwitch(second, "Nurse", false)
	if len(e.Tallies) != 3 {
		t.Fatalf("%d rows, want the Patient's in each turn and the Nurse's: %+v", len(e.Tallies), e.Tallies)
	}
	one := e.Tallies[0]
	if one.Reported != 8 || one.Kept != 7 || one.Evictions != 1 || one.Merges != 1 || one.Replies != 1 || one.ParseErrors != 1 || len(one.MergeNs) != 1 {
		t.Errorf("first turn: %+v", one)
	}
	if two := e.Tallies[1]; two.Refused != 1 || two.Merges != 0 || two.Reported != 0 {
		t.Errorf("second turn: %+v", two)
	}
	if nurse := e.Tallies[2]; nurse.Switches != 1 || nurse.SwitchFailures != 1 {
		t.Errorf("the Nurse's switch: %+v", nurse)
	}
	if e.Stats.Merges != 1 || e.Stats.Refused != 1 || e.Stats.ParseErrors != 1 {
		t.Errorf("the shift's counters: %+v", e.Stats)
	}
}
