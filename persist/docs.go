package persist

import (
	"bytes"
	"encoding/json"
	"errors"
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
	return storedDoc(t.c, kind, []byte(patientID), b.Get([]byte(patientID)))
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
	return b.Put([]byte(patientID), bytes.Clone(t.c.seal(doc)))
}

// PatientDocs returns every patient's document of the given kind.
func (t *Tx) PatientDocs(kind string) (map[string][]byte, error) {
	if err := checkKind(kind); err != nil {
		return nil, err
	}
	return readDocs[[]byte](t.c, kind, t.b.Bucket([]byte(kind)))
}

// readDocs copies a document bucket (nil = empty) out of the transaction, opening each with c.
func readDocs[T ~[]byte](c *sealer, kind string, b *bolt.Bucket) (map[string]T, error) {
	docs := map[string]T{}
	if b == nil {
		return docs, nil
	}
	err := b.ForEach(func(k, v []byte) error {
		doc, err := storedDoc(c, kind, k, v)
		docs[string(k)] = doc
		return err
	})
	return docs, err
}

// storedDoc opens a stored document and copies it out of the transaction. PutPatientDoc stores
// only JSON, so one that is not JSON was damaged after it was written.
func storedDoc(c *sealer, kind string, patientID, stored []byte) ([]byte, error) {
	doc, err := c.open(stored)
	if err == nil && doc != nil && !json.Valid(doc) {
		err = &corruptValue{errors.New("not valid JSON")}
	}
	if err != nil {
		return nil, fmt.Errorf("%s document of %s: %w", kind, patientID, err)
	}
	return bytes.Clone(doc), nil
}

func checkKind(kind string) error {
	for _, k := range docKinds {
		if kind == k {
			return nil
		}
	}
	return fmt.Errorf("unknown patient document kind %q (want memory, entities or sim)", kind)
}
