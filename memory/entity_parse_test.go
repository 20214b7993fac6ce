package memory

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseAgentOutput(t *testing.T) {
	tests := []struct {
		name          string
		raw           string
		wantReply     string
		wantFormat    OutputFormat
		wantMalformed bool
		wantConv      map[string]any
		wantDerived   map[string]any
	}{
		{
			name:       "delta",
			raw:        `{"reply":"It hurts here.","entities_to_update":{"pain_score":"8/10"},"derived_entities_to_update":{"vitals_retrieved":"HR 110"}}`,
			wantReply:  "It hurts here.",
			wantFormat: FormatDelta,
			wantConv:   map[string]any{"pain_score": "8/10"}, wantDerived: map[string]any{"vitals_retrieved": "HR 110"},
		},
		{
			name:       "empty delta",
			raw:        `{"reply":"Okay.","entities_to_update":{},"derived_entities_to_update":null}`,
			wantReply:  "Okay.",
			wantFormat: FormatDelta,
			wantConv:   map[string]any{},
		},
		{
			name:       "reply only",
			raw:        `{"reply":"Hello."}`,
			wantReply:  "Hello.",
			wantFormat: FormatDelta,
		},
		{
			name:       "legacy full state split by convention",
			raw:        `{"reply":"Noted.","entities":{"time_preference":"now","bed_id":"B4"}}`,
			wantReply:  "Noted.",
			wantFormat: FormatLegacy,
			wantConv:   map[string]any{"time_preference": "now"}, wantDerived: map[string]any{"bed_id": "B4"},
		},
		{
			name:       "fenced and wrapped in prose",
			raw:        "Sure:\n```json\n{\"reply\":\"Fine.\",\"entities_to_update\":{\"goal\":\"rest\"}}\n```",
			wantReply:  "Fine.",
			wantFormat: FormatDelta,
			wantConv:   map[string]any{"goal": "rest"},
		},
		{
			name:          "cut off after the reply",
			raw:           `{"reply":"I can't \"breathe\"\nproperly.","entities_to_update":{"goal":"rel`,
			wantReply:     "I can't \"breathe\"\nproperly.",
			wantFormat:    FormatText,
			wantMalformed: true,
		},
		{
			name:          "cut off inside the reply and an escape",
			raw:           `{"reply":"My chest \u00e9 hurts \u00`,
			wantReply:     "My chest é hurts ",
			wantFormat:    FormatText,
			wantMalformed: true,
		},
		{
			name:          "reply key not first, broken later",
			raw:           `{"entities":{"kind":"reply"}, "reply" : "Here.", oops}`,
			wantReply:     "Here.",
			wantFormat:    FormatText,
			wantMalformed: true,
		},
		{
			name:          "plain prose",
			raw:           "  *She winces.* It started an hour ago.  ",
			wantReply:     "*She winces.* It started an hour ago.",
			wantFormat:    FormatText,
			wantMalformed: true,
		},
		{
			name:          "valid JSON without a reply keeps everything",
			raw:           `{"text":"hi","entities_to_update":{"goal":"x"}}`,
			wantReply:     `{"text":"hi","entities_to_update":{"goal":"x"}}`,
			wantFormat:    FormatDelta,
			wantMalformed: true,
			wantConv:      map[string]any{"goal": "x"},
		},
		{
			name:          "section that is not an object",
			raw:           `{"reply":"Yes.","entities_to_update":["goal"]}`,
			wantReply:     "Yes.",
			wantFormat:    FormatDelta,
			wantMalformed: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := ParseAgentOutput(tt.raw)
			if out.Reply != tt.wantReply || out.Format != tt.wantFormat || out.Malformed != tt.wantMalformed {
				t.Fatalf("got reply %q format %s malformed %v (%s); want %q %s %v",
					out.Reply, out.Format, out.Malformed, out.Warning, tt.wantReply, tt.wantFormat, tt.wantMalformed)
			}
			if !reflect.DeepEqual(out.Conversation, tt.wantConv) || !reflect.DeepEqual(out.Derived, tt.wantDerived) {
				t.Fatalf("entities = %v / %v, want %v / %v", out.Conversation, out.Derived, tt.wantConv, tt.wantDerived)
			}
		})
	}
}

