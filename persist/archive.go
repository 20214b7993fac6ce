package persist

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ward-sim/ward/memory"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Content is everything a clear moves out of a session: the registry, the histories and the
// per-patient documents (a clear wipes memory as well as storage). The session's info stays.
type Content struct {
	Registry       Registry                    `json:"registry"`
	SessionHistory []memory.Message            `json:"session_history"`
	Histories      map[string][]memory.Message `json:"histories"`
	Memory         map[string]json.RawMessage  `json:"memory,omitempty"`
	Entities       map[string]json.RawMessage  `json:"entities,omitempty"`
	Sim            map[string]json.RawMessage  `json:"sim,omitempty"`
}

// Archive is one snapshot written by a clear.
type Archive struct {
	ID        string    `json:"id"` // the snapshot time (RFC 3339, UTC, 9-digit nanoseconds), also its key
	CreatedAt time.Time `json:"created_at"`
	Content
}

// archiveIDLayout is RFC 3339 in UTC with fixed-width nanoseconds, so that the byte order of the
// keys is their time order (time.RFC3339Nano trims trailing zeros, which breaks that).
const archiveIDLayout = "2006-01-02T15:04:05.000000000Z07:00"

// contentBuckets are the nested buckets of a session that make up its Content, with the
// registry's (shelf.storedRegistry).
var contentBuckets = [][]byte{
	bucketSessionHistory, bucketHistories, []byte(KindMemory), []byte(KindEntities), []byte(KindSim),
}

// Archive moves the session's content into archive/<session>/<at> in one transaction, leaving
// the session with an empty registry and no histories or documents. It always writes a
// snapshot, even of an empty session, so that every clear leaves a trace. It returns the
// snapshot's id; ReadArchive reads a snapshot back.
func (s *Store) Archive(sessionID string, at time.Time) (string, error) {
	err := s.Update(sessionID, func(t *Tx) error {
		return archiveContent(t.b.Tx(), &t.shelf, at)
	})
	if err != nil {
		return "", err
	}
	return archiveID(at), nil
}

// ArchiveSummary is one line of an archive list.
type ArchiveSummary struct {
	ID              string
	Patients        int
	SessionMessages int
}

// ArchiveSummaries lists the session's archives, oldest first. It reads each snapshot's registry
// and counts its session messages, but decodes no history: a snapshot can hold a whole shift.
func (s *Store) ArchiveSummaries(sessionID string) ([]ArchiveSummary, error) {
	list := []ArchiveSummary{}
	err := s.View(sessionID, func(t *Tx) error {
		perSession := t.b.Tx().Bucket(bucketArchive).Bucket([]byte(sessionID))
		if perSession == nil {
			return nil
		}
		return perSession.ForEachBucket(func(id []byte) error {
			snap := archiveShelf(perSession.Bucket(id), t.c, sessionID, string(id))
			reg, err := snap.registry()
			if err != nil {
				return fmt.Errorf("archive %s: registry: %w", id, err)
			}
			sum := ArchiveSummary{ID: string(id), Patients: len(reg.Patients)}
			if h := snap.b.Bucket(bucketSessionHistory); h != nil {
				sum.SessionMessages = h.Stats().KeyN
			}
			list = append(list, sum)
			return nil
		})
	})
	return list, err
}

// ReadArchive decodes one archive of the session.
func (s *Store) ReadArchive(sessionID, archiveID string) (Archive, error) {
	var a Archive
	err := s.View(sessionID, func(t *Tx) error {
		snap := archiveBucket(t.b.Tx(), sessionID, archiveID)
		if snap == nil {
			return fmt.Errorf("archive %q of session %q: %w", archiveID, sessionID, ErrNotFound)
		}
		var err error
		a, err = readArchive(archiveShelf(snap, t.c, sessionID, archiveID), archiveID)
		return err
	})
	return a, err
}

// RestoreArchive puts an archive's content back into the session. So that a restore never
// loses anything, a session that holds content is first archived itself (at the current time),
// in the same transaction. The restored archive is kept.
func (s *Store) RestoreArchive(sessionID, archiveID string) error {
	return s.Update(sessionID, func(t *Tx) error {
		tx := t.b.Tx()
		snap := archiveBucket(tx, sessionID, archiveID)
		if snap == nil {
			return fmt.Errorf("archive %q of session %q: %w", archiveID, sessionID, ErrNotFound)
		}
		if !isEmpty(&t.shelf) {
			if err := archiveContent(tx, &t.shelf, time.Now()); err != nil {
				return err
			}
		}
		if err := deleteContent(&t.shelf); err != nil {
			return err
		}
		from := archiveShelf(snap, t.c, sessionID, archiveID)
		return copyShelf(&t.shelf, &from)
	})
}

func archiveBucket(tx *bolt.Tx, sessionID, archiveID string) *bolt.Bucket {
	perSession := tx.Bucket(bucketArchive).Bucket([]byte(sessionID))
	if perSession == nil {
		return nil
	}
	return perSession.Bucket([]byte(archiveID))
}

func archiveID(at time.Time) string { return at.UTC().Format(archiveIDLayout) }

