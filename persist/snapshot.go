package persist

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	bolt "go.etcd.io/bbolt"
)

// ErrNoDatabase is returned by OpenSnapshot when there is no file at the path.
var ErrNoDatabase = errors.New("no ward database")

// OpenSnapshot opens a read-only copy of the database at path, as it was at its latest commit,
// even while another ward process holds it for writing. It never creates or changes anything at
// path: a missing file is an error naming it.
//
// A writer holds an exclusive lock on the file, so the copy is read without bbolt. It is
// consistent when neither of bbolt's two meta pages changed while it was read: a commit writes its
// data pages only to pages no committed meta reaches, then its meta page, and the next commit
// cannot start before that; so with both metas unchanged, every page the newest meta reaches was
// already in place when the copy began and was not overwritten before it ended. When a commit
// lands during the copy, the copy is taken again.
func OpenSnapshot(path string) (*Store, error) {
	info, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w at %s (pass --db, or set WARD_DB)", ErrNoDatabase, path)
	}
	if err != nil {
		return nil, err
	}
	if info.IsDir() || info.Size() == 0 {
		return nil, notWard(path, "it is empty or a directory")
	}
	copyPath, err := consistentCopy(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if err := checkFile(copyPath, path); err != nil {
		_ = os.Remove(copyPath)
		return nil, err
	}
	db, err := openCopy(copyPath, path)
	// The copy is private: once bbolt has it mapped, its name is no longer needed.
	_ = os.Remove(copyPath)
	if err != nil {
		return nil, err
	}
	return newStore(db, path), nil
}

// openCopy opens the private copy of the file at path read-only, at this binary's schema: a
// copy of an older file is migrated first, as Open migrates the file itself, so that every
// reader reads one layout. The file at path is not changed.
func openCopy(copyPath, path string) (*bolt.DB, error) {
	db, err := bolt.Open(copyPath, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		return nil, openFailure(path, err)
	}
	var version int
	err = db.View(func(tx *bolt.Tx) error {
		version, err = fileVersion(path, tx)
		if err == nil && version == 0 {
			err = notWard(path, "it holds no ward data")
		}
		return err
	})
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	if version == schemaVersion() {
		return db, nil
	}
	_ = db.Close()
	if err := migrateCopy(copyPath, path); err != nil {
		return nil, err
	}
	if db, err = bolt.Open(copyPath, 0o600, &bolt.Options{ReadOnly: true}); err != nil {
		return nil, openFailure(path, err)
	}
	return db, nil
}

// migrateCopy brings the private copy of the file at path to this binary's schema.
func migrateCopy(copyPath, path string) error {
	db, err := bolt.Open(copyPath, 0o600, &bolt.Options{NoFreelistSync: true})
	if err != nil {
		return openFailure(path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error { return prepare(path, tx) })
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return err
}

// snapshotAttempts bounds the copies taken while commits keep landing; a ward commits a few
// times per turn, far slower than a copy of its file.
const snapshotAttempts = 20

// consistentCopy copies the file at path to a temporary file, retrying while the meta pages
// change under the copy, and returns the copy's path.
func consistentCopy(path string) (string, error) {
	for attempt := 0; attempt < snapshotAttempts; attempt++ {
		copyPath, ok, err := copyOnce(path)
		if err != nil || ok {
			return copyPath, err
		}
		time.Sleep(time.Duration(attempt+1) * 5 * time.Millisecond)
	}
	return "", fmt.Errorf("the file kept changing during %d copies; try again", snapshotAttempts)
}

// copyOnce copies path and reports whether the copy is consistent: the meta pages read before
// the copy, after it, and in the copy itself are the same bytes.
func copyOnce(path string) (copyPath string, ok bool, err error) {
	src, err := os.Open(path)
	if err != nil {
		return "", false, err
	}
	defer src.Close()
	before, err := readMetas(src)
	if err != nil {
		return "", false, err
	}
	dst, err := os.CreateTemp("", "ward-snapshot-*.db")
	if err != nil {
		return "", false, err
	}
	defer func() {
		if !ok {
			_ = os.Remove(dst.Name())
		}
	}()
	_, err = io.Copy(dst, src) // ReadAt left src's offset at 0
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", false, err
	}
	after, err := readMetas(src)
	if err != nil || !bytes.Equal(before, after) {
		return "", false, err
	}
	copied, err := os.Open(dst.Name())
	if err != nil {
		return "", false, err
	}
	inCopy, err := readMetas(copied)
	copied.Close()
	if err != nil || !bytes.Equal(before, inCopy) {
		return "", false, err
	}
	return dst.Name(), true, nil
}

// Offsets in a bbolt meta page: a 16-byte page header, then magic, version and page size.
const (
	metaMagicAt    = 16
	metaPageSizeAt = 24
)

// readMetas returns the bytes of both meta pages (pages 0 and 1). The page size is read from
// whichever meta page carries bbolt's magic; a file with neither is returned whole up to the
// default size, for bbolt to refuse when it opens the copy.
func readMetas(f *os.File) ([]byte, error) {
	pageSize := os.Getpagesize()
	head := make([]byte, 2*64*1024) // both metas fit at any page size bbolt uses
	n, err := f.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	head = head[:n]
	for _, at := range []int{0, pageSize} {
		if at+metaPageSizeAt+4 <= len(head) && binary.LittleEndian.Uint32(head[at+metaMagicAt:]) == boltMagic {
			pageSize = int(binary.LittleEndian.Uint32(head[at+metaPageSizeAt:]))
			break
		}
	}
	return head[:min(2*pageSize, len(head))], nil
}
