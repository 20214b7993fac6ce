package session

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/session/physio"
	"github.com/ward-sim/ward/session/records"
)

// agentMessages are the messages agents spoke in a turn, leaving out ward's own notes.
func agentMessages(events []Event) []MessageEvent {
	var out []MessageEvent
	for _, m := range messages(events) {
		if m.Agent != memory.SystemAgent {
			out = append(out, m)
		}
	}
	return out
}

func speakers(events []Event) []string {
	var out []string
	for _, m := range agentMessages(events) {
		out = append(out, m.Agent)
	}
	return out
}

func TestPharmacistMentionVoicesEngineVerdict(t *testing.T) {
	r := newRig(t)
	r.turn("/admit patient_1 fracture-morphine-allergy")
	verdict := onlyOne(t, r.engine("patient_1").CheckMedication("morphine"), "engine verdict on morphine")
	if verdict.Level != "hard_stop" {
		t.Fatalf("the engine's verdict on morphine is %+v, want a hard stop", verdict)
	}
	events := r.turn("@Pharmacist can I give morphine?")
	route := onlyOne(t, only[RouteEvent](events), "route")
	if route.Agent != agents.AgentPharmacist || route.Source != agents.RouteMention {
		t.Errorf("route %+v, want the Pharmacist by mention", route)
	}
	said := onlyOne(t, agentMessages(events), "agent message")
	if said.Agent != agents.AgentPharmacist {
		t.Fatalf("%s answered, want the Pharmacist", said.Agent)
	}
	if !strings.HasPrefix(said.Text, "STOP — morphine") || !strings.Contains(said.Text, verdict.Reason) {
		t.Errorf("the Pharmacist said %q, want the engine's hard stop and its reason %q", said.Text, verdict.Reason)
	}
}

// Asking whether a drug may be given is not giving it: a question must not be logged as an
// administration, nor count as a critical error in the debrief.
func TestAskingThePharmacistIsNotAnOrder(t *testing.T) {
	for _, question := range []string{"@Pharmacist can I give morphine?", "@Pharmacist is it safe to give morphine 5 mg IV?"} {
		t.Run(question, func(t *testing.T) {
			r := newRig(t)
			r.turn("/admit patient_1 fracture-morphine-allergy")
			events := r.turn(question)
			for _, a := range simOf(events, physio.EventAction) {
				if a.Action.Kind == "medication" {
					t.Errorf("a question was applied as an order: %+v", a.Action)
				}
			}
			if errs := r.engine("patient_1").CriticalErrors(); len(errs) != 0 {
				t.Errorf("a question left critical errors: %+v", errs)
			}
			said := onlyOne(t, agentMessages(events), "agent message")
			if !strings.HasPrefix(said.Text, "STOP — morphine") {
				t.Errorf("the Pharmacist said %q, want the engine's verdict on the drug asked about", said.Text)
			}
		})
	}
}

// The Orchestrator's plan holds the gate: the turn ends and nobody else acts until the trainee
// confirms. "yes" lifts it and the plan's agents speak in order; anything else is a new
// instruction and drops the plan. The gate is read from the stored history, so a restart keeps it.
func TestOrchestratorPlanHoldsTheGate(t *testing.T) {
	tests := []struct {
		name    string
		restart bool
		reply   string
		lifts   bool
	}{
		{"yes lifts it", false, "yes", true},
		{"yes lifts it after a restart", true, "yes", true},
		{"go ahead lifts it", false, "go ahead", true},
		{"a new instruction drops the plan", false, "applying oxygen via non-rebreather at 15 L/min", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			r.turn("/admit patient_1 asthma-exacerbation")
			events := r.turn("what should I do next?")
			said := onlyOne(t, agentMessages(events), "agent message")
			plan := r.s.cfg.Team.PlanIn(said.Text)
			if said.Agent != agents.AgentOrchestrator || len(plan) < 2 {
				t.Fatalf("%s said %q, want the Orchestrator's plan of at least two steps", said.Agent, said.Text)
			}
			gates := only[GateEvent](events)
			if len(gates) != 1 || gates[0].State != agents.GateWaiting {
				t.Fatalf("gate events %+v, want one waiting", gates)
			}
			if _, ok := events[len(events)-2].(GateEvent); !ok {
				t.Errorf("the turn went on after the gate: %T follows it", events[len(events)-2])
			}
			if tt.restart {
				r.restart()
			}

			events = r.turn(tt.reply)
			gates = only[GateEvent](events)
			if !tt.lifts {
				if len(gates) != 0 || slices.Equal(speakers(events), plan) {
					t.Errorf("a new instruction ran the plan: gates %+v, speakers %v", gates, speakers(events))
				}
				if later := only[GateEvent](r.turn("yes")); len(later) != 0 {
					t.Errorf("a dropped plan was lifted later: %+v", later)
				}
				return
			}
			if len(gates) != 1 || gates[0].State != agents.GateLifted {
				t.Fatalf("gate events %+v, want one lifted", gates)
			}
			if first := slices.IndexFunc(events, func(e Event) bool { _, ok := e.(RouteEvent); return ok }); first < slices.IndexFunc(events, func(e Event) bool { _, ok := e.(GateEvent); return ok }) {
				t.Error("an agent was routed before the gate lifted")
			}
			if got := speakers(events); !slices.Equal(got, plan) {
				t.Errorf("speakers %v, want the plan %v in order", got, plan)
			}
			for _, route := range only[RouteEvent](events) {
				if route.Source != agents.RouteRule {
					t.Errorf("plan step routed by %q, want rule", route.Source)
				}
			}
		})
	}
}

