package agents

import "encoding/json"

// AgentOutputSchema is the `format` of every team agent's call on Ollama:
// the reply and the two entity deltas that memory.ParseAgentOutput reads.
// The deltas are free-form objects; their keys follow the conventions in
// DeltaOutputInstructions, and memory refuses a delta that breaks them.
var AgentOutputSchema = json.RawMessage(`{"type":"object",` +
	`"properties":{` +
	`"reply":{"type":"string"},` +
	`"entities_to_update":{"type":"object"},` +
	`"derived_entities_to_update":{"type":"object"}},` +
	`"required":["reply","entities_to_update","derived_entities_to_update"]}`)

// DeltaOutputInstructions close every agent's static system text, after the
// agent's own instructions, so all agents write their output the same way.
// The conformance eval sends the same text, so its score is this prompt's.
const DeltaOutputInstructions = `Output format. Answer with one JSON object and nothing else:
{"reply": "...", "entities_to_update": {...}, "derived_entities_to_update": {...}}
- reply: what you say, as plain text.
- entities_to_update: only the conversation facts that are new or changed in this turn: what the
  trainee stated, intends or decided. Never repeat a fact that has not changed. Keys:
  chief_complaint, working_diagnosis, differential, plan, goal, intent, or a name ending in
  _preference or _intent (analgesia_preference, route_preference, handoff_format_preference,
  feedback_preference, disposition_intent).
- derived_entities_to_update: only results a tool returned in this turn. Keys end in _id, _uuid,
  _retrieved, _result or _results: check_vitals gives vitals_retrieved (and news2_result when it
  scores NEWS2); a recorded assessment gives assessment_id; a recorded quote gives quote_id.
- A key goes in one of the two objects, never both. Keys are lower case with underscores.
- When nothing changed, send {} for that object. Never send the whole state.`
