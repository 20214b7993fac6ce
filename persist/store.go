// Package persist is ward's bbolt store: sessions, their registry and histories, per-patient
// documents, and the archives written by a clear. ARCHITECTURE.md shows the bucket layout.
package persist

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/ward-sim/ward/persist/outfile"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Errors returned by Open, usable with errors.Is. The error values Open returns carry a one-line
// message naming the file.
var (
	ErrLocked      = errors.New("database is in use by another process")
	ErrNotWard     = errors.New("not a ward database")
	ErrNewerSchema = errors.New("database schema is newer than this ward")
	ErrNotFound    = errors.New("not found")
	ErrDamaged     = errors.New("database is damaged")
)

// lockTimeout bounds the wait for bbolt's file lock, so a second ward fails fast instead of hanging.
const lockTimeout = time.Second

var (
	bucketMeta     = []byte("meta")
	bucketSessions = []byte("sessions")
	bucketArchive  = []byte("archive")

	keySchemaVersion = []byte("schema_version")
	keyCreatedBy     = []byte("created_by")
)

// migrations[i] upgrades a file from schema version i+1 to i+2. A new file starts at version 1
// and takes the same path, so there is one way to reach the current layout.
var migrations = []func(tx *bolt.Tx) error{
	// 2: a file may hold keys and encrypted values (keys.go). Nothing in the file changes; the
	// version keeps a ward that cannot open encrypted values from reading them as empty ones.
	func(*bolt.Tx) error { return nil },
	// 3: sealed values are bound to their place and pinned (seal.go, shelf.go). Binding needs
	// the trainees' keys, so it is done when a writer opens them (bind.go); the version keeps
	// a ward that reads only the old kind from taking the new for damage.
	func(*bolt.Tx) error { return nil },
	// 4: a shelf's registry lies in a bucket of its own (shelf.go), its bytes as they were.
	moveRegistries,
}

// schemaVersion is the version this binary writes.
func schemaVersion() int { return 1 + len(migrations) }

// Store is an open ward database. It is safe for concurrent use.
type Store struct {
	db      *bolt.DB
	path    string
	acc     access        // who uses the store, and the keys they opened (access.go)
	pins    *pinCache     // the pins its transactions decoded (pins.go), shared with its views
	commits *groupCommit  // the sessions' updates, written in groups (groupcommit.go), shared with its views
	release func()        // lets outputs name the file and its audit record again (outfile.Hold)
	shared  bool          // a view of another Store's file (view.go): Close leaves the file open
	verify  *verification // the damage check a write waits for (verify.go); nil when none runs
}

// openError gives a one-line message and matches its sentinel with errors.Is.
type openError struct {
	sentinel error
	msg      string
}

func (e *openError) Error() string { return e.msg }
func (e *openError) Unwrap() error { return e.sentinel }

// Open opens (or creates) the ward database at path, creating its parent directories. A file
// that is not ward's, is damaged, or whose schema is newer than this binary, is refused and left
// untouched: existing files are checked read-only before they are opened for writing, and a
// file already at this binary's schema is not written to until the caller writes.
func Open(path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	version, err := inspect(path)
	if err != nil {
		return nil, err
	}
	db, err := bolt.Open(path, 0o600, writeOptions)
	if err != nil {
		return nil, openFailure(path, err)
	}
	if version < schemaVersion() {
		if err := db.Update(func(tx *bolt.Tx) error { return prepare(path, tx) }); err != nil {
			_ = db.Close()
			return nil, err
		}
	}
	return newStore(db, path), nil
}

// newStore is the Store of the file at path, which no output may replace while it is open.
func newStore(db *bolt.DB, path string) *Store {
	return &Store{db: db, path: path, pins: &pinCache{}, commits: &groupCommit{db: db}, release: outfile.Hold(path, AuditPath(path))}
}

// Path is the database's file.
func (s *Store) Path() string { return s.path }

// writeOptions keep every commit durable (bbolt fsyncs data and meta pages) but skip writing the
// freelist on each commit: a turn's commits then write fewer pages, and the freelist is rebuilt
// by a scan when the file is opened.
var writeOptions = &bolt.Options{Timeout: lockTimeout, NoFreelistSync: true, FreelistType: bolt.FreelistMapType}

// view and update run a bbolt transaction, and name the file when a stored value turns out
// damaged.
func (s *Store) view(fn func(*bolt.Tx) error) error { return s.damage(s.db.View(fn)) }
func (s *Store) update(fn func(*bolt.Tx) error) error {
	if err := s.verify.verified(); err != nil {
		return err
	}
	return s.damage(s.db.Update(fn))
}

func (s *Store) damage(err error) error {
	var c *corruptValue
	if errors.As(err, &c) {
		return damaged(s.path, err.Error())
	}
	return err
}

// corruptValue is a stored value that does not decode: ward encoded every value it stored, so
// the bytes changed after it wrote them.
type corruptValue struct{ err error }

func (c *corruptValue) Error() string { return "a stored value does not decode: " + c.err.Error() }
func (c *corruptValue) Unwrap() error { return c.err }

func decodeStored(data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return &corruptValue{err}
	}
	return nil
}

// Commits is how many durable commits the file has had since it was made: bbolt numbers each
// committed write transaction, and a read sees the last number. A turn's cost in commits (each
// is two fdatasyncs) is counted with it.
func (s *Store) Commits() (uint64, error) {
	var id int
	err := s.db.View(func(tx *bolt.Tx) error {
		id = tx.ID()
		return nil
	})
	return uint64(id), err
}

