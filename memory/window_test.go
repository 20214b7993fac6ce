package memory

import (
	"fmt"
	"testing"
)

// conversation returns n alternating user/assistant messages numbered from 0.
func conversation(n int) []Message {
	msgs := make([]Message, n)
	for i := range msgs {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		msgs[i] = Message{Role: role, Content: fmt.Sprintf("m%d", i)}
	}
	return msgs
}

func TestWindowSizes(t *testing.T) {
	before, after := 9*minute, 10*minute
	tests := []struct {
		name      string
		w         Window
		n         int
		elapsed   float64
		wantFirst int
		wantLen   int
	}{
		{"sliding, short history kept whole", SlidingWindow(), 6, before, 0, 6},
		{"sliding, 8 before 10 minutes", SlidingWindow(), 20, before, 12, 8},
		{"sliding, 10 from 10 minutes", SlidingWindow(), 20, after, 10, 10},
		{"block, starts at 8", DefaultWindow(), 8, before, 0, 8},
		{"block, grows to 15", DefaultWindow(), 15, before, 0, 15},
		{"block, drops back to 8", DefaultWindow(), 16, before, 8, 8},
		{"block, grows again", DefaultWindow(), 23, before, 8, 15},
		{"block, 10 minimum after 10 minutes", DefaultWindow(), 17, after, 0, 17},
		{"block, late jump", DefaultWindow(), 18, after, 8, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.w.Apply(conversation(tt.n), tt.elapsed)
			if len(got) != tt.wantLen || got[0].Content != fmt.Sprintf("m%d", tt.wantFirst) {
				t.Fatalf("got %d messages from %s, want %d from m%d", len(got), got[0].Content, tt.wantLen, tt.wantFirst)
			}
		})
	}
}

func TestWindowNeverStartsOnToolResult(t *testing.T) {
	tests := []struct {
		w         Window
		n, call   int // history length; the tool call's position, results follow at call+1, call+2
		wantFirst string
	}{
		{SlidingWindow(), 12, 3, "m6"},  // start would be 4, a result
		{DefaultWindow(), 20, 7, "m10"}, // block start would be 8, a result
	}
	for _, tt := range tests {
		msgs := conversation(tt.n)
		msgs[tt.call] = Message{Role: "assistant", ToolCalls: []ToolCall{{}, {}}}
		msgs[tt.call+1] = Message{Role: "tool", Content: "r1"}
		msgs[tt.call+2] = Message{Role: "tool", Content: "r2"}
		got := tt.w.Apply(msgs, 0)
		if got[0].Content != tt.wantFirst {
			t.Errorf("%s: window starts at %q, want %s, the first message after the split group", tt.w.Mode, got[0].Content, tt.wantFirst)
		}
	}
}

// In block mode the window's start stays put for most turns, so each prompt begins with the
// previous prompt's window: that is what lets Ollama reuse its KV cache. The sliding window
// moves its start every turn once the history outgrows it.
func TestBlockWindowKeepsPrefixStable(t *testing.T) {
	block, sliding := stableShare(DefaultWindow()), stableShare(SlidingWindow())
	t.Logf("turns that extend the previous window over 40 exchanges: block %.0f%%, sliding %.0f%%", block*100, sliding*100)
	if block < 0.70 || block <= sliding {
		t.Errorf("block keeps the prefix on %.0f%% of turns (sliding %.0f%%), want >= 70%% and more than sliding", block*100, sliding*100)
	}
}

// stableShare plays 40 exchanges of a user line and a reply, 30 sim seconds apart, and returns
// the share of turns whose window starts where the previous one did and holds all of it.
func stableShare(w Window) float64 {
	stable, turns := 0, 0
	var prev []Message
	for exchange := 1; exchange <= 40; exchange++ {
		win := w.Apply(conversation(2*(exchange-1)), float64(exchange)*30)
		if len(prev) > 0 {
			turns++
			if len(win) >= len(prev) && win[0].Content == prev[0].Content {
				stable++
			}
		}
		prev = win
	}
	return float64(stable) / float64(turns)
}
