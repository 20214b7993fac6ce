package persist

import (
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Dump is the stored state of one session, shaped as the `ward dump` document. A caller that
// wants another shape for a field (sim, say) can embed Dump and declare that field again: the
// shallower field wins in encoding/json.
type Dump struct {
	SchemaVersion int    `json:"schema_version"`
	SessionID     string `json:"session_id"`
	Content
	Archives []Archive `json:"archives"`
}

// Dump reads the session's content and archives in one consistent view.
func (s *Store) Dump(sessionID string) (Dump, error) {
	d := Dump{SchemaVersion: schemaVersion(), SessionID: sessionID}
	err := s.View(sessionID, func(t *Tx) (err error) {
		if d.Content, err = readContent(&t.shelf); err != nil {
			return err
		}
		d.Archives, err = readArchives(t.c, t.b.Tx(), sessionID)
		return err
	})
	return d, err
}

// ContentReader reads a session's content, or an archive's, a part at a time, within
// Store.ReadDump's view: what Dump holds whole, read so that a shift of a hundred patients'
// histories need not be in memory at once to be printed.
type ContentReader struct{ s *shelf }

// ArchiveReader is one archive of a session: its id, its time and its content.
type ArchiveReader struct {
	ID        string
	CreatedAt time.Time
	ContentReader
}

// ReadDump reads the session's content and its archives, oldest first, in one consistent view,
// as Dump does, and hands them to read with the schema version. The readers are valid only
// until read returns.
func (s *Store) ReadDump(sessionID string, read func(schema int, content ContentReader, archives []ArchiveReader) error) error {
	return s.View(sessionID, func(t *Tx) error {
		archives, err := archiveReaders(t.c, t.b.Tx(), sessionID)
		if err != nil {
			return err
		}
		return read(schemaVersion(), ContentReader{&t.shelf}, archives)
	})
}

// Registry is the content's registry.
func (r ContentReader) Registry() (Registry, error) {
	reg, err := r.s.registry()
	if err != nil {
		return reg, fmt.Errorf("registry: %w", err)
	}
	return reg, nil
}

// Patients are the patients with a history, in id order; none that ward wrote may be missing.
func (r ContentReader) Patients() ([]string, error) {
	ids := []string{}
	lengths, err := r.s.pinnedLengths(string(bucketHistories) + "/")
	if err != nil {
		return ids, err
	}
	h := r.s.b.Bucket(bucketHistories)
	for pid, n := range lengths {
		if n > 0 && (h == nil || h.Bucket([]byte(pid)) == nil) {
			return ids, fmt.Errorf("history of %s: %w", pid, &corruptValue{errMissing})
		}
	}
	if h == nil {
		return ids, nil
	}
	err = h.ForEachBucket(func(pid []byte) error {
		ids = append(ids, string(pid))
		return nil
	})
	return ids, err
}

// History hands the patient's history ("" = the session history) to each, a message at a
// time as stored, oldest first: a reader that prints a message need not decode it.
func (r ContentReader) History(patientID string, each func(StoredMessage) error) error {
	var b *bolt.Bucket
	if patientID == "" {
		b = r.s.b.Bucket(bucketSessionHistory)
	} else if h := r.s.b.Bucket(bucketHistories); h != nil {
		b = h.Bucket([]byte(patientID))
	}
	err := eachStored(r.s, historyRel(patientID), b, each)
	forgetTxPages(r.s.b.Tx()) // a history is read once: its pages go back to the page cache (pages.go)
	switch {
	case err == nil:
		return nil
	case patientID == "":
		return fmt.Errorf("session history: %w", err)
	}
	return fmt.Errorf("history of %s: %w", patientID, err)
}

// Docs are every patient's document of one kind.
func (r ContentReader) Docs(kind string) (map[string]json.RawMessage, error) {
	return readDocs[json.RawMessage](r.s, kind, r.s.b.Bucket([]byte(kind)))
}
