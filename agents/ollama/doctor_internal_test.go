package ollama

import (
	"strings"
	"testing"
)

// A first call cut by its small output budget is judged on what came: the start of JSON keeps to
// the format, words do not.
func TestFollowsJSON(t *testing.T) {
	for _, c := range []struct {
		reply   string
		cut, ok bool
	}{
		{`{"reply":"I feel`, true, true},
		{`{"reply":"ok"}`, false, true},
		{`I feel`, true, false},
		{`{"reply":"I feel`, false, false},
		{`{"a":1} and more`, true, false},
		{``, true, false},
	} {
		if got := followsJSON(c.reply, c.cut); got != c.ok {
			t.Errorf("followsJSON(%q, cut %v) = %v, want %v", c.reply, c.cut, got, c.ok)
		}
	}
}

// Slots keep each agent's prompt only with the multi-user cache that spreads requests over them.
func TestParallelCheck(t *testing.T) {
	for _, c := range []struct {
		parallel, multi string
		ok              bool
		detail          string
	}{
		{"", "", false, "not set here"},
		{"5", "", false, "every agent's call lands in the same slot"},
		{"2", "1", false, "OLLAMA_NUM_PARALLEL=2"},
		{"5", "1", true, "the multi-user cache"},
	} {
		t.Setenv("OLLAMA_NUM_PARALLEL", c.parallel)
		t.Setenv("OLLAMA_MULTIUSER_CACHE", c.multi)
		got := parallelCheck()
		if got.OK != c.ok || !strings.Contains(got.Detail, c.detail) || !strings.Contains(got.Fix, "OLLAMA_MULTIUSER_CACHE=1") {
			t.Errorf("parallel %q multi %q: %+v", c.parallel, c.multi, got)
		}
	}
}
