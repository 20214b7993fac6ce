package agents

import (
	"encoding/json"
	"fmt"
	"slices"

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

// CheckCall holds a model's tool call to what it was offered: a tool among offered, every
// required argument present and each of the type its schema names. The error is written for the
// model, which reads it as the call's result.
func CheckCall(offered []llm.Tool, name string, args map[string]any) error {
	i := slices.IndexFunc(offered, func(t llm.Tool) bool { return t.Name == name })
	if i < 0 {
		var names []string
		for _, t := range offered {
			names = append(names, t.Name)
		}
		return fmt.Errorf("no tool named %q is offered to you (offered: %v)", name, names)
	}
	var schema struct {
		Required   []string                         `json:"required"`
		Properties map[string]struct{ Type string } `json:"properties"`
	}
	_ = json.Unmarshal(offered[i].Parameters, &schema) // ward's own schemas, fixed and valid
	for _, arg := range schema.Required {
		if _, ok := args[arg]; !ok {
			return fmt.Errorf("%s needs the argument %q", name, arg)
		}
	}
	for arg, v := range args {
		if _, isString := v.(string); schema.Properties[arg].Type == "string" && !isString {
			got, _ := json.Marshal(v)
			return fmt.Errorf("%s's argument %q must be a string, not %s", name, arg, got)
		}
	}
	return nil
}
