package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ward-sim/ward/session/live"
)

// answerTokens is a long markdown answer: paragraphs, a list, a code
// block, as a model writes them, split into n tokens.
func answerTokens(n int) []string {
	var b strings.Builder
	for i := 0; len(tokens(b.String())) < n; i++ {
		switch i % 4 {
		case 1:
			b.WriteString("- airway patent\n- breathing laboured, wheeze\n- circulation: cool peripheries\n\n")
		case 3:
			b.WriteString("```\nHR 121  RR 24  SpO2 91%\n```\n\n")
		default:
			fmt.Fprintf(&b, "Paragraph %d. My chest feels **tight** and my lips are tingling; it started after lunch "+
				"and has been getting worse, and now I feel light-headed when I sit up.\n\n", i)
		}
	}
	return tokens(b.String())[:n]
}

func TestCollectCoalescesEverythingAvailable(t *testing.T) {
	events := make(chan live.Update, 2000)
	for _, tok := range answerTokens(2000) {
		events <- live.Update{Kind: live.UpdateDelta, MessageID: "m", Text: tok}
	}
	close(events)
	batch, done := collect(events, time.Hour)
	if len(batch) != 2000 || !done {
		t.Fatalf("one window should take all 2000 deltas and see the close: got %d, done=%v", len(batch), done)
	}
}

func TestStreamingRerendersOnlyTheUnstableTail(t *testing.T) {
	f := newFakeWard()
	m := newTestModel(t, f, 120, 40)
	m.turn = &turn{cancel: func() {}}
	toks := answerTokens(2000)
	answer := strings.Join(toks, "")
	before := m.chat.md.rendered
	const flushes = 70
	per := (len(toks) + flushes - 1) / flushes
	for i := 0; i < len(toks); i += per {
		var batch []live.Update
		for _, tok := range toks[i:min(i+per, len(toks))] {
			batch = append(batch, live.Update{Kind: live.UpdateDelta, MessageID: "r", Agent: "patient", Text: tok})
		}
		m.Update(streamMsg{events: batch})
		m.View()
	}
	rendered := m.chat.md.rendered - before
	// Re-rendering the whole message on every flush would cost about
	// flushes/2 × its length; stable blocks once plus the tails is far less.
	if rendered > 2*len(answer) {
		t.Fatalf("rendered %d bytes of markdown for a %d-byte answer over %d flushes", rendered, len(answer), flushes)
	}
	if !strings.Contains(screen(m), "lips are tingling") {
		t.Fatalf("streamed answer not on screen:\n%s", screen(m))
	}
}

func TestStableBoundary(t *testing.T) {
	tests := []struct {
		text string
		want int
	}{
		{"no blank line yet", 0},
		{"one\n\ntwo", 5},
		{"one\n\ntwo\n\nthree", 10},
		{"para\n\n```\ncode\n\nmore code\n", 6},   // the blank line inside the fence does not count
		{"para\n\n```\ncode\n\n```\n\nafter", 21}, // after the fence closes, it does
	}
	for _, tt := range tests {
		if got := stableBoundary(tt.text, 0); got != tt.want {
			t.Errorf("stableBoundary(%q) = %d, want %d", tt.text, got, tt.want)
		}
	}
}

func TestStreamBatchOrder(t *testing.T) {
	t.Run("a switch in the batch keeps the deltas after it", func(t *testing.T) {
		f := newFakeWard()
		m := newTestModel(t, f, 120, 40)
		m.turn = &turn{cancel: func() {}}
		f.active = "patient_2"
		state := f.Snapshot()
		m.Update(streamMsg{state: &state, events: []live.Update{
			{Kind: live.UpdateChanged},
			{Kind: live.UpdateDelta, MessageID: "r", Agent: "patient", Text: "Ben here, still coughing"},
		}})
		if out := screen(m); !strings.HasPrefix(headerLine(m), "patient_2") || !strings.Contains(out, "Ben here, still coughing") {
			t.Fatalf("switch or deltas lost:\n%s", out)
		}
	})
	t.Run("a message completed in the batch is not drawn twice", func(t *testing.T) {
		f := newFakeWard()
		m := newTestModel(t, f, 120, 40)
		m.turn = &turn{cancel: func() {}}
		f.histories["patient_1"] = append(f.histories["patient_1"],
			live.ChatMessage{ID: "r", Role: "assistant", Agent: "patient", Content: "all done now"})
		state := f.Snapshot()
		m.Update(streamMsg{state: &state, events: []live.Update{
			{Kind: live.UpdateDelta, MessageID: "r", Agent: "patient", Text: "all done now"},
			{Kind: live.UpdateChanged, MessageID: "r"},
		}})
		if n := strings.Count(screen(m), "all done now"); n != 1 {
			t.Fatalf("completed message drawn %d times:\n%s", n, screen(m))
		}
	})
}
