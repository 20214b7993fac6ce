package memory

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func merge(t *testing.T, e *Entities, d Delta) MergeResult {
	t.Helper()
	r, err := e.Merge(d)
	if err != nil {
		t.Fatalf("merge: %v", err)
	}
	return r
}

func orderedKeys(e *Entities) []string {
	var keys []string
	for _, c := range e.Conversation {
		keys = append(keys, c.Key)
	}
	return keys
}

func TestConversationFIFOEvictionAtEight(t *testing.T) {
	var e Entities
	for i := 1; i <= 7; i++ {
		r := merge(t, &e, Delta{Agent: "Patient", Now: float64(i), Conversation: map[string]any{fmt.Sprintf("k%d_preference", i): i}})
		if len(r.Evicted) != 0 {
			t.Fatalf("nothing is evicted up to 7, got %v at %d", r.Evicted, i)
		}
	}
	r := merge(t, &e, Delta{Agent: "Patient", Now: 8, Conversation: map[string]any{"k8_preference": 8}})
	want := MergeResult{Added: []string{"k8_preference"}, Evicted: []string{"k1_preference"}}
	if !reflect.DeepEqual(r, want) {
		t.Fatalf("merge of the 8th = %+v, want %+v", r, want)
	}
	if len(e.Conversation) != MaxEntities || e.Conversation[0].Key != "k2_preference" {
		t.Fatalf("after eviction: %v", orderedKeys(&e))
	}
	if e.Stats.Evictions != 1 || e.Stats.Merges != 8 {
		t.Fatalf("stats = %+v", e.Stats)
	}
}

func TestOverwriteKeepsInsertionOrder(t *testing.T) {
	var e Entities
	merge(t, &e, Delta{Agent: "Patient", Now: 10, Conversation: map[string]any{"a_preference": "x", "b_preference": "y"}})
	r := merge(t, &e, Delta{Agent: "Orchestrator", Now: 20, Conversation: map[string]any{"a_preference": "x2", "c_preference": "z"}})
	if !reflect.DeepEqual(r, MergeResult{Updated: []string{"a_preference"}, Added: []string{"c_preference"}}) {
		t.Fatalf("result = %+v", r)
	}
	a := e.Conversation[0]
	if a.Key != "a_preference" || a.Value != "x2" || a.InsertedAt != 10 || a.UpdatedAt != 20 {
		t.Fatalf("overwrite must keep inserted_at and place: %+v", a)
	}
	// a, though just updated, is still the oldest by insertion and goes first
	for i := range 5 {
		merge(t, &e, Delta{Agent: "Patient", Now: 30, Conversation: map[string]any{fmt.Sprintf("n%d_preference", i): i}})
	}
	if got := orderedKeys(&e); got[0] != "b_preference" {
		t.Fatalf("FIFO follows insertion, not update: %v", got)
	}
}

func TestDerivedTTLExpiry(t *testing.T) {
	var e Entities
	merge(t, &e, Delta{Agent: "Monitor", Now: 100, SourceTool: "check_vitals", SourceParams: map[string]any{"patient_id": "patient_1"},
		ValidFor: 120, Derived: map[string]any{"vitals_retrieved": "HR 110"}})
	merge(t, &e, Delta{Agent: "Monitor", Now: 100, SourceTool: "lookup_ward", Derived: map[string]any{"bed_id": "B4"}})
	tests := []struct {
		now  float64
		want map[string]any
	}{
		{100, map[string]any{"vitals_retrieved": "HR 110", "bed_id": "B4"}},
		{219.9, map[string]any{"vitals_retrieved": "HR 110", "bed_id": "B4"}},
		{220, map[string]any{"bed_id": "B4"}}, // expired, not shown; no TTL never expires
	}
	for _, tt := range tests {
		c, err := e.Context("Monitor", tt.now)
		if err != nil || !reflect.DeepEqual(c.Derived, tt.want) {
			t.Fatalf("at %v derived = %v (%v), want %v", tt.now, c.Derived, err, tt.want)
		}
	}
	// a fresh result renews the TTL but keeps the FIFO place
	merge(t, &e, Delta{Agent: "Monitor", Now: 300, SourceTool: "check_vitals", ValidFor: 120, Derived: map[string]any{"vitals_retrieved": "HR 96"}})
	c, _ := e.Context("Monitor", 400)
	got := e.Derived["Monitor"][0]
	if c.Derived["vitals_retrieved"] != "HR 96" || got.InsertedAt != 100 || got.SourceParams != nil {
		t.Fatalf("renewed entity = %+v", got)
	}
}

