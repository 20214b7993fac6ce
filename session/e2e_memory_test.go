package session

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/session/action"
	"github.com/ward-sim/ward/session/physio"
)

// callsOf returns the LLM calls of the latest turn whose input was input.
func callsOf(t *testing.T, r *rig, input string) []CallRecord {
	t.Helper()
	turns := r.s.turns
	for i := len(turns) - 1; i >= 0; i-- {
		if turns[i].Input == input {
			if len(turns[i].Calls) == 0 {
				t.Fatalf("turn %q made no LLM call", input)
			}
			return turns[i].Calls
		}
	}
	t.Fatalf("no turn %q in the inspector records", input)
	return nil
}

// dynamicContext is the system message a call carries after its window: the measured vitals,
// entities, snapshot and recalled memory of that turn. The static prefix and the window are
// left out, so a fact found here was put there by this turn's context, not by an old message.
func dynamicContext(t *testing.T, c CallRecord) string {
	t.Helper()
	msgs := c.Trace.Messages
	i := 1 + c.Trace.WindowLen
	if i >= len(msgs)-1 || msgs[i].Role != "system" {
		t.Fatalf("call %s has no dynamic context after its %d window messages: %d messages", c.Trace.Agent, c.Trace.WindowLen, len(msgs))
	}
	return msgs[i].Content
}

// The safety case: a morphine allergy disclosed at T+3 min is in the prompt when morphine
// is ordered at T+15 min, long after the early phase that recalls everything, and the engine
// stops the order as well: the Pharmacist says so and nothing is given.
func TestMorphineAllergyRecalledWhenMorphineIsOrdered(t *testing.T) {
	r := newRig(t)
	sc, ok := r.s.cfg.Scenarios.Get("fracture-morphine-allergy")
	if !ok {
		t.Fatal("no fracture-morphine-allergy scenario")
	}
	allergy := onlyOne(t, sc.DisclosuresAbout("allergies"), "allergy disclosure").Text

	r.turn("/admit patient_1 fracture-morphine-allergy")
	r.turn("/wait 3m")
	told := messages(r.turn("any allergies?"))
	if len(told) != 1 || !strings.Contains(told[0].Text, allergy) {
		t.Fatalf("the patient did not disclose the allergy when asked: %+v", told)
	}
	r.turn("IV access")
	r.turn("/wait 12m")

	// A turn with no treatment at T+15 does not carry the allergy: recall is selective.
	r.turn("how is the pain now?")
	quiet := callsOf(t, r, "how is the pain now?")[0]
	if strings.Contains(dynamicContext(t, quiet), allergy) || slices.Contains(quiet.Trace.RecallRules, "safety") {
		t.Errorf("a turn with no treatment recalled the allergy (rules %v)", quiet.Trace.RecallRules)
	}

	order := "give morphine 5 mg IV and recheck her obs" // the check makes the team answer too
	events := r.turn(order)
	call := callsOf(t, r, order)[0]
	rules := call.Trace.RecallRules
	if !slices.Contains(rules, "safety") || slices.Contains(rules, "early") {
		t.Errorf("recall rules %v, want safety and not the early phase (T+15 min)", rules)
	}
	if !strings.Contains(dynamicContext(t, call), allergy) {
		t.Errorf("the morphine order's prompt context does not hold the allergy %q:\n%s", allergy, dynamicContext(t, call))
	}
	if !slices.ContainsFunc(call.Recall.Items, func(s memory.Selected) bool {
		return s.Rule == memory.RuleSafety && s.Category == memory.PatientDisclosures && s.Item.Text == allergy && s.Item.T == 180
	}) {
		t.Errorf("recall items %+v, want the T+3 min allergy selected by the safety rule", call.Recall.Items)
	}
	s := onlyOne(t, simOf(events, physio.EventSafety), "safety event").Safety
	if s.Level != "hard_stop" || s.Drug != "morphine" || !s.AllergiesAsked || !s.Known {
		t.Errorf("safety = %+v, want a known hard stop on morphine after allergies were asked", s)
	}
	if o := onlyOne(t, simOf(events, physio.EventOrder), "order").Order; o.Given {
		t.Errorf("a known allergy did not stop the order: %+v", o)
	}
	if said := agentMessages(events); len(said) == 0 || said[0].Agent != agents.AgentPharmacist ||
		!strings.HasPrefix(said[0].Text, "STOP — morphine allergy (") {
		t.Errorf("the turn opened with %+v, want the Pharmacist's stop", said)
	}
}

