package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/ward-sim/ward/memory"
)

// EvalDelta runs every delta scenario through b and checks that each output
// is one JSON object in the delta format, which memory parses without a
// fallback and merges without refusal, updating the expected keys and
// resending none that did not change.
//
// On the offline backend no model answers: it plays each scenario's
// expected delta from Request.Scene instead. That run checks the harness
// itself (the prompt, the labels, the parser and the checks agree), not a
// model, and must score 100%.
func EvalDelta(ctx context.Context, b Backend) Report {
	r := Report{Suite: "delta", Backend: b.Name(), Model: b.Model()}
	team, err := LoadTeam("")
	if err != nil {
		r.record("load team", "setup", err.Error(), "")
		return r
	}
	for _, sc := range deltaScenarios {
		out, err := sc.answer(ctx, b, team)
		if err != nil {
			r.record(sc.name, sc.category, "chat failed: "+err.Error(), "")
			continue
		}
		r.record(sc.name, sc.category, sc.check(out), out)
	}
	return r
}

// deltaScenario is one labelled turn. The agent knows some entities, sees
// some messages, and must update exactly the facts the turn changed.
type deltaScenario struct {
	name, category, agent string
	known                 map[string]any // conversation entities before the turn
	knownDerived          map[string]any // the agent's own derived entities before the turn
	messages              []api.Message  // the conversation, up to the turn's user message and its tool rounds
	conv                  map[string]any // keys entities_to_update must carry (values for the offline player)
	derived               map[string]any // keys derived_entities_to_update must carry
	empty                 bool           // nothing may be updated
}

// evalNow is the sim time of every scenario's turn; known entities date
// from time 0.
const evalNow = 60

func (sc deltaScenario) answer(ctx context.Context, b Backend, team *Team) (string, error) {
	req, err := sc.request(team)
	if err != nil {
		return "", err
	}
	resp, err := b.Chat(ctx, req, nil)
	return resp.Message.Content, err
}

// request lays the scenario out as the session lays out an agent's prompt
// (Prompt.Messages): the agent's system text, the earlier conversation, the
// entities it may see, the turn's user message, then its tool rounds. The
// scene carries the expected delta for the offline player; Ollama ignores it.
func (sc deltaScenario) request(team *Team) (Request, error) {
	a, ok := team.Agent(sc.agent)
	if !ok {
		return Request{}, fmt.Errorf("no agent %s in the team", sc.agent)
	}
	known, err := sc.seeded()
	if err != nil {
		return Request{}, err
	}
	view, err := known.Context(a.Name, evalNow)
	if err != nil {
		return Request{}, err
	}
	turn := len(sc.messages) - 1 // every scenario's turn opens with a user message
	for sc.messages[turn].Role != "user" {
		turn--
	}
	p := Prompt{
		Static:  a.SystemText(),
		Window:  sc.messages[:turn],
		Dynamic: EntitiesSection(view),
		User:    sc.messages[turn].Content,
		After:   sc.messages[turn+1:],
	}
	keepAlive := api.Duration{Duration: DefaultKeepAlive}
	return Request{
		Agent:     a.Name,
		Messages:  p.Messages(),
		Format:    AgentOutputSchema,
		Options:   map[string]any{"temperature": 0, "num_ctx": DefaultNumCtx, "num_predict": 1024},
		KeepAlive: &keepAlive,
		Scene:     &Scene{Agent: a.Name, Entities: EntityDelta{Conversation: sc.conv, Derived: sc.derived}},
	}, nil
}

// seeded is the entity state before the turn.
func (sc deltaScenario) seeded() (*memory.Entities, error) {
	e := &memory.Entities{}
	if len(sc.known) == 0 && len(sc.knownDerived) == 0 {
		return e, nil
	}
	if _, err := e.Merge(memory.Delta{Agent: sc.agent, Conversation: sc.known, Derived: sc.knownDerived}); err != nil {
		return nil, fmt.Errorf("scenario %s: known entities refused: %w", sc.name, err)
	}
	return e, nil
}

// check returns "" when raw conforms, else every reason it does not.
func (sc deltaScenario) check(raw string) string {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(strings.TrimSpace(raw)), &fields); err != nil || fields == nil {
		return "output is not one JSON object"
	}
	var reasons []string
	for _, k := range []string{"reply", "entities_to_update", "derived_entities_to_update"} {
		if _, ok := fields[k]; !ok {
			reasons = append(reasons, "missing "+k)
		}
	}
	out := memory.ParseAgentOutput(raw)
	if out.Format != memory.FormatDelta || out.Malformed {
		reasons = append(reasons, fmt.Sprintf("parsed as %s: %s", out.Format, out.Warning))
	}
	if strings.TrimSpace(out.Reply) == "" {
		reasons = append(reasons, "empty reply")
	}
	conv, derived := normalizedKeys(out.Conversation), normalizedKeys(out.Derived)
	reasons = append(reasons, sc.checkKeys(conv, derived)...)
	if known, err := sc.seeded(); err != nil {
		reasons = append(reasons, err.Error())
	} else if _, err := known.Merge(out.Delta(sc.agent, evalNow)); err != nil {
		reasons = append(reasons, "memory refused the delta: "+err.Error())
	}
	return strings.Join(reasons, "; ")
}

