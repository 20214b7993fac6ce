package persist

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ward-sim/ward/memory"
)

// BenchmarkEncryptedCommit is the store's part of an encrypted turn, CPU alone (no fsync): one
// patient of 100 gets two messages, a new engine document and the registry rewritten, in one
// commit, as a turn's record stage does. What sealing, binding and pinning cost shows here
// rather than under the disk's sync time.
func BenchmarkEncryptedCommit(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "ward.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	s.db.NoSync = true
	if err := s.Protect([]byte("the night sister holds the keys")); err != nil {
		b.Fatal(err)
	}
	if err := s.Enrol("alice", []byte("alice on the night shift")); err != nil {
		b.Fatal(err)
	}
	if err := s.CreateSession(SessionInfo{ID: "s1", CreatedAt: t0, Trainee: "alice"}); err != nil {
		b.Fatal(err)
	}
	reg := Registry{Patients: map[string]PatientEntry{}}
	doc := []byte(`{"vitals":{"hr":118,"spo2":91},"log":"` + strings.Repeat("x", 2000) + `"}`)
	say := memory.Message{Role: "user", Content: "how is your breathing now?", At: t0}
	for p := 1; p <= 100; p++ {
		id := fmt.Sprintf("patient_%d", p)
		reg.Patients[id] = PatientEntry{PatientID: id, Facts: map[string]any{"name": "Margaret Okafor", "bed": "Resus 2"}, CreatedAt: t0, UpdatedAt: t0}
		err := s.Update("s1", func(tx *Tx) error {
			for i := 0; i < 25; i++ {
				if err := tx.Append(id, say, say); err != nil {
					return err
				}
			}
			for _, kind := range docKinds {
				if err := tx.PutPatientDoc(kind, id, doc); err != nil {
					return err
				}
			}
			return tx.PutRegistry(reg)
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	n := 0
	for b.Loop() {
		n++
		id := fmt.Sprintf("patient_%d", n%100+1)
		err := s.Update("s1", func(tx *Tx) error {
			reg.ActivePatientID = id
			say.At = t0.Add(time.Duration(n) * time.Second)
			if err := tx.Append(id, say, say); err != nil {
				return err
			}
			if err := tx.PutPatientDoc(KindSim, id, doc); err != nil {
				return err
			}
			return tx.PutRegistry(reg)
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
