package memory

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"
)

// sink keeps benchmark results alive so the compiler cannot drop the work.
var sink any

// timeEach runs op b.N times, timing each call, and reports the 95th percentile beside ns/op.
// The per-call clock reads add a few tens of nanoseconds to both figures.
func timeEach(b *testing.B, op func(i int)) {
	b.Helper()
	samples := make([]int64, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		began := time.Now()
		op(i)
		samples[i] = time.Since(began).Nanoseconds()
	}
	b.StopTimer()
	slices.Sort(samples)
	b.ReportMetric(float64(samples[(len(samples)*95+99)/100-1]), "p95-ns")
}

// twentyMinuteMemory is a busy patient at T+20: about a hundred items.
func twentyMinuteMemory() *Memory {
	m := New(0)
	for i := range 40 {
		t := float64(i) * 30
		_ = m.Record(CriticalActions, Item{T: t, Text: fmt.Sprintf("action %d", i)})
		_ = m.Record(VitalsMeasurements, Item{T: t, Vitals: &Vitals{HR: float64(120 - i), SpO2: float64(88 + i/4), SBP: 140, DBP: 85}})
		if i%4 == 0 {
			_ = m.Record(PatientDisclosures, Item{T: t, Topic: []Topic{TopicAllergies, TopicMedications, TopicHistory, TopicPain}[i/4%4], Text: "disclosed fact"})
			_ = m.Record(KeyQuotes, Item{T: t, Speaker: "patient", Text: "a memorable line"})
		}
		if i%10 == 0 {
			_ = m.Record(StateHistory, Item{T: t, Text: "state change"})
		}
	}
	return m
}

func BenchmarkRecall(b *testing.B) {
	m := twentyMinuteMemory()
	turn := Turn{Now: 1200, Parts: []Part{{Kind: PartTreatment, Name: "morphine"}, {Kind: PartVitals}, {Kind: PartQuestion, Name: "pain"}}}
	timeEach(b, func(int) { sink = m.Recall(turn).Render() })
}

func BenchmarkWindow(b *testing.B) {
	history := conversation(120)
	w := DefaultWindow()
	timeEach(b, func(int) { sink = w.Apply(history, 1200) })
}

// fullEntities holds 7 conversation entities and 7 derived ones for each of five agents.
func fullEntities(b *testing.B) *Entities {
	e := &Entities{}
	for i := range MaxEntities {
		if _, err := e.Merge(Delta{Agent: "Patient", Now: float64(i), Conversation: map[string]any{fmt.Sprintf("c%d_preference", i): "value"}}); err != nil {
			b.Fatal(err)
		}
	}
	for _, agent := range []string{"Orchestrator", "Patient", "Monitor", "Pharmacist", "Preceptor"} {
		for i := range MaxEntities {
			_, err := e.Merge(Delta{Agent: agent, Now: float64(i), SourceTool: "check_vitals", ValidFor: 600,
				SourceParams: map[string]any{"patient_id": "patient_1"}, Derived: map[string]any{fmt.Sprintf("d%d_result", i): i}})
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	return e
}

// BenchmarkEntityMerge merges one typical delta (an update, a new conversation key that evicts
// the oldest, and a tool result) into a full state.
func BenchmarkEntityMerge(b *testing.B) {
	e := fullEntities(b)
	keys := make([]string, 64)
	for i := range keys {
		keys[i] = fmt.Sprintf("k%d_preference", i)
	}
	timeEach(b, func(i int) {
		_, err := e.Merge(Delta{Agent: "Monitor", Now: float64(i), SourceTool: "check_vitals", ValidFor: 300,
			SourceParams: map[string]any{"patient_id": "patient_1"},
			Conversation: map[string]any{"c6_preference": i, keys[i%len(keys)]: "new"},
			Derived:      map[string]any{"vitals_retrieved": "HR 104"}})
		if err != nil {
			b.Fatal(err)
		}
	})
}

func BenchmarkScopedContext(b *testing.B) {
	e := fullEntities(b)
	timeEach(b, func(int) {
		c, err := e.Context("Monitor", 100)
		if err != nil {
			b.Fatal(err)
		}
		sink = c
	})
}

func BenchmarkParseAgentOutput(b *testing.B) {
	raw := `{"reply":"*He winces as the cuff tightens.* \"Is it bad?\"","entities_to_update":{"pain_score":"7/10",` +
		`"working_diagnosis":"ACS"},"derived_entities_to_update":{"vitals_retrieved":{"hr":104,"spo2":96}}}`
	timeEach(b, func(int) { sink = ParseAgentOutput(raw) })
}

// benchReply is a patient reply of typical length (about 50 tokens).
const benchReply = `*He lets you fit the mask, fumbling with the strap, and takes a few shaky breaths as the bag ` +
	`inflates.* "It smells like plastic. Is that normal?" *His breathing slows a little.*`

func BenchmarkFit(b *testing.B) {
	var e Estimator
	sel := twentyMinuteMemory().Recall(Turn{Now: 1200, Parts: []Part{{Kind: PartTreatment}}})
	window := conversation(16)
	for i := range window {
		window[i].Content = benchReply
	}
	timeEach(b, func(int) {
		_ = e.Fit(Prompt{Static: 1200, Dynamic: 150, User: 30, Window: window, Memory: sel}, 2600, 0)
	})
}

// BenchmarkEntitiesEncode is a long shift's entities document, its tallies full (maxTallies
// rows of a turn's patient and nurse), written by hand and by encoding/json's reflection.
func BenchmarkEntitiesEncode(b *testing.B) {
	e := &Entities{Conversation: []ConversationEntity{{Key: "pain_score", Value: 7.0, InsertedAt: 60, UpdatedAt: 600}}}
	at := time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)
	for i := range maxTallies / 2 {
		e.ObserveParse(at.Add(time.Duration(i)*time.Minute), "Patient", AgentOutput{})
		e.ObserveParse(at.Add(time.Duration(i)*time.Minute), "Nurse", AgentOutput{})
	}
	for _, way := range []struct {
		name   string
		encode func() ([]byte, error)
	}{{"by hand", e.EncodeJSON}, {"encoding/json", func() ([]byte, error) { return json.Marshal(e) }}} {
		b.Run(way.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				doc, err := way.encode()
				if err != nil {
					b.Fatal(err)
				}
				sink = doc
			}
		})
	}
}