// The five-part compound message and smaller ones: the output budget grows with the parts, and a
// compound message carries a checklist that names every part.
func TestCompoundMessagesGetBudgetAndChecklist(t *testing.T) {
	tests := []struct {
		text       string
		parts      int
		numPredict int
	}{
		{"checking vitals", 1, 2000},
		{"applying oxygen 15 L NRB, checking vitals", 2, 2000},
		{"applying oxygen 15 L NRB, checking vitals — any allergies?", 3, 3000},
		{"applying oxygen via non-rebreather at 15L/min, checking vitals… What medications? Any allergies? When did this start?", 5, 4000},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d parts", tt.parts), func(t *testing.T) {
			r := newRig(t)
			r.turn("/admit patient_1 asthma-exacerbation")
			events := r.turn(tt.text)
			compound := memory.DetectCompound(partsOf(action.Parse(tt.text)), tt.text)
			if len(compound.Checklist) != tt.parts {
				t.Fatalf("%d parts detected, want %d: %+v", len(compound.Checklist), tt.parts, compound.Checklist)
			}
			calls := only[LLMCallEvent](events)
			if len(calls) == 0 {
				t.Fatal("no llm_call")
			}
			for _, c := range calls {
				if c.NumPredict != tt.numPredict {
					t.Errorf("%s call num_predict %d, want %d", c.Agent, c.NumPredict, tt.numPredict)
				}
			}
			first := callsOf(t, r, tt.text)[0]
			instruction := strings.TrimSpace(compound.Instruction())
			hasChecklist := instruction != "" && strings.Contains(dynamicContext(t, first), instruction)
			if want := tt.parts >= memory.CompoundMin; hasChecklist != want {
				t.Errorf("checklist in the prompt = %v, want %v", hasChecklist, want)
			}
			recorded := r.s.sim.memory("patient_1").Items(memory.CompoundActions)
			if want := tt.parts >= memory.CompoundMin; (len(recorded) == 1) != want {
				t.Errorf("compoundActions memory %+v, want one item: %v", recorded, want)
			}
		})
	}
}

// Every llm_call, as `ward run` prints it: sections, a token estimate and, offline, null where
// Ollama would report its own counts.
func TestLLMCallEventsCarrySectionsAndEstimates(t *testing.T) {
	r := newRig(t)
	calls := ofKind(runJSON(t, r.s, lines(
		"/admit patient_1 asthma-exacerbation",
		"how are you feeling?",
		"/vitals",
		"give salbutamol 5 mg nebulised with oxygen",
		"what should I do next?",
	)), "llm_call")
	if len(calls) < 4 {
		t.Fatalf("%d llm_call events, want one per agent message (at least 4)", len(calls))
	}
	for _, c := range calls {
		sections, ok := c["sections"].(map[string]any)
		if !ok || len(sections) != 5 {
			t.Fatalf("sections = %v, want static, window, dynamic, memory and user", c["sections"])
		}
		sum := 0.0
		for _, k := range []string{agents.SectionStatic, agents.SectionWindow, agents.SectionDynamic, agents.SectionMemory, agents.SectionUser} {
			n, ok := sections[k].(float64)
			if !ok || n < 0 {
				t.Errorf("%s: sections.%s = %v", c.str("agent"), k, sections[k])
			}
			sum += n
		}
		if sections[agents.SectionStatic].(float64) == 0 || sections[agents.SectionUser].(float64) == 0 {
			t.Errorf("%s: empty static or user section: %v", c.str("agent"), sections)
		}
		if est := c.num("prompt_tokens_est"); est <= 0 || est != sum {
			t.Errorf("%s: prompt_tokens_est %g, want the sections' sum %g", c.str("agent"), est, sum)
		}
		for _, k := range []string{"prompt_eval_count", "prompt_eval_ms"} {
			if v, present := c[k]; !present || v != nil {
				t.Errorf("%s: %s = %v (present %v), want null offline", c.str("agent"), k, v, present)
			}
		}
		if c.str("backend") != "offline" || c.str("agent") == "" || c.str("patient_id") != "patient_1" || c.num("num_predict") <= 0 {
			t.Errorf("llm_call %v lacks its backend, agent, patient or budget", c)
		}
		if _, ok := c["recall_rules"].([]any); !ok {
			t.Errorf("%s: recall_rules = %v, want a list", c.str("agent"), c["recall_rules"])
		}
	}
}

