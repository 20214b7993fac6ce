package session

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/agents/offline"
	"github.com/ward-sim/ward/memory"
)

// The UI sees the reply's own words as they arrive: JSON output streams only its reply, a plain
// answer streams whole, and whitespace before the JSON does not make it plain.
func TestReplyStreamShowsOnlyTheWords(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		want   string
	}{
		{"json", []string{`{"re`, `ply": "Tight `, `chest… \"bad\"`, `", "entities_to_update": {}}`}, `Tight chest… "bad"`},
		{"plain text", []string{"Tight ", "chest.", ""}, "Tight chest."},
		{"whitespace before json", []string{"\n ", ` {"reply": "ok"`, `}`}, "ok"},
		{"json without a reply yet", []string{`{"entities_to_update": {}`}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got strings.Builder
			r := replyStream{emit: func(s string) {
				if s == "" {
					t.Error("emitted an empty delta")
				}
				got.WriteString(s)
			}}
			for _, c := range tt.chunks {
				r.add(c)
			}
			r.flush()
			if got.String() != tt.want {
				t.Fatalf("streamed %q, want %q", got.String(), tt.want)
			}
		})
	}
}

// A streamed sentence is shown only once it passes the check the whole reply is held to, and
// cleaned: the first that fails stops the stream, so nothing after it shows either.
func TestReplyStreamHoldsBackWhatFailsTheCheck(t *testing.T) {
	var got strings.Builder
	r := replyStream{emit: func(s string) { got.WriteString(s) }, clean: func(s string) bool { return !strings.Contains(s, "212") }}
	for _, c := range []string{`{"reply": "I feel \u202eodd. My heart`, ` rate is 212. And`, ` more."}`} {
		r.add(c)
	}
	r.flush()
	if got.String() != "I feel odd." {
		t.Errorf("streamed %q, want only the first sentence, cleaned", got.String())
	}
}

// scripted answers every call with the next response or error, the last repeating, and counts
// the calls. It embeds Backend so it overrides only Chat.
type scripted struct {
	llm.Backend
	replies []llm.Response
	errs    []error
	calls   int
}

func (m *scripted) Chat(_ context.Context, _ llm.Request, onDelta func(string)) (llm.Response, error) {
	i := min(m.calls, len(m.replies)-1)
	m.calls++
	if onDelta != nil && m.replies[i].Message.Content != "" {
		onDelta(m.replies[i].Message.Content)
	}
	return m.replies[i], m.errs[i]
}

// A reply the model did not finish is kept and shown, and the trainee is told why in words; a
// model that sends nothing is not waited for twice.
func TestUnfinishedRepliesAreKeptAndSaid(t *testing.T) {
	tests := []struct {
		name  string
		reply llm.Response
		err   error
		code  string
		words string
		kept  string
		calls int
	}{
		{"output budget", llm.Response{Message: memory.Message{Role: "assistant", Content: `{"reply":"It hurts when I breathe in and`}, DoneReason: "length"},
			nil, "LLM_CUT", "output budget", "It hurts when I breathe in and", 1},
		{"stalled mid-reply", llm.Response{Message: memory.Message{Role: "assistant", Content: "My chest is"}, DoneReason: llm.DoneStalled},
			nil, "LLM_CUT", "stalled", "My chest is", 1},
		{"stalled before a word", llm.Response{}, &llm.StallError{After: 30 * time.Second}, "LLM_STALLED", "sent nothing for 30s", "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := &scripted{Backend: offline.New(), replies: []llm.Response{tt.reply}, errs: []error{tt.err}}
			r := newRigWith(t, func(c *Config) { c.Backend = model })
			r.turn("/admit patient_1 asthma-exacerbation")
			model.calls = 0
			events := r.turn("how are you feeling?")
			var got ErrorEvent
			for _, e := range only[ErrorEvent](events) {
				if e.Code == tt.code {
					got = e
				}
			}
			if !strings.Contains(got.Message, tt.words) {
				t.Errorf("errors %+v: want %s saying %q", only[ErrorEvent](events), tt.code, tt.words)
			}
			if model.calls != tt.calls {
				t.Errorf("%d calls, want %d", model.calls, tt.calls)
			}
			h := r.dump().Histories["patient_1"]
			if last := h[len(h)-1]; tt.kept != "" && last.Content != tt.kept {
				t.Errorf("kept %q, want %q", last.Content, tt.kept)
			}
		})
	}
}
