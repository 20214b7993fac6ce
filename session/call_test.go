package session

import (
	"strings"
	"testing"
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
			if got.String() != tt.want {
				t.Fatalf("streamed %q, want %q", got.String(), tt.want)
			}
		})
	}
}
