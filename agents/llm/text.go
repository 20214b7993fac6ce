package llm

import (
	"encoding/json"
	"strings"
)

// Clip trims s and shortens it to at most n characters, so one long model answer cannot flood
// an event or a prompt.
func Clip(s string, n int) string {
	s = strings.TrimSpace(s)
	count := 0
	for i := range s {
		if count == n {
			return s[:i]
		}
		count++
	}
	return s
}

// Schema encodes a JSON Schema built from plain maps, strings and numbers, which always marshal.
func Schema(schema map[string]any) json.RawMessage {
	data, err := json.Marshal(schema)
	if err != nil {
		panic("llm: schema: " + err.Error())
	}
	return data
}

// MaxReasoningLen bounds every model-written reasoning (the analyzer's and the router's): the
// schemas' maxLength, enforced again for models that ignore it.
const MaxReasoningLen = 300