// The static system message is the cacheable prefix: it must be byte-identical on every turn of
// one patient, through time passing, state changes, treatments and questions.
func TestStaticPrefixIsByteIdenticalAcrossTurns(t *testing.T) {
	r := newRig(t)
	r.turn("/admit patient_1 asthma-exacerbation")
	inputs := []string{"how are you feeling?", "any allergies?", "/vitals", "/wait 9m", "applying oxygen via non-rebreather at 15 L/min", "/vitals", "where does it hurt?"}
	statics := map[string][]string{}
	changedState := false
	for _, in := range inputs {
		events := r.turn(in)
		changedState = changedState || len(simOf(events, physio.EventState)) > 0
		if strings.HasPrefix(in, "/wait") {
			continue
		}
		for _, c := range callsOf(t, r, in) {
			statics[c.Trace.Agent] = append(statics[c.Trace.Agent], c.Trace.Messages[0].Content)
		}
	}
	if !changedState {
		t.Fatal("the patient never changed state, so the test proves less than it claims")
	}
	for agent, s := range statics {
		if len(s) < 2 {
			t.Fatalf("%s spoke %d times, want at least 2", agent, len(s))
		}
		for i := 1; i < len(s); i++ {
			if s[i] != s[0] {
				t.Errorf("%s's static prefix changed on call %d", agent, i+1)
			}
		}
	}
	r.turn("/admit patient_2 anaphylaxis")
	r.turn("how are you feeling?")
	if other := callsOf(t, r, "how are you feeling?")[0]; other.Trace.Messages[0].Content == statics[agents.AgentPatient][0] {
		t.Error("two patients with different scenarios share one static prefix: the baseline is missing")
	}
}

// exchanges runs n bedside turns with distinct texts and returns each Patient call.
func exchanges(t *testing.T, r *rig, n, waitAt int) []CallRecord {
	t.Helper()
	var calls []CallRecord
	for i := range n {
		if i == waitAt {
			r.turn("/wait 11m") // past 10 sim minutes the window's minimum grows from 8 to 10
		}
		in := fmt.Sprintf("tell me more, part %d", i)
		r.turn(in)
		calls = append(calls, callsOf(t, r, in)[0])
	}
	return calls
}

func TestBlockWindowStaysBounded(t *testing.T) {
	r := newRig(t)
	r.turn("/admit patient_1 asthma-exacerbation")
	calls := exchanges(t, r, 40, 20)
	jumps := 0
	for i, c := range calls {
		// at most Late + Step - 1: a nurse's escalation during the wait is a message of its own,
		// so the window need not hold whole exchanges
		if c.Trace.WindowLen > 17 {
			t.Errorf("exchange %d: window of %d messages, want at most 17", i+1, c.Trace.WindowLen)
		}
		if i > 0 && c.Trace.WindowLen < calls[i-1].Trace.WindowLen {
			jumps++
		}
	}
	if jumps < 3 {
		t.Errorf("the block window's start moved %d times in 40 exchanges, want it to jump in blocks", jumps)
	}
}

// Between jumps the block window keeps its first message and grows, so the prompt up to the end
// of the previous window is byte-identical and Ollama reuses its cache. It must keep doing so
// after the conversation outgrows what the session holds in memory.
func TestBlockWindowNeverSlides(t *testing.T) {
	r := newRig(t)
	r.turn("/admit patient_1 asthma-exacerbation")
	calls := exchanges(t, r, 44, -1)
	for i := 1; i < len(calls); i++ {
		prev, cur := calls[i-1], calls[i]
		if cur.Trace.WindowLen < prev.Trace.WindowLen || prev.Trace.WindowLen == 0 {
			continue // a block jump, or the first window
		}
		if cur.Trace.WindowLen == prev.Trace.WindowLen || cur.Trace.Messages[1].Content != prev.Trace.Messages[1].Content {
			t.Errorf("exchange %d: the window slid (%d → %d messages, first %q → %q)", i+1,
				prev.Trace.WindowLen, cur.Trace.WindowLen, prev.Trace.Messages[1].Content, cur.Trace.Messages[1].Content)
		}
	}
}

