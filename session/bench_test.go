package session

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/persist"
)

// bigShift fills a store with patients × messages in a few large transactions, the shape the
// issue's benchmark asks for.
func bigShift(b *testing.B, patients, perPatient int) (*persist.Store, Config) {
	b.Helper()
	store, err := persist.Open(filepath.Join(b.TempDir(), "ward.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	cfg := Config{Store: store, Backend: agents.NewOffline(), Analyzer: agents.NewAnalyzer(nil)}
	s, err := Start(cfg)
	if err != nil {
		b.Fatal(err)
	}
	at := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	reg := persist.Registry{Patients: map[string]persist.PatientEntry{}}
	for p := 1; p <= patients; p++ {
		id := fmt.Sprintf("patient_%d", p)
		reg.Patients[id] = persist.PatientEntry{PatientID: id, Facts: map[string]any{}, CreatedAt: at, UpdatedAt: at}
		msgs := make([]persist.Message, perPatient)
		for i := range msgs {
			msgs[i] = persist.Message{Role: "user", Content: fmt.Sprintf("message %d about %s: checking airway, breathing and circulation", i, id), At: at}
			if i%2 == 1 {
				msgs[i].Role, msgs[i].Agent = "assistant", "Patient"
			}
		}
		err := store.Update(s.ID(), func(tx *persist.Tx) error {
			if p == patients {
				reg.ActivePatientID = id
				if err := tx.PutRegistry(reg); err != nil {
					return err
				}
			}
			return tx.Append(id, msgs...)
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return store, cfg
}

// BenchmarkOfflineTurn is one turn with no model: decide, persist, snapshot and the offline
// reply, on a shift of 100 patients × 1,000 messages with durable (fsynced) commits. It reports
// the median and p99 of the per-turn latency.
func BenchmarkOfflineTurn(b *testing.B) {
	_, cfg := bigShift(b, 100, 1000)
	s, err := Resume(cfg)
	if err != nil {
		b.Fatal(err)
	}
	inputs := []string{"how is your breathing now?", "any pain anywhere?", "switch to patient_42", "back to patient_100"}
	ctx := context.Background()
	discard := func(Event) {}
	s.Turn(ctx, inputs[0], discard) // restore the active patient outside the measurement
	durations := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		s.Turn(ctx, inputs[i%len(inputs)], discard)
		durations = append(durations, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(durations)
	b.ReportMetric(float64(durations[len(durations)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(durations[len(durations)*99/100].Microseconds())/1000, "p99-ms")
}
