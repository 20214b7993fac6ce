package persist

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/ward-sim/ward/memory"
)

func TestDumpJSON(t *testing.T) {
	tests := []struct {
		name string
		fill func(t *testing.T, s *Store)
		want string
	}{
		{"new session", func(*testing.T, *Store) {}, `{"schema_version":4,"session_id":"s1",
			"registry":{"active_patient_id":null,"patients":{}},
			"session_history":[],"histories":{},"archives":[]}`},
		{"turns, a document and an archive", func(t *testing.T, s *Store) {
			mustUpdate(t, s, "s1", func(tx *Tx) error { return tx.Append("", msg("user", "hello", 0)) })
			if _, err := s.Archive("s1", t0.Add(time.Minute)); err != nil {
				t.Fatal(err)
			}
			mustUpdate(t, s, "s1", func(tx *Tx) error {
				entry := PatientEntry{PatientID: "patient_4", Facts: map[string]any{}, CreatedAt: t0, UpdatedAt: t0}
				return firstErr(
					tx.PutRegistry(Registry{ActivePatientID: "patient_4", Patients: map[string]PatientEntry{"patient_4": entry}}),
					tx.Append("patient_4", msg("user", "review patient_4", 2),
						memory.Message{Role: "assistant", Agent: "nurse", Content: "ok", At: t0.Add(3 * time.Minute)}),
					tx.PutPatientDoc(KindSim, "patient_4", []byte(`{"scenario": "sepsis"}`)),
				)
			})
		}, `{"schema_version":4,"session_id":"s1",
			"registry":{"active_patient_id":"patient_4","patients":{"patient_4":{"patient_id":"patient_4","facts":{},"created_at":"2025-03-01T22:00:00Z","updated_at":"2025-03-01T22:00:00Z"}}},
			"session_history":[],
			"histories":{"patient_4":[
				{"role":"user","content":"review patient_4","at":"2025-03-01T22:02:00Z"},
				{"role":"assistant","agent":"nurse","content":"ok","at":"2025-03-01T22:03:00Z"}]},
			"sim":{"patient_4":{"scenario":"sepsis"}},
			"archives":[{"id":"2025-03-01T22:01:00.000000000Z","created_at":"2025-03-01T22:01:00Z",
				"registry":{"active_patient_id":null,"patients":{}},
				"session_history":[{"role":"user","content":"hello","at":"2025-03-01T22:00:00Z"}],
				"histories":{}}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := openTemp(t)
			newSession(t, s, "s1")
			tt.fill(t, s)
			d, err := s.Dump("s1")
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			if err := json.Compact(&want, []byte(tt.want)); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want.Bytes()) {
				t.Errorf("dump\n%s\nwant\n%s", got, want.Bytes())
			}
		})
	}
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// TestDumpFieldCanBeReshaped pins what the Dump doc comment promises to callers that embed it.
func TestDumpFieldCanBeReshaped(t *testing.T) {
	type simView struct{ Scenario string }
	type extended struct {
		Dump
		Sim map[string]simView `json:"sim"`
	}
	got, err := json.Marshal(extended{
		Dump: Dump{Content: Content{Sim: map[string]json.RawMessage{"p": json.RawMessage(`{"raw":1}`)}}},
		Sim:  map[string]simView{"p": {Scenario: "sepsis"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(got, []byte(`"sim":{"p":{"Scenario":"sepsis"}}`)) || bytes.Contains(got, []byte(`"raw"`)) {
		t.Errorf("the outer sim field should replace the raw one: %s", got)
	}
}
