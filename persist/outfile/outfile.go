// Package outfile is how ward writes a file a person asked for (--out, the TUI's /export, the
// inspector's prompt save): a new file only, unless forced; never over a file ward is using;
// readable by the user alone, since it may hold a plaintext copy of an encrypted shift; and whole
// or not at all. It imports nothing of ward's, so every package that writes for a person can.
package outfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// Mode is every output's: it may hold clinical text.
const Mode = 0o600

// ErrExists is an existing path given without force.
var ErrExists = errors.New("already exists")

// ErrInUse is a path ward must never write over, whatever the flags: a file this process has
// open (its database, the audit record, a trace being written, a file being read), a ward
// database, a file named after one (DB.audit, DB.keys, DB.hostkey, its backups: whatever ward
// keeps beside a database, in use by another ward or not), a private key, or a symbolic link.
var ErrInUse = errors.New("refused")

var (
	mu    sync.Mutex
	inUse = map[string]int{} // absolute path → how many holders
)

// Hold marks paths as in use by this process until release is called: no output may replace
// them. Paths that do not exist yet (an audit record not written) are held by name.
func Hold(paths ...string) (release func()) {
	abs := make([]string, 0, len(paths))
	mu.Lock()
	for _, p := range paths {
		if a, err := filepath.Abs(p); err == nil {
			inUse[a]++
			abs = append(abs, a)
		}
	}
	mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			defer mu.Unlock()
			for _, a := range abs {
				if inUse[a]--; inUse[a] <= 0 {
					delete(inUse, a)
				}
			}
		})
	}
}

// Write creates path with what write writes. The bytes go to a temporary file beside path,
// which is synced and then put in place, so an interrupted write leaves no half file. Without
// force an existing path is refused (ErrExists); whatever force says, so is a path Hold holds, a
// ward database and a symbolic link (ErrInUse). The new file is Mode.
func Write(path string, force bool, write func(io.Writer) error) error {
	if err := check(path, force); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // gone once linked or renamed; left by a failure
	err = tmp.Chmod(Mode)
	if err == nil {
		err = write(tmp)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if force {
		if err := check(path, force); err != nil { // it may have changed while we wrote
			return err
		}
		return os.Rename(tmp.Name(), path)
	}
	// A link fails if the name exists, so a file that appeared meanwhile is not replaced.
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("%s %w: name a new file, or pass --force to replace it", path, ErrExists)
		}
		return err
	}
	return nil
}

// Check is what Write refuses, asked before the work that makes the bytes.
func Check(path string, force bool) error { return check(path, force) }

// Appendable refuses, as Write does whatever force says, a path that a log ward appends to (a
// trace) must not be: a file ward is using, a database, a symbolic link, or not a regular file.
func Appendable(path string) error { return check(path, true) }

// OpenLog opens a log ward appends to (a trace, the audit record) for appending, creating it
// as Mode; a symbolic link at path is refused, not followed.
func OpenLog(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW, Mode)
}

// WriteString is Write of a string.
func WriteString(path string, force bool, s string) error {
	return Write(path, force, func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	})
}

// check refuses what Write must not replace.
func check(path string, force bool) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	info, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		if held(abs, nil) {
			return fmt.Errorf("%s %w: ward is using it", path, ErrInUse)
		}
		return besideDatabase(path)
	}
	switch {
	case err != nil:
		return err
	case info.Mode()&os.ModeSymlink != 0:
		return fmt.Errorf("%s %w: it is a symbolic link, which ward does not follow for output", path, ErrInUse)
	case held(abs, info):
		return fmt.Errorf("%s %w: ward is using it", path, ErrInUse)
	case !info.Mode().IsRegular():
		return fmt.Errorf("%s %w: it is not a regular file", path, ErrInUse)
	case isDatabase(path):
		return fmt.Errorf("%s %w: it is a database", path, ErrInUse)
	case isPrivateKey(path):
		return fmt.Errorf("%s %w: it is a private key", path, ErrInUse)
	}
	if err := besideDatabase(path); err != nil {
		return err
	}
	if !force {
		return fmt.Errorf("%s %w: name a new file, or pass --force to replace it", path, ErrExists)
	}
	return nil
}

// held reports whether abs, or the file info describes, is held: by name, or as the same file
// under another name (a hard link, another spelling).
func held(abs string, info os.FileInfo) bool {
	mu.Lock()
	defer mu.Unlock()
	if inUse[abs] > 0 {
		return true
	}
	if info == nil {
		return false
	}
	for p := range inUse {
		if other, err := os.Stat(p); err == nil && os.SameFile(info, other) {
			return true
		}
	}
	return false
}

// besideDatabase refuses a path named after a ward database, DB.anything: ward's own.
func besideDatabase(path string) error {
	dir, base := filepath.Split(path)
	for i := 1; i < len(base); i++ {
		if db := filepath.Join(dir, base[:i]); base[i] == '.' && isDatabase(db) {
			return fmt.Errorf("%s %w: it is ward's, beside the database %s", path, ErrInUse, db)
		}
	}
	return nil
}

// isPrivateKey reports whether the file at path starts as a PEM private key does (a server's
// host key, anyone's SSH key).
func isPrivateKey(path string) bool {
	head := readHead(path, 64)
	return bytes.HasPrefix(head, []byte("-----BEGIN ")) && bytes.Contains(head, []byte("PRIVATE KEY-----"))
}

// readHead is the first n bytes of the file at path, fewer when it is shorter; nil when it
// cannot be read.
func readHead(path string, n int) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	head := make([]byte, n)
	m, _ := io.ReadFull(f, head)
	return head[:m]
}

// boltMagic is what a bbolt file (ward's database) carries at byte 16 of its first page.
var boltMagic = []byte{0xed, 0xda, 0x0c, 0xed} // 0xED0CDAED, little-endian

func isDatabase(path string) bool {
	head := readHead(path, 20)
	return len(head) == 20 && bytes.Equal(head[16:20], boltMagic)
}
