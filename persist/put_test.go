package persist

// Tests arrange a store with these puts straight on a transaction; ward itself writes a turn's
// documents, info and registry through a Batch (batch.go), which the session fills before its
// commit.

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// PutPatientDoc replaces the patient's document of the given kind. Documents must be JSON, so
// that dumps and archives can embed them as they are.
func (t *Tx) PutPatientDoc(kind, patientID string, doc []byte) error {
	if err := checkDocPlace(kind, patientID); err != nil {
		return err
	}
	if !json.Valid(doc) {
		return fmt.Errorf("put %s document of %s: not valid JSON", kind, patientID)
	}
	return t.putPatientDoc(kind, patientID, bytes.Clone(doc)) // the caller's: bbolt holds it until the commit
}

// PutPatientJSON stores v, encoded as JSON, as the patient's document of the given kind: what
// PutPatientDoc does for a value, without checking what encoding/json wrote (the check cost as
// much as the encoding, on every engine a turn stores).
func (t *Tx) PutPatientJSON(kind, patientID string, v any) error {
	doc, err := encodeDoc(kind, patientID, v)
	if err != nil {
		return err
	}
	return t.PutPatientEncoded(kind, patientID, doc)
}

// PutInfo replaces the session's info; its ID must be the session's, and its trainee too once
// it has one: the trainee's key seals the session's records.
func (t *Tx) PutInfo(info SessionInfo) error {
	data, err := json.Marshal(info)
	if err != nil {
		return err
	}
	return t.putInfoEncoded(info, data)
}

// PutRegistry replaces the session's registry.
func (t *Tx) PutRegistry(r Registry) error {
	data, err := r.MarshalJSON() // called, not through json.Marshal, which would check and compact it again
	if err != nil {
		return err
	}
	b, err := t.registryForWrite()
	if err != nil {
		return err
	}
	return t.putOwn(b, nil, keyRegistry, data)
}
