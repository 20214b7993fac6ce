package llm

import (
	"testing"
	"time"
)

func TestPaceExpect(t *testing.T) {
	floor, first := 8*time.Second, 2*time.Minute
	if got := (Pace{}).Expect(1000, 100, floor, first); got != first {
		t.Errorf("unmeasured: %s, want the first-call allowance %s", got, first)
	}
	gpu := Pace{PromptPerByte: 25 * time.Microsecond, ReplyPerToken: 10 * time.Millisecond}
	if got := gpu.Expect(4000, 100, floor, first); got != floor {
		t.Errorf("fast model: %s, want the floor %s", got, floor)
	}
	cpu := Pace{PromptPerByte: 1250 * time.Microsecond, ReplyPerToken: 100 * time.Millisecond}
	if got := cpu.Expect(8000, 200, floor, first); got != 4*(10*time.Second+20*time.Second) {
		t.Errorf("slow model: %s, want four times the 30 s it should take", got)
	}
}