// archiveContent copies a session's content into a new snapshot and deletes it from the
// session.
func archiveContent(tx *bolt.Tx, session *shelf, at time.Time) error {
	sessionID := session.where.shift
	perSession, err := tx.Bucket(bucketArchive).CreateBucketIfNotExists([]byte(sessionID))
	if err != nil {
		return err
	}
	b, err := perSession.CreateBucket([]byte(archiveID(at)))
	if errors.Is(err, berrors.ErrBucketExists) {
		return fmt.Errorf("archive %s of session %q already exists", archiveID(at), sessionID)
	}
	if err != nil {
		return err
	}
	snap := archiveShelf(b, session.c, sessionID, archiveID(at))
	if err := copyShelf(&snap, session); err != nil {
		return err
	}
	return deleteContent(session)
}

// copyBucket copies a bucket tree of plain values as it is, sequences included.
func copyBucket(dst, src *bolt.Bucket) error {
	if err := dst.SetSequence(src.Sequence()); err != nil {
		return err
	}
	return src.ForEach(func(k, v []byte) error {
		if v != nil {
			return dst.Put(bytes.Clone(k), bytes.Clone(v))
		}
		child, err := dst.CreateBucket(bytes.Clone(k))
		if err != nil {
			return err
		}
		return copyBucket(child, src.Bucket(k))
	})
}

func deleteContent(s *shelf) error {
	for _, name := range append([][]byte{bucketRegistry}, contentBuckets...) {
		if s.b.Bucket(name) == nil {
			continue
		}
		if err := s.b.DeleteBucket(name); err != nil {
			return err
		}
	}
	return s.clearPins()
}

// isEmpty reports whether a session holds no content worth keeping: an empty registry and no
// stored message or document.
func isEmpty(s *shelf) bool {
	reg, err := s.registry()
	if err != nil || reg.ActivePatientID != "" || len(reg.Patients) > 0 {
		return false
	}
	for _, name := range contentBuckets {
		if !emptyTree(s.b.Bucket(name)) {
			return false
		}
	}
	return true
}

func emptyTree(b *bolt.Bucket) bool {
	if b == nil {
		return true
	}
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if v != nil || !emptyTree(b.Bucket(k)) {
			return false
		}
	}
	return true
}

// readContent decodes a session or snapshot shelf whole.
func readContent(s *shelf) (Content, error) {
	r := ContentReader{s}
	c := Content{SessionHistory: []memory.Message{}, Histories: map[string][]memory.Message{}}
	var err error
	if c.Registry, err = r.Registry(); err != nil {
		return c, err
	}
	if err := r.History("", decoded(func(m memory.Message) error { c.SessionHistory = append(c.SessionHistory, m); return nil })); err != nil {
		return c, err
	}
	ids, err := r.Patients()
	if err != nil {
		return c, err
	}
	for _, id := range ids {
		msgs := []memory.Message{}
		if err := r.History(id, decoded(func(m memory.Message) error { msgs = append(msgs, m); return nil })); err != nil {
			return c, err
		}
		c.Histories[id] = msgs
	}
	for kind, docs := range map[string]*map[string]json.RawMessage{KindMemory: &c.Memory, KindEntities: &c.Entities, KindSim: &c.Sim} {
		if *docs, err = r.Docs(kind); err != nil {
			return c, err
		}
	}
	return c, nil
}

// archiveReader reads the archive snap, whose id is its time.
func archiveReader(snap shelf, id string) (ArchiveReader, error) {
	at, err := time.Parse(time.RFC3339Nano, id)
	if err != nil {
		return ArchiveReader{}, fmt.Errorf("archive %q: bad id: %w", id, &corruptValue{err})
	}
	return ArchiveReader{ID: id, CreatedAt: at, ContentReader: ContentReader{&snap}}, nil
}

func readArchive(snap shelf, id string) (Archive, error) {
	r, err := archiveReader(snap, id)
	if err != nil {
		return Archive{}, err
	}
	c, err := readContent(r.s)
	if err != nil {
		return Archive{}, fmt.Errorf("archive %s: %w", id, err)
	}
	return Archive{ID: id, CreatedAt: r.CreatedAt, Content: c}, nil
}

func readArchives(c *sealer, tx *bolt.Tx, sessionID string) ([]Archive, error) {
	list := []Archive{}
	perSession := tx.Bucket(bucketArchive).Bucket([]byte(sessionID))
	if perSession == nil {
		return list, nil
	}
	err := perSession.ForEachBucket(func(id []byte) error {
		a, err := readArchive(archiveShelf(perSession.Bucket(id), c, sessionID, string(id)), string(id))
		list = append(list, a)
		return err
	})
	return list, err
}

// archiveReaders are the session's archives, oldest first, each to be read in tx.
func archiveReaders(c *sealer, tx *bolt.Tx, sessionID string) ([]ArchiveReader, error) {
	list := []ArchiveReader{}
	perSession := tx.Bucket(bucketArchive).Bucket([]byte(sessionID))
	if perSession == nil {
		return list, nil
	}
	err := perSession.ForEachBucket(func(id []byte) error {
		r, err := archiveReader(archiveShelf(perSession.Bucket(id), c, sessionID, string(id)), string(id))
		list = append(list, r)
		return err
	})
	return list, err
}
