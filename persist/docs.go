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

// docPlace is a kind's bucket name and path under the shelf, made once rather than for every
// document a turn stores.
type docPlace struct {
	bucket []byte
	rel    []string // of length and capacity 1: appending to it copies it
}

var docPlaces = map[string]docPlace{
	KindMemory:   {[]byte(KindMemory), []string{KindMemory}},
	KindEntities: {[]byte(KindEntities), []string{KindEntities}},
	KindSim:      {[]byte(KindSim), []string{KindSim}},
}

// PatientDoc returns the patient's document of the given kind, nil when none was stored.
func (t *Tx) PatientDoc(kind, patientID string) ([]byte, error) {
	if err := checkKind(kind); err != nil {
		return nil, err
	}
	b := t.b.Bucket([]byte(kind))
	if b == nil {
		_, err := t.get([]string{kind}, []byte(patientID), nil) // a document ward wrote is not gone
		return nil, err
	}
	return storedDoc(&t.shelf, kind, []byte(patientID), b.Get([]byte(patientID)))
}

// PutPatientEncoded puts doc, JSON encoded elsewhere (an engine's state, encoded where it lies
// rather than from a copy), as the patient's document of the given kind. The store holds doc
// until the commit: nothing may change it.
func (t *Tx) PutPatientEncoded(kind, patientID string, doc []byte) error {
	if err := checkDocPlace(kind, patientID); err != nil {
		return err
	}
	return t.putPatientDoc(kind, patientID, doc)
}

func checkDocPlace(kind, patientID string) error {
	if err := checkKind(kind); err != nil {
		return err
	}
	if patientID == "" {
		return fmt.Errorf("put %s document: empty patient id", kind)
	}
	return nil
}

// putPatientDoc stores doc, bytes that nothing changes before the commit.
func (t *Tx) putPatientDoc(kind, patientID string, doc []byte) error {
	at := docPlaces[kind]
	b, err := bucketForWrite(t.b, at.bucket)
	if err != nil {
		return err
	}
	return t.putOwn(b, at.rel, []byte(patientID), doc)
}

// PatientDocs returns every patient's document of the given kind.
func (t *Tx) PatientDocs(kind string) (map[string][]byte, error) {
	if err := checkKind(kind); err != nil {
		return nil, err
	}
	return readDocs[[]byte](&t.shelf, kind, t.b.Bucket([]byte(kind)))
}

// readDocs copies a document bucket of s (nil = empty) out of the transaction, opening each in
// its place; none that ward wrote may be missing.
func readDocs[T ~[]byte](s *shelf, kind string, b *bolt.Bucket) (map[string]T, error) {
	docs := map[string]T{}
	if b != nil {
		err := b.ForEach(func(k, v []byte) error {
			doc, err := storedDoc(s, kind, k, v)
			docs[string(k)] = doc
			return err
		})
		if err != nil {
			return docs, err
		}
	}
	if n, err := s.pinnedIn([]string{kind}); err != nil || (s.pinned() && n != len(docs)) {
		if err == nil {
			err = &corruptValue{errMissing}
		}
		return docs, fmt.Errorf("%s documents: %w", kind, err)
	}
	return docs, nil
}

// storedDoc opens a stored document and copies it out of the transaction. ward stores only
// JSON, so one that is not JSON was damaged after it was written.
func storedDoc(s *shelf, kind string, patientID, stored []byte) ([]byte, error) {
	doc, err := s.get([]string{kind}, patientID, stored)
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