func TestParseCountsFallbacksAndErrors(t *testing.T) {
	var s EntityStats
	for _, raw := range []string{
		`{"reply":"a","entities_to_update":{}}`,
		`{"reply":"b","entities":{"goal":"x"}}`,
		`{"reply":"c`,
		`plain`,
	} {
		s.ObserveParse(ParseAgentOutput(raw))
	}
	if s.FormatFallbacks != 1 || s.ParseErrors != 2 {
		t.Fatalf("stats = %+v, want 1 fallback and 2 parse errors", s)
	}
}

func TestParsedOutputMergesForItsAgent(t *testing.T) {
	out := ParseAgentOutput(`{"reply":"ok","entities_to_update":{"goal":"comfort"},"derived_entities_to_update":{"dose_result":"ok"}}`)
	var e Entities
	r, err := e.Merge(out.Delta("Pharmacist", 42))
	if err != nil || len(r.Added) != 2 || e.Derived["Pharmacist"][0].SourceTool != SourceAgentReply {
		t.Fatalf("merge = %+v, %v, %+v", r, err, e.Derived)
	}
	if _, err := e.Merge(out.Delta("", 42)); err == nil {
		t.Fatal("a parsed output still needs its agent")
	}
}

// FuzzParseAgentOutput checks that parsing never panics, that plain text comes back whole, and
// that a delta's reply survives the output being cut anywhere after it.
func FuzzParseAgentOutput(f *testing.F) {
	for _, seed := range []struct {
		raw, reply string
		cut        int
	}{
		{`{"reply":"hi","entities_to_update":{"goal":"x"}}`, "I'm allergic to morphine.", 40},
		{`{"reply":"hi","entities":{"bed_id":"B4"}}`, `She says "stop" \ twice`, 10},
		{`{"reply":"cut`, "line one\nline two", 1000},
		{"```json\n{\"reply\":\"x\"}\n```", "ünïcödé ✓ \u2028", 3},
		{"no json at all", "", 0},
		{`{"reply":`, "<b>&amp;</b>", 25},
		{`{"reply":"a\u00`, "tab\there", 31},
		{`[1,2,3]`, "x", -5},
	} {
		f.Add(seed.raw, seed.reply, seed.cut)
	}
	f.Fuzz(func(t *testing.T, raw, reply string, cut int) {
		out := ParseAgentOutput(raw)
		if out.Format == FormatText && !strings.Contains(raw, `"reply"`) && out.Reply != strings.TrimSpace(raw) {
			t.Fatalf("text without a reply field must come back whole: %q -> %q", raw, out.Reply)
		}
		if !utf8.ValidString(out.Reply) && utf8.ValidString(raw) {
			t.Fatalf("valid input gave an invalid reply: %q", out.Reply)
		}

		reply = strings.ToValidUTF8(reply, "?")
		whole, _ := json.Marshal(struct {
			Reply string         `json:"reply"`
			Conv  map[string]any `json:"entities_to_update"`
		}{reply, map[string]any{"time_preference": "3pm"}})
		if got := ParseAgentOutput(string(whole)); got.Reply != reply || got.Malformed {
			t.Fatalf("delta reply %q came back as %q (%s)", reply, got.Reply, got.Warning)
		}
		quoted, _ := json.Marshal(reply)
		replyEnd := len(`{"reply":`) + len(quoted)
		if cut < replyEnd || cut >= len(whole) {
			return
		}
		if got := ParseAgentOutput(string(whole[:cut])); got.Reply != reply {
			t.Fatalf("cut at %d of %s: reply %q came back as %q", cut, whole, reply, got.Reply)
		}
	})
}
