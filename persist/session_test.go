package persist

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ward-sim/ward/memory"
	bolt "go.etcd.io/bbolt"
)

func TestLatestSession(t *testing.T) {
	tests := []struct {
		name     string
		sessions []SessionInfo
		want     string // "" = none
	}{
		{"none", nil, ""},
		{"one", []SessionInfo{{ID: "a", CreatedAt: t0}}, "a"},
		{"latest created wins over id order", []SessionInfo{
			{ID: "b", CreatedAt: t0},
			{ID: "a", CreatedAt: t0.Add(time.Hour)},
		}, "a"},
		{"tie broken by the greater id", []SessionInfo{
			{ID: "b", CreatedAt: t0},
			{ID: "c", CreatedAt: t0},
			{ID: "a", CreatedAt: t0},
		}, "c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := openTemp(t)
			for _, info := range tt.sessions {
				if err := s.CreateSession(info); err != nil {
					t.Fatal(err)
				}
			}
			got, ok, err := s.LatestSession()
			if err != nil {
				t.Fatal(err)
			}
			if ok != (tt.want != "") || got.ID != tt.want {
				t.Errorf("LatestSession = %q, %v; want %q", got.ID, ok, tt.want)
			}
		})
	}
}

func TestCreateSessionRefusesBadIDs(t *testing.T) {
	s, _ := openTemp(t)
	newSession(t, s, "s1")
	for _, id := range []string{"", "s1"} {
		if err := s.CreateSession(SessionInfo{ID: id}); err == nil {
			t.Errorf("CreateSession(%q) succeeded", id)
		}
	}
}

func TestUnknownSessionIsNotFound(t *testing.T) {
	s, _ := openTemp(t)
	noop := func(*Tx) error { return nil }
	calls := map[string]func() error{
		"Update":           func() error { return s.Update("nope", noop) },
		"View":             func() error { return s.View("nope", noop) },
		"Archive":          func() error { _, err := s.Archive("nope", t0); return err },
		"ArchiveSummaries": func() error { _, err := s.ArchiveSummaries("nope"); return err },
		"ReadArchive":      func() error { _, err := s.ReadArchive("nope", "x"); return err },
		"RestoreArchive":   func() error { return s.RestoreArchive("nope", "x") },
		"Dump":             func() error { _, err := s.Dump("nope"); return err },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, ErrNotFound) {
			t.Errorf("%s: err = %v, want ErrNotFound", name, err)
		}
	}
}

func TestInfoRoundTrip(t *testing.T) {
	s, _ := openTemp(t)
	info := SessionInfo{ID: "s1", CreatedAt: t0, Shift: "busy-ed", Trainee: "sam", Seed: 42}
	if err := s.CreateSession(info); err != nil {
		t.Fatal(err)
	}
	info.ClockSeconds = 93.5
	mustUpdate(t, s, "s1", func(tx *Tx) error { return tx.PutInfo(info) })
	mustView(t, s, "s1", func(tx *Tx) error {
		got, err := tx.Info()
		if got != info {
			t.Errorf("Info = %+v, want %+v", got, info)
		}
		return err
	})
	err := s.Update("s1", func(tx *Tx) error { return tx.PutInfo(SessionInfo{ID: "other"}) })
	if err == nil {
		t.Error("PutInfo accepted another session's id")
	}
}

