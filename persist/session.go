package persist

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// SessionInfo describes one session (a shift).
type SessionInfo struct {
	ID           string    `json:"id"`
	CreatedAt    time.Time `json:"created_at"`
	Shift        string    `json:"shift"`
	Trainee      string    `json:"trainee"`
	ClockSeconds float64   `json:"clock_seconds"`
	Seed         int64     `json:"seed"`
}

var (
	keyInfo     = []byte("info")
	keyRegistry = []byte("registry")
)

// Tx is one transaction on one session, valid only inside the Update or View callback.
type Tx struct {
	id string
	b  *bolt.Bucket // sessions/<id>
}

// CreateSession adds a new, empty session. Its ID must be new.
func (s *Store) CreateSession(info SessionInfo) error {
	if info.ID == "" {
		return errors.New("create session: empty session id")
	}
	return s.update(func(tx *bolt.Tx) error {
		b, err := tx.Bucket(bucketSessions).CreateBucket([]byte(info.ID))
		if errors.Is(err, berrors.ErrBucketExists) {
			return fmt.Errorf("create session: session %q already exists", info.ID)
		}
		if err != nil {
			return err
		}
		return putJSON(b, keyInfo, info)
	})
}

// LatestSession returns the session created last (ties broken by the greater id); false when
// there is none.
func (s *Store) LatestSession() (SessionInfo, bool, error) {
	var latest SessionInfo
	found := false
	err := s.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketSessions).ForEachBucket(func(id []byte) error {
			info, err := readInfo(tx.Bucket(bucketSessions).Bucket(id))
			if err == nil && info.ID != string(id) {
				err = &corruptValue{fmt.Errorf("its info names session %q", info.ID)}
			}
			if err != nil {
				return fmt.Errorf("session %q: %w", id, err)
			}
			if !found || later(info, latest) {
				latest, found = info, true
			}
			return nil
		})
	})
	return latest, found, err
}

func later(a, b SessionInfo) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.After(b.CreatedAt)
	}
	return a.ID > b.ID
}

// DiscardUnused deletes a session that holds no content and has no archives: nothing was ever
// written to it. Any other session is left exactly as it is.
func (s *Store) DiscardUnused(sessionID string) error {
	return s.update(func(tx *bolt.Tx) error {
		b, err := sessionBucket(tx, sessionID)
		if err != nil || !isEmpty(b) || tx.Bucket(bucketArchive).Bucket([]byte(sessionID)) != nil {
			return err
		}
		return tx.Bucket(bucketSessions).DeleteBucket([]byte(sessionID))
	})
}

// Update runs fn in one read-write transaction on the session, committed durably (fsync) when
// fn returns nil and rolled back otherwise.
func (s *Store) Update(sessionID string, fn func(*Tx) error) error {
	return s.update(func(tx *bolt.Tx) error {
		return inSession(tx, sessionID, fn)
	})
}

// View runs fn in one read-only transaction on the session.
func (s *Store) View(sessionID string, fn func(*Tx) error) error {
	return s.view(func(tx *bolt.Tx) error {
		return inSession(tx, sessionID, fn)
	})
}

func inSession(tx *bolt.Tx, sessionID string, fn func(*Tx) error) error {
	b, err := sessionBucket(tx, sessionID)
	if err != nil {
		return err
	}
	return fn(&Tx{id: sessionID, b: b})
}

func sessionBucket(tx *bolt.Tx, sessionID string) (*bolt.Bucket, error) {
	b := tx.Bucket(bucketSessions).Bucket([]byte(sessionID))
	if b == nil {
		return nil, fmt.Errorf("session %q: %w", sessionID, ErrNotFound)
	}
	return b, nil
}

// Info returns the session's info.
func (t *Tx) Info() (SessionInfo, error) { return readInfo(t.b) }

// PutInfo replaces the session's info; its ID must be the session's.
func (t *Tx) PutInfo(info SessionInfo) error {
	if info.ID != t.id {
		return fmt.Errorf("put info: id %q does not match session %q", info.ID, t.id)
	}
	return putJSON(t.b, keyInfo, info)
}

// Registry returns the session's registry; an empty one when none was stored.
func (t *Tx) Registry() (Registry, error) { return decodeRegistry(t.b.Get(keyRegistry)) }

// PutRegistry replaces the session's registry.
func (t *Tx) PutRegistry(r Registry) error { return putJSON(t.b, keyRegistry, r.stored()) }

func readInfo(b *bolt.Bucket) (SessionInfo, error) {
	var info SessionInfo
	err := decodeStored(b.Get(keyInfo), &info)
	return info, err
}

func putJSON(b *bolt.Bucket, key []byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put(key, data)
}
