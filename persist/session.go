package persist

import (
	"errors"
	"fmt"
	"slices"
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
	// Ended is when the instructor ended the shift for debrief; zero while it runs.
	Ended time.Time `json:"ended,omitzero"`
	// TraineeIsLogin: Trainee is the login's name, taken because the shift was played without
	// one (Person.Login).
	TraineeIsLogin bool `json:"trainee_is_login,omitempty"`
}

var (
	keyInfo     = []byte("info")
	keyRegistry = []byte("registry")
	// bucketRegistry holds a shelf's registry alone, under keyRegistry (shelf.registryForWrite).
	bucketRegistry = []byte("registry")
)

// Tx is one transaction on one session, valid only inside the Update or View callback.
type Tx struct {
	id    string
	shelf // sessions/<id>, sealed with the data key of the session's trainee (nil in a plain database)
}

// CreateSession adds a new, empty session. Its ID must be new. In an encrypted database it must
// name a trainee whose records the store can open.
func (s *Store) CreateSession(info SessionInfo) error {
	if info.ID == "" {
		return errors.New("create session: empty session id")
	}
	return s.update(func(tx *bolt.Tx) error {
		if s.encrypted(tx) {
			if _, err := s.dataKey(tx, info.Trainee); err != nil {
				return fmt.Errorf("create session: %w", err)
			}
		}
		b, err := tx.Bucket(bucketSessions).CreateBucket([]byte(info.ID))
		if errors.Is(err, berrors.ErrBucketExists) {
			return fmt.Errorf("create session: session %q already exists", info.ID)
		}
		if err != nil {
			return err
		}
		return putJSON(b, keyInfo, info, nil, place{}) // an info is never sealed: it names the trainee whose key opens the rest
	})
}

// LatestSession returns the session created last (ties broken by the greater id) among those
// of the person the store acts for; false when there is none.
func (s *Store) LatestSession() (SessionInfo, bool, error) {
	all, err := s.Sessions()
	if err != nil || len(all) == 0 {
		return SessionInfo{}, false, err
	}
	return all[len(all)-1], true, nil
}

// Sessions returns the sessions of the person the store acts for, oldest first. Their infos are
// not encrypted, so listing them opens no record.
func (s *Store) Sessions() ([]SessionInfo, error) {
	p := s.Person()
	var list []SessionInfo
	err := s.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketSessions).ForEachBucket(func(id []byte) error {
			info, err := readInfo(tx.Bucket(bucketSessions).Bucket(id))
			if err == nil && info.ID != string(id) {
				err = &corruptValue{fmt.Errorf("its info names session %q", info.ID)}
			}
			if err != nil {
				return fmt.Errorf("session %q: %w", id, err)
			}
			if p.mayOpen(info.Trainee) {
				list = append(list, info)
			}
			return nil
		})
	})
	slices.SortFunc(list, func(a, b SessionInfo) int {
		if later(a, b) {
			return 1
		}
		return -1
	})
	return list, err
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
	return s.Update(sessionID, func(t *Tx) error {
		if !isEmpty(&t.shelf) || t.b.Tx().Bucket(bucketArchive).Bucket([]byte(sessionID)) != nil {
			return nil
		}
		return t.b.Tx().Bucket(bucketSessions).DeleteBucket([]byte(sessionID))
	})
}

// Update runs fn in a read-write transaction on the session, committed durably (fsync) when fn
// returns nil and rolled back otherwise. Updates of several sessions at once (a class on one
// file) share a commit, and fn may then run more than once (groupcommit.go): it changes nothing
// outside tx but through Tx.OnCommit.
func (s *Store) Update(sessionID string, fn func(*Tx) error) error {
	if err := s.verify.verified(); err != nil {
		return err
	}
	return s.damage(s.commits.update(func(tx *bolt.Tx) error {
		return s.inSession(tx, sessionID, fn)
	}))
}

// OnCommit runs f once the transaction has committed; never when it is rolled back.
func (t *Tx) OnCommit(f func()) { t.b.Tx().OnCommit(f) }

// View runs fn in one read-only transaction on the session.
func (s *Store) View(sessionID string, fn func(*Tx) error) error {
	return s.view(func(tx *bolt.Tx) error {
		return s.inSession(tx, sessionID, fn)
	})
}

func (s *Store) inSession(tx *bolt.Tx, sessionID string, fn func(*Tx) error) error {
	b, err := sessionBucket(tx, sessionID)
	if err != nil {
		return err
	}
	if err := s.viewMayOpen(b, sessionID); err != nil {
		return err
	}
	c, err := s.sessionSealer(tx, sessionID)
	if err != nil {
		return err
	}
	t := &Tx{id: sessionID, shelf: sessionShelf(b, c, sessionID)}
	t.cache = s.pins
	if err := fn(t); err != nil {
		return err
	}
	return t.flush()
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

// putInfoEncoded puts the session's info, already encoded as data; its ID must be the session's,
// and its trainee too once it has one: the trainee's key seals the session's records.
func (t *Tx) putInfoEncoded(info SessionInfo, data []byte) error {
	if info.ID != t.id {
		return fmt.Errorf("put info: id %q does not match session %q", info.ID, t.id)
	}
	if old, err := t.Info(); err == nil && old.Trainee != "" && old.Trainee != info.Trainee {
		return fmt.Errorf("put info: session %q belongs to trainee %q, not %q", t.id, old.Trainee, info.Trainee)
	}
	return t.b.Put(keyInfo, data)
}

// Registry returns the session's registry; an empty one when none was stored.
func (t *Tx) Registry() (Registry, error) { return t.registry() }

func readInfo(b *bolt.Bucket) (SessionInfo, error) {
	var info SessionInfo
	err := decodeStored(b.Get(keyInfo), &info)
	return info, err
}

// decode opens a stored message at key of the history at rel and decodes its JSON into v.
func (s *shelf) decode(rel []string, key, stored []byte, v any) error {
	plain, err := s.openMessage(rel, key, stored)
	if err != nil {
		return err
	}
	return decodeStored(plain, v)
}

// registry opens and decodes the shelf's registry; a missing one is empty.
func (s *shelf) registry() (Registry, error) {
	plain, err := s.get(nil, keyRegistry, s.storedRegistry())
	if err != nil {
		return Registry{}, err
	}
	return decodeRegistry(plain)
}
