package persist

import (
	"bytes"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Kinds of per-patient document, each stored in its own bucket of the session.
const (
	KindMemory   = "memory"   // structured memory
	KindEntities = "entities" // conversation and derived entities
	KindSim      = "sim"      // scenario, simulation state, event log
)

var docKinds = []string{KindMemory, KindEntities, KindSim}

// PatientDoc returns the patient's document of the given kind, nil when none was stored.
func (t *Tx) PatientDoc(kind, patientID string) ([]byte, error) {
	if err := checkKind(kind); err != nil {
		return nil, err
	}
	b := t.b.Bucket([]byte(kind))
	if b == nil {
		return nil, nil
	}
	return bytes.Clone(b.Get([]byte(patientID))), nil
}

// PutPatientDoc replaces the patient's document of the given kind. Documents must be JSON, so
// that dumps and archives can embed them as they are.
func (t *Tx) PutPatientDoc(kind, patientID string, doc []byte) error {
	if err := checkKind(kind); err != nil {
		return err
	}
	if patientID == "" {
		return fmt.Errorf("put %s document: empty patient id", kind)
	}
	if !json.Valid(doc) {
		return fmt.Errorf("put %s document of %s: not valid JSON", kind, patientID)
	}
	b, err := t.b.CreateBucketIfNotExists([]byte(kind))
	if err != nil {
		return err
	}
	return b.Put([]byte(patientID), bytes.Clone(doc))
}

// PatientDocs returns every patient's document of the given kind.
func (t *Tx) PatientDocs(kind string) (map[string][]byte, error) {
	if err := checkKind(kind); err != nil {
		return nil, err
	}
	return readDocs[[]byte](t.b.Bucket([]byte(kind))), nil
}

// readDocs copies a document bucket (nil = empty) out of the transaction.
func readDocs[T ~[]byte](b *bolt.Bucket) map[string]T {
	docs := map[string]T{}
	if b == nil {
		return docs
	}
	_ = b.ForEach(func(k, v []byte) error {
		docs[string(k)] = bytes.Clone(v)
		return nil
	})
	return docs
}

func checkKind(kind string) error {
	for _, k := range docKinds {
		if kind == k {
			return nil
		}
	}
	return fmt.Errorf("unknown patient document kind %q (want memory, entities or sim)", kind)
}
