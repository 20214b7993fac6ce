package persist

import (
	"reflect"
	"testing"
)

func TestPatientDocs(t *testing.T) {
	s, _ := openTemp(t)
	newSession(t, s, "s1")
	newSession(t, s, "s2")
	puts := []struct{ sid, kind, pid, doc string }{
		{"s1", KindMemory, "patient_1", `{"allergies":["penicillin"]}`},
		{"s1", KindMemory, "patient_2", `{"allergies":[]}`},
		{"s1", KindEntities, "patient_1", `{"entities":[]}`},
		{"s1", KindSim, "patient_1", `{"scenario":"anaphylaxis"}`},
		{"s2", KindMemory, "patient_1", `{"other":"session"}`},
	}
	for _, p := range puts {
		mustUpdate(t, s, p.sid, func(tx *Tx) error { return tx.PutPatientDoc(p.kind, p.pid, []byte(p.doc)) })
	}
	for _, p := range puts {
		mustView(t, s, p.sid, func(tx *Tx) error {
			got, err := tx.PatientDoc(p.kind, p.pid)
			if string(got) != p.doc {
				t.Errorf("%s %s/%s = %s, want %s", p.sid, p.kind, p.pid, got, p.doc)
			}
			return err
		})
	}
	mustView(t, s, "s1", func(tx *Tx) error {
		got, err := tx.PatientDocs(KindMemory)
		want := map[string][]byte{"patient_1": []byte(puts[0].doc), "patient_2": []byte(puts[1].doc)}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("PatientDocs(memory) = %s, want %s", got, want)
		}
		missing, _ := tx.PatientDoc(KindEntities, "patient_2")
		if missing != nil {
			t.Errorf("missing doc = %s, want nil", missing)
		}
		return err
	})
}

func TestPutPatientDocRefuses(t *testing.T) {
	tests := []struct{ name, kind, pid, doc string }{
		{"unknown kind", "notes", "patient_1", `{}`},
		{"empty patient", KindMemory, "", `{}`},
		{"not JSON", KindSim, "patient_1", `{"half":`},
	}
	s, _ := openTemp(t)
	newSession(t, s, "s1")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Update("s1", func(tx *Tx) error { return tx.PutPatientDoc(tt.kind, tt.pid, []byte(tt.doc)) })
			if err == nil {
				t.Error("PutPatientDoc succeeded")
			}
		})
	}
}
