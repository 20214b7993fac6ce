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

// contentBuckets are the nested buckets of a session that make up its Content; keyRegistry is
// the one plain key.
var contentBuckets = [][]byte{
	bucketSessionHistory, bucketHistories, []byte(KindMemory), []byte(KindEntities), []byte(KindSim),
}

// Archive moves the session's content into archive/<session>/<at> in one transaction, leaving
// the session with an empty registry and no histories or documents. It always writes a
// snapshot, even of an empty session, so that every clear leaves a trace. It returns the
// snapshot's id; ReadArchive reads a snapshot back.
func (s *Store) Archive(sessionID string, at time.Time) (string, error) {
	err := s.Update(sessionID, func(t *Tx) error {
		_, err := archiveContent(t.b.Tx(), sessionID, t.b, at)
		return err
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
			snap := perSession.Bucket(id)
			reg, err := t.c.registry(snap.Get(keyRegistry))
			if err != nil {
				return fmt.Errorf("archive %s: registry: %w", id, err)
			}
			sum := ArchiveSummary{ID: string(id), Patients: len(reg.Patients)}
			if h := snap.Bucket(bucketSessionHistory); h != nil {
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
		a, err = readArchive(t.c, snap, archiveID)
		return err
	})
	return a, err
}

// RestoreArchive puts an archive's content back into the session. So that a restore never
// loses anything, a session that holds content is first archived itself (at the current time),
// in the same transaction. The restored archive is kept.
func (s *Store) RestoreArchive(sessionID, archiveID string) error {
	return s.Update(sessionID, func(t *Tx) error {
		tx, b := t.b.Tx(), t.b
		snap := archiveBucket(tx, sessionID, archiveID)
		if snap == nil {
			return fmt.Errorf("archive %q of session %q: %w", archiveID, sessionID, ErrNotFound)
		}
		if !isEmpty(t.c, b) {
			if _, err := archiveContent(tx, sessionID, b, time.Now()); err != nil {
				return err
			}
		}
		if err := deleteContent(b); err != nil {
			return err
		}
		return copyContent(b, snap)
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

// archiveContent copies the session's content into a new snapshot bucket and deletes it from
// the session.
func archiveContent(tx *bolt.Tx, sessionID string, b *bolt.Bucket, at time.Time) (*bolt.Bucket, error) {
	perSession, err := tx.Bucket(bucketArchive).CreateBucketIfNotExists([]byte(sessionID))
	if err != nil {
		return nil, err
	}
	snap, err := perSession.CreateBucket([]byte(archiveID(at)))
	if errors.Is(err, berrors.ErrBucketExists) {
		return nil, fmt.Errorf("archive %s of session %q already exists", archiveID(at), sessionID)
	}
	if err != nil {
		return nil, err
	}
	if err := copyContent(snap, b); err != nil {
		return nil, err
	}
	return snap, deleteContent(b)
}

func copyContent(dst, src *bolt.Bucket) error {
	if v := src.Get(keyRegistry); v != nil {
		if err := dst.Put(keyRegistry, bytes.Clone(v)); err != nil {
			return err
		}
	}
	for _, name := range contentBuckets {
		from := src.Bucket(name)
		if from == nil {
			continue
		}
		to, err := dst.CreateBucket(name)
		if err != nil {
			return err
		}
		if err := copyBucket(to, from, nil); err != nil {
			return err
		}
	}
	return nil
}

// copyBucket copies a bucket tree, sequences included, so appends after a restore continue
// after the restored keys instead of overwriting them. seal seals each value on the way (nil
// copies them as they are).
func copyBucket(dst, src *bolt.Bucket, seal *sealer) error {
	dst.FillPercent = historyFill // keys arrive in order, as on append
	if err := dst.SetSequence(src.Sequence()); err != nil {
		return err
	}
	return src.ForEach(func(k, v []byte) error {
		if v != nil {
			return dst.Put(bytes.Clone(k), bytes.Clone(seal.seal(v)))
		}
		child, err := dst.CreateBucket(bytes.Clone(k))
		if err != nil {
			return err
		}
		return copyBucket(child, src.Bucket(k), seal)
	})
}

func deleteContent(b *bolt.Bucket) error {
	if err := b.Delete(keyRegistry); err != nil {
		return err
	}
	for _, name := range contentBuckets {
		if b.Bucket(name) == nil {
			continue
		}
		if err := b.DeleteBucket(name); err != nil {
			return err
		}
	}
	return nil
}

// isEmpty reports whether a session holds no content worth keeping: an empty registry and no
// stored message or document.
func isEmpty(c *sealer, b *bolt.Bucket) bool {
	reg, err := c.registry(b.Get(keyRegistry))
	if err != nil || reg.ActivePatientID != "" || len(reg.Patients) > 0 {
		return false
	}
	for _, name := range contentBuckets {
		if !emptyTree(b.Bucket(name)) {
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

// readContent decodes a session or snapshot bucket, opening its values with s.
func readContent(s *sealer, b *bolt.Bucket) (Content, error) {
	var c Content
	var err error
	if c.Registry, err = s.registry(b.Get(keyRegistry)); err != nil {
		return c, fmt.Errorf("registry: %w", err)
	}
	if c.SessionHistory, err = readHistory(s, b.Bucket(bucketSessionHistory)); err != nil {
		return c, fmt.Errorf("session history: %w", err)
	}
	if c.Histories, err = readHistories(s, b.Bucket(bucketHistories)); err != nil {
		return c, err
	}
	for kind, docs := range map[string]*map[string]json.RawMessage{KindMemory: &c.Memory, KindEntities: &c.Entities, KindSim: &c.Sim} {
		if *docs, err = readDocs[json.RawMessage](s, kind, b.Bucket([]byte(kind))); err != nil {
			return c, err
		}
	}
	return c, nil
}

func readHistories(c *sealer, h *bolt.Bucket) (map[string][]memory.Message, error) {
	all := map[string][]memory.Message{}
	if h == nil {
		return all, nil
	}
	err := h.ForEachBucket(func(pid []byte) error {
		msgs, err := readHistory(c, h.Bucket(pid))
		if err != nil {
			return fmt.Errorf("history of %s: %w", pid, err)
		}
		all[string(pid)] = msgs
		return nil
	})
	return all, err
}

func readArchive(s *sealer, snap *bolt.Bucket, id string) (Archive, error) {
	at, err := time.Parse(time.RFC3339Nano, id)
	if err != nil {
		return Archive{}, fmt.Errorf("archive %q: bad id: %w", id, &corruptValue{err})
	}
	c, err := readContent(s, snap)
	if err != nil {
		return Archive{}, fmt.Errorf("archive %s: %w", id, err)
	}
	return Archive{ID: id, CreatedAt: at, Content: c}, nil
}

func readArchives(c *sealer, tx *bolt.Tx, sessionID string) ([]Archive, error) {
	list := []Archive{}
	perSession := tx.Bucket(bucketArchive).Bucket([]byte(sessionID))
	if perSession == nil {
		return list, nil
	}
	err := perSession.ForEachBucket(func(id []byte) error {
		a, err := readArchive(c, perSession.Bucket(id), string(id))
		list = append(list, a)
		return err
	})
	return list, err
}
