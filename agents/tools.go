package agents

import (
	"encoding/json"

	"github.com/ward-sim/ward/agents/llm"
)

// Tool names. The engine answers check_vitals; the two record_ tools write to the patient's
// memory once their arguments pass validation.
const (
	ToolCheckVitals      = "check_vitals"
	ToolRecordQuote      = "record_quote"
	ToolRecordAssessment = "record_assessment"
)

// toolsByName are the tools as a model is told of them; the parameters are JSON Schema.
var toolsByName = map[string]llm.Tool{
	ToolCheckVitals: {Name: ToolCheckVitals,
		Description: "Measure the patient's vital signs now. Returns the measured values; never state a number you did not get from this tool.",
		Parameters:  json.RawMessage(`{"type":"object","required":[],"properties":{}}`)},
	ToolRecordQuote: {Name: ToolRecordQuote,
		Description: "Remember something the patient said that matters later, word for word.",
		Parameters: json.RawMessage(`{"type":"object","required":["speaker","quote"],"properties":{
  "speaker":{"type":"string","description":"who said it, e.g. patient"},
  "quote":{"type":"string","description":"the exact words, at most 300 characters"}}}`)},
	ToolRecordAssessment: {Name: ToolRecordAssessment,
		Description: "Record a clinical assessment of the trainee's management or the patient's condition.",
		Parameters: json.RawMessage(`{"type":"object","required":["finding"],"properties":{
  "finding":{"type":"string","description":"one finding, at most 300 characters"}}}`)},
}

// Tools returns the definitions of the named tools, for an agent's request. Unknown names are
// refused when the team file is loaded, so none reach here.
func Tools(names []string) []llm.Tool {
	var out []llm.Tool
	for _, n := range names {
		if t, ok := toolsByName[n]; ok {
			out = append(out, t)
		}
	}
	return out
}

// KnownTool reports whether ward can run a tool of this name.
func KnownTool(name string) bool {
	_, ok := toolsByName[name]
	return ok
}