func TestRegistryRoundTrip(t *testing.T) {
	entry := func(id string) PatientEntry {
		return PatientEntry{PatientID: id, Facts: map[string]any{"age": 67.0, "allergy": "penicillin"},
			CreatedAt: t0, UpdatedAt: t0.Add(time.Minute)}
	}
	tests := []struct {
		name   string
		reg    Registry
		stored string
	}{
		{"empty", Registry{Patients: map[string]PatientEntry{}},
			`{"active_patient_id":null,"patients":{}}`},
		{"nil patients", Registry{},
			`{"active_patient_id":null,"patients":{}}`},
		{"roster without active", Registry{Patients: map[string]PatientEntry{"patient_4": entry("patient_4")}},
			`{"active_patient_id":null,"patients":{"patient_4":{"patient_id":"patient_4","facts":{"age":67,"allergy":"penicillin"},"created_at":"2025-03-01T22:00:00Z","updated_at":"2025-03-01T22:01:00Z"}}}`},
		{"active", Registry{ActivePatientID: "patient_4", Patients: map[string]PatientEntry{"patient_4": entry("patient_4")}},
			`{"active_patient_id":"patient_4","patients":{"patient_4":{"patient_id":"patient_4","facts":{"age":67,"allergy":"penicillin"},"created_at":"2025-03-01T22:00:00Z","updated_at":"2025-03-01T22:01:00Z"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := openTemp(t)
			newSession(t, s, "s1")
			mustUpdate(t, s, "s1", func(tx *Tx) error { return tx.PutRegistry(tt.reg) })
			if got := rawRegistry(t, s, "s1"); got != tt.stored {
				t.Errorf("stored %s\nwant   %s", got, tt.stored)
			}
			want := tt.reg
			if want.Patients == nil {
				want.Patients = map[string]PatientEntry{}
			}
			mustView(t, s, "s1", func(tx *Tx) error {
				got, err := tx.Registry()
				if !reflect.DeepEqual(got, want) {
					t.Errorf("Registry = %+v, want %+v", got, want)
				}
				return err
			})
		})
	}
}

func TestRegistryIsEmptyBeforeFirstPut(t *testing.T) {
	s, _ := openTemp(t)
	newSession(t, s, "s1")
	mustView(t, s, "s1", func(tx *Tx) error {
		got, err := tx.Registry()
		if got.ActivePatientID != "" || got.Patients == nil || len(got.Patients) != 0 {
			t.Errorf("Registry = %#v, want empty with a non-nil roster", got)
		}
		return err
	})
}

func rawRegistry(t *testing.T, s *Store, sid string) string {
	t.Helper()
	var v string
	_ = s.db.View(func(tx *bolt.Tx) error {
		v = string(tx.Bucket(bucketSessions).Bucket([]byte(sid)).Bucket(bucketRegistry).Get(keyRegistry))
		return nil
	})
	return v
}

// Only a session nothing was written to may be discarded; anything else stays byte for byte.
func TestDiscardUnused(t *testing.T) {
	tests := []struct {
		name        string
		write       func(t *testing.T, s *Store)
		wantDeleted bool
	}{
		{"fresh", func(*testing.T, *Store) {}, true},
		{"empty registry and an empty document bucket", func(t *testing.T, s *Store) {
			mustUpdate(t, s, "s1", func(tx *Tx) error {
				if err := tx.PutRegistry(Registry{}); err != nil {
					return err
				}
				_, err := tx.b.CreateBucketIfNotExists([]byte("memory"))
				return err
			})
		}, true},
		{"a session message", func(t *testing.T, s *Store) {
			appendMsgs(t, s, "s1", "", memory.Message{Role: "user", Content: "hello", At: t0})
		}, false},
		{"a patient on the registry", func(t *testing.T, s *Store) {
			mustUpdate(t, s, "s1", func(tx *Tx) error {
				return tx.PutRegistry(Registry{Patients: map[string]PatientEntry{"patient_1": {PatientID: "patient_1"}}})
			})
		}, false},
		{"a patient document", func(t *testing.T, s *Store) {
			mustUpdate(t, s, "s1", func(tx *Tx) error { return tx.PutPatientDoc("sim", "patient_1", []byte(`{}`)) })
		}, false},
		{"an archive", func(t *testing.T, s *Store) {
			if _, err := s.Archive("s1", t0); err != nil {
				t.Fatal(err)
			}
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := openTemp(t)
			newSession(t, s, "s1")
			tt.write(t, s)
			before, _ := s.Dump("s1")
			if err := s.DiscardUnused("s1"); err != nil {
				t.Fatal(err)
			}
			if _, found, _ := s.LatestSession(); found == tt.wantDeleted {
				t.Fatalf("after DiscardUnused the session is found %v, want deleted %v", found, tt.wantDeleted)
			}
			if after, _ := s.Dump("s1"); !tt.wantDeleted && !reflect.DeepEqual(before, after) {
				t.Fatal("a session in use changed")
			}
		})
	}
	s, _ := openTemp(t)
	if err := s.DiscardUnused("nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown session: %v, want ErrNotFound", err)
	}
}

// TestRegistryEncodesAsReflection: the registry's entries, written by hand, are the bytes
// encoding/json's reflection writes, for odd IDs, facts, times and zones; a time it cannot write
// is an error still.
func TestRegistryEncodesAsReflection(t *testing.T) {
	type reflected struct {
		ActivePatientID *string                 `json:"active_patient_id"`
		Patients        map[string]PatientEntry `json:"patients"`
	}
	at := time.Date(2026, 11, 21, 8, 0, 0, 123456789, time.FixedZone("odd", -(9*3600+30*60)))
	reg := Registry{ActivePatientID: "patient_2", Patients: map[string]PatientEntry{
		"patient_1": {PatientID: "patient_1", Facts: map[string]any{"name": "Mr <Chen> & \"son\"", "age": 67.5, "tags": []any{"a", 1.0}}, CreatedAt: at, UpdatedAt: at.UTC()},
		"patient_2": {PatientID: "patient_2", CreatedAt: time.Time{}, UpdatedAt: at.Add(time.Hour)},
		"patient_4": {PatientID: "patient_4", Facts: map[string]any{
			"age": 67, "news2": 7.0, "at": 3605.25, "neg": math.Copysign(0, -1), "tiny": 1e-7, "small": 1e-6, "huge": 1e21, "big": 9.99e20,
			"minus": -12.5, "yes": true, "no": false, "none": nil, "n": json.Number("12"), "obj": map[string]any{"b": 1, "a": "<"},
			"é<key>": "x\u2028 ", "": "",
		}},
		"bed\u2028\t\"4\"é": {PatientID: "<x>\x00\xff", Facts: map[string]any{}},
	}}
	want, err := json.Marshal(reflected{&reg.ActivePatientID, reg.Patients})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := json.Marshal(reg); err != nil || string(got) != string(want) {
		t.Fatalf("the registry writes\n%s (%v), reflection\n%s", got, err, want)
	}
	reg.Patients["patient_3"] = PatientEntry{PatientID: "patient_3", CreatedAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}
	if _, err := json.Marshal(reg); err == nil {
		t.Error("a year past 9999 was written")
	}
}

// A commit that does not change the registry does not write it again: its page stays where it
// was. A registry of a full ward is the shift's largest value (about 55 KB for 100 patients), and
// in the shift's own bucket it was written with every change to any bucket beside it.
func TestACommitLeavesAnUnchangedRegistrysPages(t *testing.T) {
	s, _ := openTemp(t)
	newSession(t, s, "s1")
	reg := Registry{Patients: map[string]PatientEntry{}}
	for i := range 100 {
		id := fmt.Sprintf("patient_%d", i)
		reg.Patients[id] = PatientEntry{PatientID: id, Facts: map[string]any{"summary": strings.Repeat("stable ", 60)}}
	}
	mustUpdate(t, s, "s1", func(tx *Tx) error { return tx.PutRegistry(reg) })
	root := func() (page uint64) {
		_ = s.db.View(func(tx *bolt.Tx) error {
			page = uint64(tx.Bucket(bucketSessions).Bucket([]byte("s1")).Bucket(bucketRegistry).Root())
			return nil
		})
		return page
	}
	before := root()
	mustUpdate(t, s, "s1", func(tx *Tx) error {
		return firstErr(tx.Append("patient_1", msg("user", "any pain?", 1)), tx.PutPatientDoc(KindSim, "patient_1", []byte(`{"clock":61}`)))
	})
	if after := root(); after != before {
		t.Errorf("a turn that left the registry as it was wrote it again: its page moved from %d to %d", before, after)
	}
	mustUpdate(t, s, "s1", func(tx *Tx) error {
		return tx.PutRegistry(Registry{ActivePatientID: "patient_1", Patients: reg.Patients})
	})
	if after := root(); after == before {
		t.Error("the registry changed and its page did not move: the test cannot tell a write")
	}
}
