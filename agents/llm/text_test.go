package llm

import "testing"

func TestClip(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"  short  ", 10, "short"},
		{"exactly", 7, "exactly"},
		{"one more", 3, "one"},
		{"héllo wörld", 7, "héllo w"}, // characters, not bytes
		{"日本語テキスト", 3, "日本語"},
		{"anything", 0, ""},
	}
	for _, tt := range tests {
		if got := Clip(tt.in, tt.n); got != tt.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}
