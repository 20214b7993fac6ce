package memory

import (
	"reflect"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

func vitalsExchange() []Message {
	at := time.Date(2025, 1, 1, 9, 0, 0, 0, time.UTC)
	return []Message{
		{Role: "user", Content: "any allergies?", At: at},
		{Role: "assistant", Agent: "Patient", Content: "Penicillin, I come out in hives.", At: at},
		{Role: "user", Content: "check her vitals and temperature", At: at},
		{Role: "assistant", Agent: "Monitor", At: at, ToolCalls: []ToolCall{
			{ID: "c1", Name: "check_vitals", Args: map[string]any{"patient_id": "patient_1"}},
			{ID: "c2", Name: "check_temperature", Args: map[string]any{"site": "tympanic"}},
		}},
		// answered out of order, as parallel tools may be
		{Role: "tool", ToolCallID: "c2", ToolName: "check_temperature", Content: `{"temp":38.4}`, At: at},
		{Role: "tool", ToolCallID: "c1", ToolName: "check_vitals", Content: `{"hr":112,"spo2":93}`, At: at},
		{Role: "assistant", Agent: "Monitor", Content: "HR 112, SpO2 93%, T 38.4.", At: at},
	}
}

func TestLoadRecentMapsToolCallsAndResults(t *testing.T) {
	got := LoadRecent(vitalsExchange(), 0)
	want := []api.Message{
		{Role: "user", Content: "any allergies?"},
		{Role: "assistant", Content: "Penicillin, I come out in hives."},
		{Role: "user", Content: "check her vitals and temperature"},
		{Role: "assistant", ToolCalls: []api.ToolCall{
			{Function: api.ToolCallFunction{Index: 0, Name: "check_vitals", Arguments: api.ToolCallFunctionArguments{"patient_id": "patient_1"}}},
			{Function: api.ToolCallFunction{Index: 1, Name: "check_temperature", Arguments: api.ToolCallFunctionArguments{"site": "tympanic"}}},
		}},
		{Role: "tool", Content: `{"hr":112,"spo2":93}`},
		{Role: "tool", Content: `{"temp":38.4}`},
		{Role: "assistant", Content: "HR 112, SpO2 93%, T 38.4."},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
}

func TestLoadRecentLimit(t *testing.T) {
	msgs := vitalsExchange()
	tests := []struct {
		name      string
		limit     int
		wantFirst string // content (or role for content-less) of the first message
		wantLen   int
	}{
		{"all", 0, "any allergies?", 7},
		{"larger than history", 50, "any allergies?", 7},
		{"last two", 2, "HR 112, SpO2 93%, T 38.4.", 1}, // the orphaned tool result is left out
		{"cut inside the tool run", 3, "HR 112, SpO2 93%, T 38.4.", 1},
		{"keeps the call with its results", 4, "", 4},
		{"last five", 5, "check her vitals and temperature", 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := LoadRecent(msgs, tt.limit)
			if len(got) != tt.wantLen || got[0].Content != tt.wantFirst {
				t.Fatalf("got %d messages starting %q, want %d starting %q", len(got), got[0].Content, tt.wantLen, tt.wantFirst)
			}
		})
	}
}

func TestLoadRecentDoesNotAliasStoredMessages(t *testing.T) {
	msgs := vitalsExchange()
	got := LoadRecent(msgs, 0)
	got[3].ToolCalls[0].Function.Arguments["patient_id"] = "changed"
	if msgs[3].ToolCalls[0].Args["patient_id"] != "patient_1" {
		t.Fatal("mapping must not share argument maps with the stored history")
	}
	if msgs[4].ToolCallID != "c2" {
		t.Fatal("ordering tool results must not reorder the caller's slice")
	}
}
