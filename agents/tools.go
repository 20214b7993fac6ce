package agents

import (
	"encoding/json"
	"fmt"

	"github.com/ollama/ollama/api"
)

// Tool names. The engine answers check_vitals; the two record_ tools write to the patient's
// memory once their arguments pass validation.
const (
	ToolCheckVitals      = "check_vitals"
	ToolRecordQuote      = "record_quote"
	ToolRecordAssessment = "record_assessment"
)

// toolDefinitions are the tools as Ollama is told of them. Written as JSON because that is the
// shape the model reads, and api.ToolFunction's parameters are an anonymous struct.
const toolDefinitions = `[
 {"type":"function","function":{"name":"check_vitals",
  "description":"Measure the patient's vital signs now. Returns the measured values; never state a number you did not get from this tool.",
  "parameters":{"type":"object","required":[],"properties":{}}}},
 {"type":"function","function":{"name":"record_quote",
  "description":"Remember something the patient said that matters later, word for word.",
  "parameters":{"type":"object","required":["speaker","quote"],"properties":{
   "speaker":{"type":"string","description":"who said it, e.g. patient"},
   "quote":{"type":"string","description":"the exact words, at most 300 characters"}}}}},
 {"type":"function","function":{"name":"record_assessment",
  "description":"Record a clinical assessment of the trainee's management or the patient's condition.",
  "parameters":{"type":"object","required":["finding"],"properties":{
   "finding":{"type":"string","description":"one finding, at most 300 characters"}}}}}
]`

var toolsByName = func() map[string]api.Tool {
	var tools api.Tools
	if err := json.Unmarshal([]byte(toolDefinitions), &tools); err != nil {
		panic(fmt.Sprintf("agents: tool definitions: %v", err)) // a typo in the constant above
	}
	byName := map[string]api.Tool{}
	for _, t := range tools {
		byName[t.Function.Name] = t
	}
	return byName
}()

// Tools returns the definitions of the named tools, for an agent's request. Unknown names are
// refused when the team file is loaded, so none reach here.
func Tools(names []string) api.Tools {
	var out api.Tools
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