// Entities events name the agent and report its merge; the entities persist with the patient,
// survive a restart, and a clear archives them.
func TestEntitiesReportPersistAndArchive(t *testing.T) {
	r := newRig(t)
	r.turn("/admit patient_1 asthma-exacerbation")
	derivedKeys := []string{"news2_result", "vitals_retrieved"}

	first := onlyOne(t, only[EntitiesEvent](r.turn("/vitals")), "entities event")
	if first.Agent != agents.AgentMonitor || first.PatientID != "patient_1" || first.Error != "" {
		t.Errorf("entities event %+v, want the Monitor's for patient_1", first)
	}
	if !subset(derivedKeys, first.Merge.Added) || len(first.Merge.Updated) != 0 || first.Derived["vitals_retrieved"] == nil {
		t.Errorf("first /vitals merge %+v derived %v, want %v added", first.Merge, first.Derived, derivedKeys)
	}
	second := onlyOne(t, only[EntitiesEvent](r.turn("/vitals")), "entities event")
	if !subset(derivedKeys, second.Merge.Updated) || len(second.Merge.Added) != 0 {
		t.Errorf("second /vitals merge %+v, want %v updated", second.Merge, derivedKeys)
	}
	line, _ := EncodeJSON(second)
	for _, field := range []string{`"agent":"Monitor"`, `"added":[]`, `"evicted":[]`, `"updated":["news2_result","vitals_retrieved"]`} {
		if !strings.Contains(string(line), field) {
			t.Errorf("entities JSON lacks %s: %s", field, line)
		}
	}
	patient := onlyOne(t, only[EntitiesEvent](r.turn("how are you feeling?")), "entities event")
	sc, _ := r.s.cfg.Scenarios.Get("asthma-exacerbation")
	if patient.Agent != agents.AgentPatient || patient.Conversation["chief_complaint"] != sc.ChiefComplaint {
		t.Errorf("Patient entities %+v, want the chief complaint in the conversation", patient)
	}

	stored := storedEntities(t, r.dump().Entities["patient_1"])
	monitor := stored.Derived[agents.AgentMonitor]
	i := slices.IndexFunc(monitor, func(d memory.DerivedEntity) bool { return d.Key == "vitals_retrieved" })
	if i < 0 || monitor[i].AgentName != agents.AgentMonitor || monitor[i].SourceTool != "check_vitals" || monitor[i].ValidFor <= 0 {
		t.Errorf("stored Monitor entities %+v, want vitals_retrieved from check_vitals with a TTL", monitor)
	}
	if !slices.ContainsFunc(stored.Conversation, func(c memory.ConversationEntity) bool { return c.Key == "chief_complaint" }) {
		t.Errorf("stored conversation entities %+v lack the chief complaint", stored.Conversation)
	}

	before, _ := json.Marshal(r.s.sim.entities("patient_1"))
	r.restart()
	if after, _ := json.Marshal(r.s.sim.entities("patient_1")); string(after) != string(before) {
		t.Errorf("entities changed across a restart:\nbefore %s\nafter  %s", before, after)
	}

	r.turn("/clear")
	d := r.dump()
	if len(d.Entities) != 0 {
		t.Errorf("a clear left entities behind: %v", d.Entities)
	}
	if len(d.Archives) != 1 {
		t.Fatalf("%d archives, want 1", len(d.Archives))
	}
	archived := storedEntities(t, d.Archives[0].Entities["patient_1"])
	if a, _ := json.Marshal(archived); string(a) != string(mustJSON(t, stored)) {
		t.Errorf("archived entities differ from the stored ones:\narchived %s\nstored   %s", a, mustJSON(t, stored))
	}
}