// WriterTime is how long the writer every session's updates share (groupcommit.go) has spent
// since the store opened: in transactions before their commit (running the updates'
// functions), and in all, the commits' writing and fsyncs included. While it runs one session's
// update, every other session's waits.
func (s *Store) WriterTime() (updates, all time.Duration) { return s.commits.writerTime() }

// PageWrites is how many writes bbolt's commits have made since the store opened: a page each,
// or an overflowing value's run of pages. Each touched bucket's path from its leaf to the root is
// written again at every commit, so the number grows with how deep the touched buckets are.
func (s *Store) PageWrites() int64 {
	stats := s.db.Stats()
	return stats.TxStats.GetWrite()
}

// Close releases the file and its lock; a view's Close forgets its keys only (view.go).
func (s *Store) Close() error {
	if s.shared {
		s.forget()
		return nil
	}
	_ = s.verify.verified() // the check's reads end before the file closes; its verdict no longer matters
	s.release()
	return s.db.Close()
}

// inspect refuses an existing file that is not ward's, is damaged or is too new, without
// writing to it, and returns its schema version. A missing or zero-length file is new (version
// 0): bbolt would initialise it even in read-only mode.
func inspect(path string) (int, error) {
	info, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) || (err == nil && info.Size() == 0) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if err := checkFile(path, path); err != nil {
		return 0, err
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: lockTimeout})
	if err != nil {
		return 0, openFailure(path, err)
	}
	defer db.Close()
	var v int
	err = db.View(func(tx *bolt.Tx) (err error) {
		if v, err = fileVersion(path, tx); err != nil || v == 0 {
			return err
		}
		for _, name := range [][]byte{bucketSessions, bucketArchive} {
			if tx.Bucket(name) == nil {
				return damaged(path, fmt.Sprintf("its %s bucket is missing", name))
			}
		}
		return nil
	})
	return v, err
}

// openFailure turns bbolt's open errors into ward's.
func openFailure(path string, err error) error {
	if errors.Is(err, berrors.ErrTimeout) {
		return lockedError(path)
	}
	return fmt.Errorf("open database %s: %w", path, err)
}

func notWard(path, why string) error {
	return &openError{ErrNotWard, fmt.Sprintf(
		"%s is not a ward database (%s); it was left untouched, pass --db to use another file", path, why)}
}

// fileVersion reads the schema version, 0 for an empty bbolt file. It refuses foreign files and
// versions newer than this binary.
func fileVersion(path string, tx *bolt.Tx) (int, error) {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		if k, _ := tx.Cursor().First(); k != nil {
			return 0, notWard(path, "it has buckets but no ward meta bucket")
		}
		return 0, nil
	}
	v, err := strconv.Atoi(string(meta.Get(keySchemaVersion)))
	if err != nil || v < 1 {
		return 0, notWard(path, "its schema_version is missing or invalid")
	}
	if v > schemaVersion() {
		return 0, &openError{ErrNewerSchema, fmt.Sprintf(
			"database %s has schema version %d but this ward supports up to %d; upgrade ward (the file was left untouched)",
			path, v, schemaVersion())}
	}
	return v, nil
}

// prepare initialises a new file at version 1 and runs the migrations up to the current version,
// in the caller's single transaction.
func prepare(path string, tx *bolt.Tx) error {
	v, err := fileVersion(path, tx)
	if err != nil {
		return err
	}
	if v == 0 {
		if err := initialise(tx); err != nil {
			return err
		}
		v = 1
	}
	for ; v < schemaVersion(); v++ {
		if err := migrations[v-1](tx); err != nil {
			return fmt.Errorf("migrate %s from schema version %d: %w", path, v, err)
		}
	}
	return tx.Bucket(bucketMeta).Put(keySchemaVersion, []byte(strconv.Itoa(v)))
}

// moveRegistries moves the registry of every session and every snapshot from its shelf's bucket
// into a bucket of its own. Its bytes stay as they are: a sealed registry is bound to the
// shelf's place, which it keeps, so no key is needed.
func moveRegistries(tx *bolt.Tx) error {
	var shelves []*bolt.Bucket
	sessions, archive := tx.Bucket(bucketSessions), tx.Bucket(bucketArchive)
	_ = sessions.ForEachBucket(func(id []byte) error {
		shelves = append(shelves, sessions.Bucket(id))
		return nil
	})
	_ = archive.ForEachBucket(func(id []byte) error {
		perSession := archive.Bucket(id)
		return perSession.ForEachBucket(func(at []byte) error {
			shelves = append(shelves, perSession.Bucket(at))
			return nil
		})
	})
	for _, b := range shelves {
		v := b.Get(keyRegistry)
		if v == nil {
			continue
		}
		v = bytes.Clone(v) // the page it lies in changes with the delete
		if err := b.Delete(keyRegistry); err != nil {
			return err
		}
		own, err := b.CreateBucket(bucketRegistry)
		if err != nil {
			return err
		}
		if err := own.Put(keyRegistry, v); err != nil {
			return err
		}
	}
	return nil
}

// initialise writes the version-1 layout.
func initialise(tx *bolt.Tx) error {
	meta, err := tx.CreateBucket(bucketMeta)
	if err != nil {
		return err
	}
	if err := meta.Put(keyCreatedBy, []byte("ward")); err != nil {
		return err
	}
	if err := meta.Put(keySchemaVersion, []byte("1")); err != nil {
		return err
	}
	if _, err := tx.CreateBucket(bucketSessions); err != nil {
		return err
	}
	_, err = tx.CreateBucket(bucketArchive)
	return err
}
