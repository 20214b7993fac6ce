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

// TestPutPatientJSON: a value is stored as encoding/json writes it, in the same place as
// PutPatientDoc's, and a wrong place or a value JSON cannot hold is refused with nothing stored.
func TestPutPatientJSON(t *testing.T) {
	s, _ := openTemp(t)
	newSession(t, s, "s1")
	mustUpdate(t, s, "s1", func(tx *Tx) error {
		return tx.PutPatientJSON(KindSim, "patient_1", map[string]any{"scenario": "anaphylaxis", "t": 60})
	})
	mustView(t, s, "s1", func(tx *Tx) error {
		got, err := tx.PatientDoc(KindSim, "patient_1")
		if want := `{"scenario":"anaphylaxis","t":60}`; string(got) != want {
			t.Errorf("stored %s, want %s", got, want)
		}
		return err
	})
	for name, put := range map[string]func(*Tx) error{
		"unknown kind":  func(tx *Tx) error { return tx.PutPatientJSON("diary", "patient_2", 1) },
		"empty patient": func(tx *Tx) error { return tx.PutPatientJSON(KindSim, "", 1) },
		"not encodable": func(tx *Tx) error { return tx.PutPatientJSON(KindSim, "patient_2", make(chan int)) },
	} {
		if err := s.Update("s1", put); err == nil {
			t.Errorf("%s: stored, want refused", name)
		}
	}
	mustView(t, s, "s1", func(tx *Tx) error {
		if got, _ := tx.PatientDoc(KindSim, "patient_2"); got != nil {
			t.Errorf("patient_2's refused document was stored: %s", got)
		}
		return nil
	})
}
