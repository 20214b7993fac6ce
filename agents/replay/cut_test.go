package replay

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/ward-sim/ward/agents/llm"
)

// A trace cut at any byte reads as its whole lines and says where it stops (or, cut at a line's
// end, reads as if whole); Whole keeps of the last run only the turns before its last, with
// every call and retrieval of those turns.
func FuzzWholeOfACutTrace(f *testing.F) {
	trace, err := os.ReadFile("testdata/recall-a.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	for _, at := range []int{0, 1, len(trace) / 3, len(trace) / 2, len(trace) - 2, len(trace)} {
		f.Add(at)
	}
	f.Fuzz(func(t *testing.T, at int) {
		if at < 0 || at > len(trace) {
			return
		}
		cut := trace[:at]
		runs, err := llm.ReadTrace(bytes.NewReader(cut))
		var c *llm.CutError
		switch {
		case errors.As(err, &c):
			if whole := bytes.Count(cut, []byte("\n")); c.Line != whole+1 {
				t.Fatalf("cut at byte %d: line %d, want %d", at, c.Line, whole+1)
			}
		case err != nil:
			t.Fatalf("cut at byte %d: %v", at, err)
		}
		kept, turn := Whole(runs)
		if len(kept) != len(runs) {
			t.Fatalf("Whole dropped a run: %d of %d", len(kept), len(runs))
		}
		if len(kept) == 0 {
			return
		}
		last := kept[len(kept)-1]
		for _, call := range last.Calls {
			if call.Turn > turn {
				t.Fatalf("call of turn %d kept, the last whole turn is %d", call.Turn, turn)
			}
		}
		inputs := 0
		for _, in := range last.Inputs {
			if in.Op != llm.InputTick {
				inputs++
			}
		}
		if inputs != turn {
			t.Fatalf("%d turns' inputs kept, want %d", inputs, turn)
		}
	})
}
