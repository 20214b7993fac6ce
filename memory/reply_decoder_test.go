package memory

import (
	"encoding/json"
	"strings"
	"testing"
)

// decodeInChunks streams raw through a decoder size bytes at a time and joins what it returns.
func decodeInChunks(raw string, size int) (string, bool) {
	var d ReplyDecoder
	var b strings.Builder
	begun := false
	for i := 0; i < len(raw); i += size {
		text, ok := d.Add(raw[i:min(i+size, len(raw))])
		b.WriteString(text)
		begun = begun || ok
	}
	return b.String(), begun
}

func TestReplyDecoderStreamsTheReplyWhateverTheCuts(t *testing.T) {
	replies := []string{
		"plain words",
		`She said "stop" \ twice`,
		"line one\nline two\ttab",
		"ünïcödé ✓ \u2028 and an emoji 😀 (a surrogate pair when escaped)",
		"",
	}
	for _, reply := range replies {
		quoted, _ := json.Marshal(reply)
		ascii := strings.ReplaceAll(string(quoted), "😀", `\ud83d\ude00`) // the pair spelled as escapes
		for _, body := range []string{string(quoted), ascii} {
			raw := `{"reply": ` + body + `, "entities_to_update": {"goal": "x"}}`
			for size := 1; size <= len(raw); size++ {
				got, begun := decodeInChunks(raw, size)
				if got != reply || !begun {
					t.Fatalf("%s in chunks of %d: got %q (begun %v), want %q", raw, size, got, begun, reply)
				}
			}
		}
	}
}

func TestReplyDecoderWaitsForTheReply(t *testing.T) {
	var d ReplyDecoder
	for _, chunk := range []string{`{"entities_to_update": {"reply_preference": "short"}, `, `"reply"`, ` : `} {
		if text, begun := d.Add(chunk); begun || text != "" {
			t.Fatalf("after %q: %q, begun %v; the reply has not begun", chunk, text, begun)
		}
	}
	if text, begun := d.Add(`"Hi`); !begun || text != "Hi" {
		t.Fatalf("got %q, begun %v", text, begun)
	}
	if text, _ := d.Add(`", "more": "ignored"}`); text != "" {
		t.Fatalf("text after the closing quote: %q", text)
	}
}

// FuzzReplyDecoder: however a well-formed answer is cut into chunks, the decoder streams exactly
// its reply.
func FuzzReplyDecoder(f *testing.F) {
	f.Add("I'm allergic to morphine.", 3)
	f.Add(`quote " and \ backslash`, 1)
	f.Add("😀 ü \u2028", 2)
	f.Fuzz(func(t *testing.T, reply string, size int) {
		reply = strings.ToValidUTF8(reply, "?")
		quoted, _ := json.Marshal(reply)
		raw := `{"reply":` + string(quoted) + `}`
		size = 1 + abs(size)%len(raw)
		if got, _ := decodeInChunks(raw, size); got != reply {
			t.Fatalf("chunks of %d: got %q, want %q", size, got, reply)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