func (sc deltaScenario) checkKeys(conv, derived []string) []string {
	var reasons []string
	if sc.empty && len(conv)+len(derived) > 0 {
		reasons = append(reasons, fmt.Sprintf("expected an empty delta, got %v", slices.Concat(conv, derived)))
	}
	for k := range sc.conv {
		if !slices.Contains(conv, k) {
			reasons = append(reasons, "entities_to_update lacks "+k)
		}
	}
	for k := range sc.derived {
		if !slices.Contains(derived, k) {
			reasons = append(reasons, "derived_entities_to_update lacks "+k)
		}
	}
	for _, k := range slices.Concat(conv, derived) {
		_, changed := sc.conv[k]
		_, changedDerived := sc.derived[k]
		_, wasKnown := sc.known[k]
		_, wasDerived := sc.knownDerived[k]
		if (wasKnown || wasDerived) && !changed && !changedDerived {
			reasons = append(reasons, "resent unchanged "+k+" (full state, not a delta)")
		}
	}
	slices.Sort(reasons) // map order must not change the report
	return reasons
}

// normalizedKeys lists keys as memory stores them, so "Working Diagnosis"
// counts as working_diagnosis; a key memory cannot store is kept as written
// (the merge check reports it).
func normalizedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		if n, err := memory.NormalizeKey(k); err == nil {
			k = n
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Helpers that keep the scenario table readable.

func evalUser(text string) api.Message { return api.Message{Role: "user", Content: text} }

func evalAssistant(text string) api.Message { return api.Message{Role: "assistant", Content: text} }

// evalToolRound is an assistant call of tool and the result the engine gave.
func evalToolRound(tool, result string) []api.Message {
	call := api.ToolCall{Function: api.ToolCallFunction{Name: tool, Arguments: api.ToolCallFunctionArguments{}}}
	return []api.Message{
		{Role: "assistant", ToolCalls: []api.ToolCall{call}},
		{Role: "tool", Content: result},
	}
}

// evalTurn is the trainee's message followed by any tool rounds.
func evalTurn(user string, rest ...[]api.Message) []api.Message {
	return slices.Concat(append([][]api.Message{{evalUser(user)}}, rest...)...)
}

const vitalsResult = `{"t":180,"hr":118,"rr":28,"spo2":89,"sbp":92,"dbp":58,"temp_c":37.1,"gcs":15,"on_oxygen":false}`

var deltaScenarios = []deltaScenario{
	// First turn: nothing known yet.
	{name: "complaint and diagnosis", category: "first_turn", agent: AgentOrchestrator,
		messages: evalTurn("New patient: 58-year-old man with crushing central chest pain for 40 minutes. I think this is ACS and I want an ECG first."),
		conv:     map[string]any{"chief_complaint": "crushing central chest pain", "working_diagnosis": "ACS"}},
	{name: "feedback style", category: "first_turn", agent: AgentPreceptor,
		messages: evalTurn("When you give me feedback, keep it to short bullet points please."),
		conv:     map[string]any{"feedback_preference": "short bullet points"}},
	{name: "handoff format", category: "first_turn", agent: AgentOrchestrator,
		messages: evalTurn("We'll hand this patient over in SBAR format at the end."),
		conv:     map[string]any{"handoff_format_preference": "SBAR"}},
	{name: "analgesia choice", category: "first_turn", agent: AgentPharmacist,
		messages: evalTurn("For her pain I'd rather use fentanyl than morphine."),
		conv:     map[string]any{"analgesia_preference": "fentanyl"}},

	// Overwrite: a known fact changes.
	{name: "diagnosis revised", category: "overwrite", agent: AgentOrchestrator,
		known:    map[string]any{"working_diagnosis": "asthma exacerbation"},
		messages: evalTurn("With the hives and the falling blood pressure I now think this is anaphylaxis, not asthma."),
		conv:     map[string]any{"working_diagnosis": "anaphylaxis"}},
	{name: "handoff format changed", category: "overwrite", agent: AgentOrchestrator,
		known:    map[string]any{"handoff_format_preference": "SBAR", "chief_complaint": "shortness of breath"},
		messages: evalTurn("Let's use I-PASS for the handoff instead of SBAR."),
		conv:     map[string]any{"handoff_format_preference": "I-PASS"}},
	{name: "analgesia changed", category: "overwrite", agent: AgentPharmacist,
		known:    map[string]any{"analgesia_preference": "morphine"},
		messages: evalTurn("Scratch the morphine, she told me she's allergic. Go with fentanyl."),
		conv:     map[string]any{"analgesia_preference": "fentanyl"}},
	{name: "plan replaced", category: "overwrite", agent: AgentOrchestrator,
		known:    map[string]any{"plan": "high-flow oxygen then nebulisers", "working_diagnosis": "COPD exacerbation"},
		messages: evalTurn("New plan: controlled oxygen to 88-92%, then nebulisers, then a blood gas."),
		conv:     map[string]any{"plan": "controlled oxygen to 88-92%, nebulisers, blood gas"}},

	// Append: a new fact joins known ones, which stay unsent.
	{name: "diagnosis added", category: "append", agent: AgentOrchestrator,
		known:    map[string]any{"chief_complaint": "chest pain"},
		messages: evalTurn("The ECG shows ST elevation in II, III and aVF. My working diagnosis is an inferior STEMI."),
		conv:     map[string]any{"working_diagnosis": "inferior STEMI"}},
	{name: "goal added", category: "append", agent: AgentOrchestrator,
		known:    map[string]any{"working_diagnosis": "sepsis"},
		messages: evalTurn("My goal is antibiotics within the hour."),
		conv:     map[string]any{"goal": "antibiotics within the hour"}},
	{name: "learning goal added", category: "append", agent: AgentPreceptor,
		known:    map[string]any{"feedback_preference": "short bullet points"},
		messages: evalTurn("Today I want to get better at escalating on NEWS2."),
		conv:     map[string]any{"goal": "escalating on NEWS2"}},
	{name: "intent added", category: "append", agent: AgentOrchestrator,
		known:    map[string]any{"working_diagnosis": "neck of femur fracture"},
		messages: evalTurn("Before any analgesia I'm going to ask about allergies."),
		conv:     map[string]any{"intent": "ask about allergies before analgesia"}},

	// Mixed: one fact overwritten, one appended.
	{name: "diagnosis and handoff", category: "mixed", agent: AgentOrchestrator,
		known:    map[string]any{"working_diagnosis": "asthma", "plan": "salbutamol nebulisers"},
		messages: evalTurn("It's anaphylaxis, not asthma. And I want the handoff in SBAR."),
		conv:     map[string]any{"working_diagnosis": "anaphylaxis", "handoff_format_preference": "SBAR"}},
	{name: "drug and route", category: "mixed", agent: AgentPharmacist,
		known:    map[string]any{"analgesia_preference": "morphine"},
		messages: evalTurn("Change that to fentanyl, and I'd like it IV rather than intranasal."),
		conv:     map[string]any{"analgesia_preference": "fentanyl", "route_preference": "IV"}},
	{name: "target and diagnosis", category: "mixed", agent: AgentOrchestrator,
		known:    map[string]any{"chief_complaint": "breathlessness", "goal": "SpO2 94-98%"},
		messages: evalTurn("She retains CO2, so the target is 88-92% now. Working diagnosis: COPD exacerbation."),
		conv:     map[string]any{"goal": "SpO2 88-92%", "working_diagnosis": "COPD exacerbation"}},

	// Tool results: derived entities, private to the agent.
	{name: "vitals read", category: "tool_results", agent: AgentMonitor,
		messages: evalTurn("Check her vitals.", evalToolRound("check_vitals", vitalsResult)),
		derived:  map[string]any{"vitals_retrieved": map[string]any{"t": 180, "hr": 118, "spo2": 89}}},
	{name: "vitals reread", category: "tool_results", agent: AgentMonitor,
		knownDerived: map[string]any{"vitals_retrieved": map[string]any{"t": 60, "hr": 124, "spo2": 86}},
		messages:     evalTurn("Recheck the vitals now that she's on oxygen.", evalToolRound("check_vitals", `{"t":240,"hr":112,"rr":24,"spo2":94,"sbp":98,"dbp":62,"on_oxygen":true}`)),
		derived:      map[string]any{"vitals_retrieved": map[string]any{"t": 240, "hr": 112, "spo2": 94}}},
	{name: "vitals with score", category: "tool_results", agent: AgentMonitor,
		messages: evalTurn("Read me the vitals and the NEWS2.", evalToolRound("check_vitals", `{"t":300,"hr":118,"rr":28,"spo2":89,"sbp":92,"dbp":58,"temp_c":37.1,"gcs":15,"on_oxygen":false,"news2":9,"news2_parts":{"rr":3,"spo2":3,"sbp":2,"hr":1}}`)),
		derived:  map[string]any{"vitals_retrieved": map[string]any{"t": 300, "hr": 118}, "news2_result": 9}},
	{name: "assessment recorded", category: "tool_results", agent: AgentOrchestrator,
		messages: evalTurn("Record my assessment: likely tension pneumothorax on the left.", evalToolRound("record_assessment", `{"assessment_id":"asm_4","recorded":true}`)),
		conv:     map[string]any{"working_diagnosis": "left tension pneumothorax"},
		derived:  map[string]any{"assessment_id": "asm_4"}},

	// Empty: nothing changed, so nothing is sent.
	{name: "acknowledgement", category: "empty", agent: AgentOrchestrator,
		known: map[string]any{"working_diagnosis": "anaphylaxis"}, messages: evalTurn("ok"), empty: true},
	{name: "thanks", category: "empty", agent: AgentMonitor,
		messages: evalTurn("Thanks."), empty: true},
	{name: "understood", category: "empty", agent: AgentPreceptor,
		known: map[string]any{"goal": "escalating on NEWS2"}, messages: evalTurn("Got it, that makes sense."), empty: true},

	// Large: many facts in one turn.
	{name: "full handover", category: "large", agent: AgentOrchestrator,
		messages: evalTurn("Handover from the paramedics: 72-year-old woman, sudden breathlessness and pleuritic chest pain since this morning. " +
			"Working diagnosis pulmonary embolism; differential pneumonia or ACS. Plan: oxygen, IV access, CTPA. " +
			"Goal: SpO2 94-98%. She prefers fentanyl for pain, and hand her over in I-PASS."),
		conv: map[string]any{
			"chief_complaint": "breathlessness and pleuritic chest pain", "working_diagnosis": "pulmonary embolism",
			"differential": "pneumonia, ACS", "plan": "oxygen, IV access, CTPA", "goal": "SpO2 94-98%",
			"analgesia_preference": "fentanyl", "handoff_format_preference": "I-PASS",
		}},
	{name: "long trend", category: "large", agent: AgentMonitor,
		messages: evalTurn("Pull the whole trend since arrival.", evalToolRound("check_vitals",
			`{"readings":[{"t":0,"hr":128,"spo2":84},{"t":60,"hr":126,"spo2":85},{"t":120,"hr":125,"spo2":87},{"t":180,"hr":122,"spo2":89},`+
				`{"t":240,"hr":120,"spo2":90},{"t":300,"hr":118,"spo2":92},{"t":360,"hr":115,"spo2":93},{"t":420,"hr":112,"spo2":94},`+
				`{"t":480,"hr":110,"spo2":95},{"t":540,"hr":108,"spo2":95}]}`)),
		derived: map[string]any{"vitals_retrieved": map[string]any{"t": 540, "hr": 108, "spo2": 95}}},

	// Malformed: broken or misleading material in the prompt; the output must still conform.
	{name: "legacy reply in history", category: "malformed", agent: AgentOrchestrator,
		known: map[string]any{"chief_complaint": "wheeze"},
		messages: []api.Message{
			evalUser("She's wheezy."),
			evalAssistant(`{"reply":"Noted.","entities":{"chief_complaint":"wheeze","working_diagnosis":"asthma"}}`),
			evalUser("Her lips are swelling too. I now think this is anaphylaxis."),
		},
		conv: map[string]any{"working_diagnosis": "anaphylaxis"}},
	{name: "truncated tool result", category: "malformed", agent: AgentMonitor,
		messages: evalTurn("Check the vitals.", evalToolRound("check_vitals", `{"t":120,"hr":118,"rr":2`))},
	{name: "json in the trainee's text", category: "malformed", agent: AgentOrchestrator,
		messages: evalTurn(`Ignore this pasted note: {"entities": {"x": 1}, "reply": ` + "\n" + `My working diagnosis is "urosepsis".`),
		conv:     map[string]any{"working_diagnosis": "urosepsis"}},
	{name: "plain text reply in history", category: "malformed", agent: AgentOrchestrator,
		known: map[string]any{"working_diagnosis": "sepsis"},
		messages: []api.Message{
			evalUser("What now?"),
			evalAssistant("Sure! Let me think about that... (no JSON here)"),
			evalUser("The plan is cultures, then antibiotics, then a fluid bolus."),
		},
		conv: map[string]any{"plan": "cultures, antibiotics, fluid bolus"}},
}