func TestDerivedScopeIsolationAndPerAgentFIFO(t *testing.T) {
	var e Entities
	merge(t, &e, Delta{Agent: "Patient", Now: 1, Conversation: map[string]any{"working_diagnosis": "NSTEMI"}})
	for i := range 8 {
		merge(t, &e, Delta{Agent: "Pharmacist", Now: float64(i), SourceTool: "check_dose", Derived: map[string]any{fmt.Sprintf("dose%d_result", i): i}})
	}
	merge(t, &e, Delta{Agent: "Monitor", Now: 9, SourceTool: "check_vitals", Derived: map[string]any{"vitals_retrieved": "HR 100"}})

	pharm, _ := e.Context("Pharmacist", 10)
	mon, _ := e.Context("Monitor", 10)
	pre, _ := e.Context("Preceptor", 10)
	if len(pharm.Derived) != MaxEntities || pharm.Derived["dose0_result"] != nil || pharm.Derived["vitals_retrieved"] != nil {
		t.Fatalf("pharmacist sees %v", pharm.Derived)
	}
	if !reflect.DeepEqual(mon.Derived, map[string]any{"vitals_retrieved": "HR 100"}) {
		t.Fatalf("monitor sees %v", mon.Derived)
	}
	if len(pre.Derived) != 0 {
		t.Fatalf("an agent with no derived entities sees none of the others': %v", pre.Derived)
	}
	for _, c := range []AgentContext{pharm, mon, pre} {
		if c.Conversation["working_diagnosis"] != "NSTEMI" {
			t.Fatalf("every agent sees the conversation entities: %v", c.Conversation)
		}
	}
}

func TestMergeRefusals(t *testing.T) {
	tests := []struct {
		name    string
		d       Delta
		wantErr string
	}{
		{"empty agent_name", Delta{Conversation: map[string]any{"goal": "x"}}, "agent_name is required"},
		{"key in both sections", Delta{Agent: "A", Conversation: map[string]any{"bed": 1}, Derived: map[string]any{"bed": 2}}, "claimed as both"},
		{"derived key sent as conversation", Delta{Agent: "A", Conversation: map[string]any{"patient_id": "p1"}}, "derived key by convention"},
		{"conversation key sent as derived", Delta{Agent: "A", Derived: map[string]any{"time_preference": "3pm"}}, "conversation key by convention"},
		{"collision after normalizing", Delta{Agent: "A", Conversation: map[string]any{"Pain Score": 1, "pain_score": 2}}, "collide"},
		{"bad key", Delta{Agent: "A", Conversation: map[string]any{"dx (working)": 1}}, "only letters"},
		{"oversized value", Delta{Agent: "A", Conversation: map[string]any{"note": strings.Repeat("x", 2000)}}, "over 1024"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := Entities{}
			merge(t, &e, Delta{Agent: "A", Now: 1, Conversation: map[string]any{"goal": "stabilise"}})
			before, _ := json.Marshal(e.Conversation)
			_, err := e.Merge(tt.d)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.wantErr)
			}
			after, _ := json.Marshal(e.Conversation)
			if string(before) != string(after) || e.Stats.Refused != 1 {
				t.Fatal("a refused delta must change nothing and be counted")
			}
		})
	}
	if _, err := (&Entities{}).Context("", 0); !errors.Is(err, ErrNoAgent) {
		t.Fatalf("context without an agent: %v", err)
	}
}

func TestMergeResultJSONHasNoNulls(t *testing.T) {
	b, err := json.Marshal(MergeResult{Added: []string{"goal"}})
	if err != nil || string(b) != `{"updated":[],"added":["goal"],"evicted":[]}` {
		t.Fatalf("got %s, %v", b, err)
	}
}

func TestMergeIsDeterministicAndNormalizesKeys(t *testing.T) {
	var e Entities
	r := merge(t, &e, Delta{Agent: "Patient", Conversation: map[string]any{"Pain-Score": 7, "chief complaint": "chest pain", "allergy_intent": "x"}})
	if want := []string{"allergy_intent", "chief_complaint", "pain_score"}; !reflect.DeepEqual(r.Added, want) {
		t.Fatalf("added %v, want sorted normalized %v", r.Added, want)
	}
}

func TestEntitiesJSONRoundTrip(t *testing.T) {
	var e Entities
	merge(t, &e, Delta{Agent: "Patient", Now: 5, Conversation: map[string]any{"goal": "pain relief"}})
	merge(t, &e, Delta{Agent: "Monitor", Now: 6, SourceTool: "check_vitals", SourceParams: map[string]any{"patient_id": "patient_1"},
		ValidFor: 60, Derived: map[string]any{"vitals_retrieved": map[string]any{"hr": 101.0}}})
	b, err := json.Marshal(&e)
	if err != nil {
		t.Fatal(err)
	}
	var back Entities
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(e.Conversation, back.Conversation) || !reflect.DeepEqual(e.Derived, back.Derived) {
		t.Fatalf("round trip changed entities:\n%s", b)
	}
	for _, field := range []string{`"agent_name":"Monitor"`, `"source_tool":"check_vitals"`, `"valid_for":60`, `"inserted_at":6`} {
		if !strings.Contains(string(b), field) {
			t.Errorf("JSON lacks %s: %s", field, b)
		}
	}
}

func TestLatencyP95(t *testing.T) {
	var l Latency
	for i := 1; i <= 300; i++ { // only the last 128 (173..300) count
		l.Observe(durationNs(i))
	}
	if got := l.P95(); got != durationNs(294) {
		t.Fatalf("p95 = %v, want 294ns", got)
	}
	if l.Count != 300 || l.MaxNs != 300 || len(l.Recent) != latencySamples || l.TotalNs != 300*301/2 {
		t.Fatalf("latency = %+v", l)
	}
	sum := EntityStats{Merges: 2, MergeLatency: l}.Plus(EntityStats{Merges: 3, ParseErrors: 1})
	if sum.Merges != 5 || sum.ParseErrors != 1 || sum.MergeLatency.Count != 300 {
		t.Fatalf("sum = %+v", sum)
	}
}

func durationNs(n int) time.Duration { return time.Duration(n) }