// Every item memory puts in a prompt says which of the five rules chose it, and the call's
// recorded rules cover them; the rendered selection is what the prompt carries.
func TestEveryRecalledItemNamesItsRule(t *testing.T) {
	known := []memory.Rule{memory.RuleCore, memory.RuleSafety, memory.RuleQuestion, memory.RuleEarly, memory.RuleVitalsTrend}
	r := newRig(t)
	inputs := []string{
		"/admit patient_1 fracture-morphine-allergy",
		"/vitals", "any allergies?", "what medications do you take?", "IV access", "/wait 11m",
		"/vitals", "give fentanyl 50 mcg IV", "how is the pain now?", "@Pharmacist any interactions to know about?", "/aar",
	}
	items := 0
	for _, in := range inputs {
		r.turn(in)
		if strings.HasPrefix(in, "/admit") || strings.HasPrefix(in, "/wait") {
			continue
		}
		for _, c := range callsOf(t, r, in) {
			for _, it := range c.Recall.Items {
				items++
				if !slices.Contains(known, it.Rule) || !slices.Contains(c.Recall.Rules, it.Rule) {
					t.Errorf("%q: item %+v has rule %q, not one of the call's rules %v", in, it.Item, it.Rule, c.Recall.Rules)
				}
			}
			if !slices.Equal(c.Trace.RecallRules, ruleNames(c.Recall.Rules)) {
				t.Errorf("%q: trace rules %v, recall rules %v", in, c.Trace.RecallRules, c.Recall.Rules)
			}
			if rendered := c.Recall.Render(); rendered != "" && !strings.Contains(dynamicContext(t, c), strings.TrimSpace(rendered)) {
				t.Errorf("%q: the %s prompt does not carry the recalled memory", in, c.Trace.Agent)
			}
		}
	}
	if items == 0 {
		t.Fatal("no memory item reached any prompt")
	}
}

// A monitor reads every sim minute; memory keeps only the readings that changed meaningfully, so
// it stays small over a long shift (and never loses the first or the latest).
func TestMonitoredVitalsArePrunedInMemory(t *testing.T) {
	r := newRig(t)
	r.turn("/admit patient_1 hypoglycaemia")
	r.turn("attach the monitor")
	r.turn("/wait 1h")
	mem := r.s.sim.memory("patient_1")
	readings := len(r.engine("patient_1").Readings())
	kept := len(mem.Items(memory.VitalsMeasurements))
	if readings < 50 || kept == 0 || kept*2 > readings {
		t.Errorf("%d monitor readings, %d kept in memory; want repeats pruned to under half", readings, kept)
	}
}

// Only the agents that read the monitor see measured numbers. The Patient must never quote a
// monitor, so its context says how they look and what they can say, never the engine's state.
func TestOnlyMonitorReadersSeeMeasuredVitals(t *testing.T) {
	r := newRig(t)
	r.turn("/admit patient_1 asthma-exacerbation")
	r.turn("/vitals")
	r.turn("how is your breathing?")
	patient := callsOf(t, r, "how is your breathing?")[0]
	if patient.Trace.Agent != agents.AgentPatient {
		t.Fatalf("bedside talk went to %s", patient.Trace.Agent)
	}
	ctx := dynamicContext(t, patient)
	if strings.Contains(ctx, "vitals") || strings.Contains(ctx, "SpO2") {
		t.Errorf("the Patient's context carries monitor numbers:\n%s", ctx)
	}
	facts := agents.ReadFacts(patient.Trace.Messages)
	look := facts.Persona.Looks[facts.Turn.Look]
	if facts.Turn.Speech != "talks" || !strings.Contains(look.Signs, "accessory muscle use") || facts.Turn.Measured != nil {
		t.Errorf("the Patient's facts %+v (look %+v): want what they can say, how they look, and no measurements", facts.Turn, look)
	}
	if !strings.Contains(patient.Trace.Messages[0].Content, "Patient facts: ") || facts.Persona == nil {
		t.Fatal("the Patient's static text lacks its persona")
	}
	for _, m := range patient.Trace.Messages {
		for _, secret := range []string{"severe", "near-fatal", "Acute severe asthma", "tiring"} {
			if strings.Contains(m.Content, secret) {
				t.Errorf("the Patient's prompt names the state or the diagnosis %q:\n%s", secret, m.Content)
			}
		}
	}

	r.turn("@Monitor what are the latest numbers?")
	monitor := callsOf(t, r, "@Monitor what are the latest numbers?")[0]
	if monitor.Trace.Agent != agents.AgentMonitor {
		t.Fatalf("the mention went to %s", monitor.Trace.Agent)
	}
	if m := agents.ReadFacts(monitor.Trace.Messages).Turn.Measured; m == nil || len(*m) == 0 || (*m)[0].HR == 0 {
		t.Errorf("the Monitor's facts lack the measured vitals:\n%s", dynamicContext(t, monitor))
	}
}