// Stats counts every merge the entities events reported, per patient and in total, from the store.
func TestStatsCountMerges(t *testing.T) {
	r := newRig(t)
	merges := map[string]int64{}
	for _, in := range []string{
		"/admit patient_1 asthma-exacerbation", "/vitals", "how are you feeling?", "what should I do next?", "yes",
		"/admit patient_2 anaphylaxis", "give epinephrine 0.5 mg IM", "/vitals",
	} {
		for _, e := range only[EntitiesEvent](r.turn(in)) {
			if e.Error == "" {
				merges[e.PatientID]++
			}
		}
	}
	doc, err := records.Stats(r.store)
	if err != nil {
		t.Fatal(err)
	}
	if doc.SessionID != r.s.ID() || len(doc.Patients) != 2 {
		t.Fatalf("stats for session %s with %d patients, want %s with 2", doc.SessionID, len(doc.Patients), r.s.ID())
	}
	var total int64
	for id, n := range merges {
		total += n
		if got := doc.Patients[id].Merges; got != n {
			t.Errorf("%s: %d merges counted, %d reported by entities events", id, got, n)
		}
	}
	if doc.Total.Merges != total || total < 7 {
		t.Errorf("total merges %d, entities events %d", doc.Total.Merges, total)
	}
	if doc.Total.Refused != 0 || doc.Total.ParseErrors != 0 || doc.Total.FormatFallbacks != 0 {
		t.Errorf("offline agents' output was refused or malformed: %+v", doc.Total)
	}
}

// A Monitor's derived entities are its own: the Pharmacist's prompt never shows them, while the
// Monitor's own next prompt does, until they expire.
func TestMonitorDerivedEntitiesAreScopedToTheMonitor(t *testing.T) {
	r := newRig(t)
	r.turn("/admit patient_1 asthma-exacerbation")
	r.turn("how are you feeling?") // a conversation entity every agent sees
	r.turn("/vitals")              // the Monitor derives vitals_retrieved and news2_result

	const ask = "@Pharmacist any interactions to know about?"
	events := r.turn(ask)
	pharmacist := onlyOne(t, callsOf(t, r, ask), "Pharmacist call")
	context := dynamicContext(t, pharmacist)
	if !strings.Contains(context, "chief_complaint") {
		t.Fatalf("the Pharmacist sees no entities at all, so scoping is not tested:\n%s", context)
	}
	for _, key := range []string{"vitals_retrieved", "news2_result"} {
		if strings.Contains(context, key) {
			t.Errorf("the Pharmacist's prompt shows the Monitor's %s:\n%s", key, context)
		}
	}
	if ev := onlyOne(t, only[EntitiesEvent](events), "entities event"); ev.Derived["vitals_retrieved"] != nil {
		t.Errorf("the Pharmacist's entity view holds the Monitor's vitals: %v", ev.Derived)
	}

	r.turn("/vitals")
	if own := dynamicContext(t, callsOf(t, r, "/vitals")[0]); !strings.Contains(own, "vitals_retrieved") {
		t.Errorf("the Monitor's own prompt lacks its live vitals_retrieved:\n%s", own)
	}
	r.turn("/wait 6m")
	const later = "@Monitor what's the trend?"
	r.turn(later)
	if stale := dynamicContext(t, callsOf(t, r, later)[0]); strings.Contains(stale, "vitals_retrieved") {
		t.Errorf("the Monitor still sees a reading past its TTL:\n%s", stale)
	}
}

func subset(want, got []string) bool {
	for _, w := range want {
		if !slices.Contains(got, w) {
			return false
		}
	}
	return true
}

func storedEntities(t *testing.T, raw json.RawMessage) memory.Entities {
	t.Helper()
	var e memory.Entities
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatalf("stored entities %s: %v", raw, err)
	}
	return e
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
