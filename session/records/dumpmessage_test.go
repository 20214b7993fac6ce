package records

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/ward-sim/ward/memory"
)

// indented is how the dump printed a message before it printed stored bytes: decoded, then
// encoded by a json.Encoder indenting after prefix (the trailing newline is the stream's).
func indented(t testing.TB, stored []byte, prefix string) ([]byte, error) {
	var m memory.Message
	if err := json.Unmarshal(stored, &m); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent(prefix, "  ")
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

var at = time.Date(2026, 11, 29, 0, 55, 27, 986620668, time.UTC)

// TestStoredMessagesPrintAsEncodingJSONPrintsThem: a message json.Marshal stored is printed from
// its bytes, as decoding and encoding it prints it, whatever its text holds; one the bytes
// cannot stand for (a tool call, a source, a field out of its place, a spelling encoding/json
// never writes) is left to be decoded.
func TestStoredMessagesPrintAsEncodingJSONPrintsThem(t *testing.T) {
	asStored := []memory.Message{
		{Role: "user", Content: "how are you feeling?", At: at},
		{Role: "assistant", Agent: "nurse", Content: "NEWS2 12 — RR 25, SpO₂ 84 % on air. <b>Emergency</b> & \"now\"\n\ttabbed\u2028\u2029\x01\x1b[31m\b\f\r\\ 患者 🩺", At: at, Sim: 600.5},
		{Role: "system", Content: "", At: time.Time{}, Sim: 1e-7},
		{Role: "assistant", Agent: "doctor", Content: "x", At: at.In(time.FixedZone("", 3600)), Sim: 1e21, ToolCallID: "c1", ToolName: "vitals", By: memory.ByInstructor, TeamRole: "leader", For: "airway"},
		{Role: "user", Content: "late", At: at.Add(-at.Sub(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))), Sim: -3},
	}
	for _, m := range asStored {
		stored, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, prefix := range []string{"", "    "} {
			got, ok := appendMessage(nil, stored, prefix)
			if !ok {
				t.Errorf("%s is not printed from its bytes", stored)
				continue
			}
			want, _ := indented(t, stored, prefix)
			if !bytes.Equal(got, want) {
				t.Errorf("%s at %q printed\n%s\nwant\n%s", stored, prefix, got, want)
			}
		}
	}
	decoded := []string{
		`{"role":"assistant","content":"x","at":"2026-11-29T00:55:27Z","tool_calls":[{"id":"1","name":"v","args":{"b":1,"a":2}}]}`,
		`{"role":"assistant","content":"x","at":"2026-11-29T00:55:27Z","sources":["[1] card"]}`,
		`{"content":"x","role":"user","at":"2026-11-29T00:55:27Z"}`,
		`{"role":"user","content":"x"}`,
		`{"role":"user","agent":"","content":"x","at":"2026-11-29T00:55:27Z"}`,
		`{"role":"user","content":"x","at":"2026-11-29T00:55:27Z","sim":0}`,
		`{"role":"user","content":"x","at":"2026-11-29T00:55:27Z","sim":1.0}`,
		`{"role":"user","content":"x","at":"2026-11-29T00:55:27Z","sim":1E3}`,
		`{"role":"user","content":"\u00e9 \ufffd \/","at":"2026-11-29T00:55:27Z"}`,
		`{"role":"user","content":"<","at":"2026-11-29T00:55:27Z"}`,
		`{"role":"user","content":"x","at":"2026-11-29T00:55:27.000Z"}`,
		`{"role":"user","content":"x","at":"2026-11-29T00:55:27+00:00"}`,
		`{"role":"user","content":"x","at":"2026-11-29T00:55:27Z","by":"a","by":"b"}`,
		`{"role":"user","content":"x","at":"2026-11-29T00:55:27Z","extra":1}`,
		`{"role": "user","content":"x","at":"2026-11-29T00:55:27Z"}`,
		`{"role":"user","content":"x","at":"2026-11-29T00:55:27Z"} `,
		`{"role":"user","content":"x","at":"2026-11-29T00:55:27Z"`,
		`{"role":"user","content":"x`,
		`{}`, ``, `null`,
	}
	for _, stored := range decoded {
		if got, ok := appendMessage(nil, []byte(stored), ""); ok {
			t.Errorf("%s is printed from its bytes, as\n%s", stored, got)
		}
	}
}

// FuzzAppendMessage: whatever the stored bytes, what is printed from them is what decoding and
// encoding them prints.
func FuzzAppendMessage(f *testing.F) {
	f.Add([]byte(`{"role":"assistant","agent":"nurse","content":"a \u003cb\u003e — \n","at":"2026-11-29T00:55:27.986620668Z","sim":600.5}`))
	f.Add([]byte(`{"role":"user","content":"x","at":"2026-11-29T00:55:27+01:00","sim":1e-7,"by":"instructor"}`))
	f.Fuzz(func(t *testing.T, stored []byte) {
		got, ok := appendMessage(nil, stored, "  ")
		if !ok {
			return
		}
		want, err := indented(t, stored, "  ")
		if err != nil {
			t.Fatalf("%q is printed from its bytes but does not decode: %v", stored, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%q printed\n%s\nwant\n%s", stored, got, want)
		}
	})
}
