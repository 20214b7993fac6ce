package memory

import (
	"math"
	"strings"
	"testing"
)

func TestEstimatorTokens(t *testing.T) {
	var e Estimator // zero value is usable
	if got := e.Tokens(strings.Repeat("abcd", 100)); got != 100 {
		t.Fatalf("400 chars at 4/token = %d, want 100", got)
	}
	if got := e.Tokens("abcde"); got != 2 {
		t.Fatalf("partial tokens round up: got %d", got)
	}
	msgs := []Message{
		{Role: "user", Content: strings.Repeat("x", 40)},
		{Role: "assistant", ToolCalls: []ToolCall{{Name: "check_vitals", Args: map[string]any{"patient_id": "patient_1"}}}},
	}
	// 4+10 for the user message; 4 for the assistant, 4+3+7 for the call
	if got := e.Messages(msgs); got != 32 {
		t.Fatalf("messages = %d, want 32", got)
	}
}

func TestCalibrateConvergesSmoothlyAndStaysBounded(t *testing.T) {
	e := Estimator{}
	// The model's tokenizer really gives 3.2 chars per token: 4000 chars are 1250 tokens.
	prev := e.ratio()
	for range 20 {
		est := e.Tokens(strings.Repeat("x", 4000))
		e.Calibrate(est, 1250)
		if e.CharsPerToken > prev+1e-9 {
			t.Fatalf("ratio moved away from the truth: %v -> %v", prev, e.CharsPerToken)
		}
		prev = e.CharsPerToken
	}
	if math.Abs(e.CharsPerToken-3.2) > 0.05 {
		t.Fatalf("ratio = %.3f, want about 3.2", e.CharsPerToken)
	}

	first := Estimator{}
	first.Calibrate(1000, 1250)
	if got := first.CharsPerToken; math.Abs(got-3.76) > 1e-9 {
		t.Fatalf("one observation moves 30%% of the way: got %v, want 3.76", got)
	}

	wild := Estimator{}
	for range 50 {
		wild.Calibrate(1000, 1) // absurd count
	}
	if wild.CharsPerToken > maxCharsPerToken {
		t.Fatalf("ratio escaped its bound: %v", wild.CharsPerToken)
	}
	ignored := Estimator{CharsPerToken: 3.5}
	ignored.Calibrate(0, 500)
	ignored.Calibrate(500, 0)
	if ignored.CharsPerToken != 3.5 {
		t.Fatal("missing counts must not move the ratio")
	}
}

func TestFitShrinksWindowAndMemoryButNeverSafety(t *testing.T) {
	var e Estimator
	m := chestPainMemory(t)
	// An early-phase treatment turn: everything recalled, safety disclosures protected.
	sel := m.Recall(Turn{Now: 100 + 9*minute, Parts: []Part{{Kind: PartTreatment, Name: "morphine"}}})
	window := conversation(14)
	for i := range window {
		window[i].Content = strings.Repeat("w", 400) // 104 tokens each
	}
	p := Prompt{Static: 1200, Dynamic: 150, User: 30, Window: window, Memory: sel}
	full := e.Fit(p, 100000, 0)
	if len(full.Shrunk) != 0 || full.Over || len(full.Window) != 14 || len(full.Memory.Items) != len(sel.Items) {
		t.Fatalf("a prompt that fits must not shrink: %+v", full.Shrunk)
	}

	tests := []struct {
		name       string
		numCtx     int
		wantShrunk []string // prefixes of the trace lines, in order
		wantOver   bool
	}{
		{"early items go first", full.Sections.Total() - 20, []string{"memory dropped 3 early items"}, false},
		{"then the oldest window messages", full.Sections.Total() - 600, []string{"memory dropped 8 early items", "window 14→"}, false},
		{"nothing left but protected safety items", 1000, []string{
			"memory dropped 8 early items", "window 14→4 messages", "memory dropped 2 core, 5 safety items",
			"window 4→0 messages", "still "}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := e.Fit(p, tt.numCtx, 0)
			ok := len(f.Shrunk) == len(tt.wantShrunk) && f.Over == tt.wantOver
			for i := 0; ok && i < len(f.Shrunk); i++ {
				ok = strings.HasPrefix(f.Shrunk[i], tt.wantShrunk[i])
			}
			if !ok {
				t.Fatalf("shrunk = %q over=%v, want %q over=%v", f.Shrunk, f.Over, tt.wantShrunk, tt.wantOver)
			}
			if !f.Over && f.Sections.Total() > tt.numCtx {
				t.Fatalf("total %d above %d", f.Sections.Total(), tt.numCtx)
			}
			protected := 0
			for _, x := range f.Memory.Items {
				if x.Protected() {
					protected++
				}
			}
			if protected != 4 || !strings.Contains(f.Memory.Render(), "allergies: morphine") {
				t.Fatalf("safety disclosures must survive every shrink; %d left", protected)
			}
		})
	}
	if len(p.Memory.Items) != len(sel.Items) {
		t.Fatal("Fit must not change the caller's selection")
	}
}

func TestFitDropsToolCallsWithTheirResults(t *testing.T) {
	var e Estimator
	window := []Message{
		{Role: "assistant", ToolCalls: []ToolCall{{Name: "check_vitals"}}},
		{Role: "tool", Content: strings.Repeat("r", 400)},
		{Role: "assistant", Content: "HR 110"},
		{Role: "user", Content: "thanks"},
		{Role: "assistant", Content: "ok"},
		{Role: "user", Content: "more"},
	}
	f := e.Fit(Prompt{Static: 100, Window: window}, 150, 0)
	if len(f.Window) != 4 || f.Window[0].Content != "HR 110" {
		t.Fatalf("window = %+v, want the call and its result dropped together", f.Window)
	}
}
