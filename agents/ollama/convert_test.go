package ollama

import (
	"reflect"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/ward-sim/ward/memory"
)

func vitalsExchange() []memory.Message {
	at := time.Date(2025, 1, 1, 9, 0, 0, 0, time.UTC)
	return []memory.Message{
		{Role: "user", Content: "any allergies?", At: at},
		{Role: "assistant", Agent: "Patient", Content: "Penicillin, I come out in hives.", At: at},
		{Role: "user", Content: "check her vitals and temperature", At: at},
		{Role: "assistant", Agent: "Monitor", At: at, ToolCalls: []memory.ToolCall{
			{ID: "c1", Name: "check_vitals", Args: map[string]any{"patient_id": "patient_1"}},
			{ID: "c2", Name: "check_temperature", Args: map[string]any{"site": "tympanic"}},
		}},
		// answered out of order, as parallel tools may be
		{Role: "tool", ToolCallID: "c2", ToolName: "check_temperature", Content: `{"temp":38.4}`, At: at},
		{Role: "tool", ToolCallID: "c1", ToolName: "check_vitals", Content: `{"hr":112,"spo2":93}`, At: at},
		{Role: "assistant", Agent: "Monitor", Content: "HR 112, SpO2 93%, T 38.4.", At: at},
	}
}

func TestToAPIMapsToolCallsAndOrdersResults(t *testing.T) {
	got := toAPI(vitalsExchange())
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