// The window carries recent messages word for word, so recall leaves out what came of them and
// counts it; once the window has moved past a message, recall brings its facts back.
func TestRecallLeavesOutWhatTheWindowShows(t *testing.T) {
	r := newRigWith(t, func(c *Config) {
		c.Window = memory.Window{Mode: memory.WindowSliding, Early: 4, Late: 4, LateAfter: memory.EarlyPhase}
	})
	sc, _ := r.s.cfg.Scenarios.Get("asthma-exacerbation")
	onset := onlyOne(t, sc.DisclosuresAbout("onset"), "onset disclosure").Text
	r.turn("/admit patient_1 asthma-exacerbation")
	r.turn("when did this start?")

	lines := []string{"how are you feeling?", "is it easier to breathe?", "try to slow your breathing down"}
	seen := map[bool]bool{}
	for i, line := range lines {
		r.turn("/wait 1m")
		r.turn(line)
		call := callsOf(t, r, line)[0]
		inWindow := slices.ContainsFunc(call.Trace.Messages[1:1+call.Trace.WindowLen], func(m memory.Message) bool {
			return strings.Contains(m.Content, onset)
		})
		inMemory := strings.Contains(call.Recall.Render(), onset)
		if inWindow == inMemory {
			t.Errorf("line %d: the onset is in the window %v and in memory %v: want exactly one", i+1, inWindow, inMemory)
		}
		if inWindow && len(call.Recall.Shown) == 0 {
			t.Errorf("line %d: recall left items out without counting them", i+1)
		}
		seen[inWindow] = true
	}
	if !seen[true] || !seen[false] {
		t.Fatalf("the window never moved past the onset, or never showed it: %v", seen)
	}
}

// An agent's prompt holds, and its inspector counts, only the memory categories it sees; safety
// items reach every agent.
func TestVisibleToFiltersRecalledAndLeftOutItems(t *testing.T) {
	team, err := agents.LoadTeam("")
	if err != nil {
		t.Fatal(err)
	}
	patient, _ := team.Agent(agents.AgentPatient)
	allergy := memory.Selected{Category: memory.PatientDisclosures, Rule: memory.RuleSafety, Item: memory.Item{Topic: memory.TopicAllergies}}
	finding := memory.Selected{Category: memory.Assessments, Rule: memory.RuleEarly}
	action := memory.Selected{Category: memory.CriticalActions, Rule: memory.RuleCore}
	vitals := memory.Selected{Category: memory.VitalsMeasurements, Rule: memory.RuleCore}
	sel := visibleTo(patient, memory.Selection{Items: []memory.Selected{allergy, vitals, finding}, Shown: []memory.Selected{action, finding}}, false)
	if !slices.Equal(categories(sel.Items), []memory.Category{memory.PatientDisclosures}) ||
		!slices.Equal(categories(sel.Shown), []memory.Category{memory.CriticalActions}) {
		t.Fatalf("the Patient keeps items %v and left-out %v", categories(sel.Items), categories(sel.Shown))
	}
}

func categories(xs []memory.Selected) []memory.Category {
	out := make([]memory.Category, len(xs))
	for i, x := range xs {
		out[i] = x.Category
	}
	return out
}
