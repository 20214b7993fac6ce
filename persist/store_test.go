package persist

import (
	"bytes"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

func TestOpenCreatesParentDirsAndMeta(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "ward.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.db.View(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if got, want := string(meta.Get(keySchemaVersion)), strconv.Itoa(schemaVersion()); got != want {
			t.Errorf("schema_version = %q, want %s", got, want)
		}
		if got := string(meta.Get(keyCreatedBy)); got != "ward" {
			t.Errorf("created_by = %q, want ward", got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestOpenLockedFileFailsWithOneLineNamingTheFile(t *testing.T) {
	_, path := openTemp(t)
	second, err := Open(path)
	if err == nil {
		second.Close()
		t.Fatal("second Open succeeded on a locked file")
	}
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("err = %v, want ErrLocked", err)
	}
	if msg := err.Error(); !strings.Contains(msg, path) || strings.Contains(msg, "\n") {
		t.Errorf("message %q should be one line naming %s", msg, path)
	}
}

func TestOpenRefusesForeignFilesUntouched(t *testing.T) {
	tests := []struct {
		name  string
		write func(t *testing.T, path string)
		want  error
	}{
		{"random bytes", writeRandom(3 * 4096), ErrNotWard},
		{"short text", writeBytes([]byte("hello, not a database\n")), ErrNotWard},
		{"bbolt with a foreign bucket", writeBolt(func(tx *bolt.Tx) error {
			_, err := tx.CreateBucket([]byte("other-app"))
			return err
		}), ErrNotWard},
		{"ward meta without a schema version", writeBolt(func(tx *bolt.Tx) error {
			_, err := tx.CreateBucket(bucketMeta)
			return err
		}), ErrNotWard},
		{"newer schema", writeWard(func(tx *bolt.Tx) error {
			return tx.Bucket(bucketMeta).Put(keySchemaVersion, []byte(strconv.Itoa(schemaVersion()+1)))
		}), ErrNewerSchema},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ward.db")
			tt.write(t, path)
			before := fileHash(t, path)
			s, err := Open(path)
			if err == nil {
				s.Close()
				t.Fatal("Open accepted the file")
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if msg := err.Error(); !strings.Contains(msg, path) || strings.Contains(msg, "\n") {
				t.Errorf("message %q should be one line naming %s", msg, path)
			}
			if fileHash(t, path) != before {
				t.Error("the refused file was modified")
			}
		})
	}
}

func TestOpenAdoptsEmptyFiles(t *testing.T) {
	tests := []struct {
		name  string
		write func(t *testing.T, path string)
	}{
		{"zero-length file", writeBytes(nil)},
		{"bbolt file without buckets", writeBolt(func(*bolt.Tx) error { return nil })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ward.db")
			tt.write(t, path)
			s, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			newSession(t, s, "s1")
		})
	}
}

func TestOpenRunsMigrationsOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ward.db")
	writeWard(func(*bolt.Tx) error { return nil })(t, path)
	before := schemaVersion()
	calls := 0
	withMigration(t, func(tx *bolt.Tx) error {
		calls++
		_, err := tx.CreateBucket([]byte("added_in_v2"))
		return err
	})
	for range 2 {
		s, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	if calls != 1 {
		t.Errorf("migration ran %d times, want 1", calls)
	}
	readRaw(t, path, func(tx *bolt.Tx) {
		if got, want := string(tx.Bucket(bucketMeta).Get(keySchemaVersion)), strconv.Itoa(before+1); got != want {
			t.Errorf("schema_version = %q, want %s", got, want)
		}
		if tx.Bucket([]byte("added_in_v2")) == nil {
			t.Error("the migration's bucket is missing")
		}
	})
}

func TestOpenFailedMigrationChangesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ward.db")
	writeWard(func(*bolt.Tx) error { return nil })(t, path)
	before := strconv.Itoa(schemaVersion())
	withMigration(t, func(tx *bolt.Tx) error {
		if _, err := tx.CreateBucket([]byte("half_done")); err != nil {
			return err
		}
		return errors.New("boom")
	})
	s, err := Open(path)
	if err == nil {
		s.Close()
		t.Fatal("Open succeeded although the migration failed")
	}
	if !strings.Contains(err.Error(), "boom") {
		t.Errorf("err = %v, want the migration's error", err)
	}
	readRaw(t, path, func(tx *bolt.Tx) {
		if got := string(tx.Bucket(bucketMeta).Get(keySchemaVersion)); got != before {
			t.Errorf("schema_version = %q, want %s", got, before)
		}
		if tx.Bucket([]byte("half_done")) != nil {
			t.Error("the failed migration was committed")
		}
	})
}

// withMigration adds a test-only migration from the current version for the rest of the test.
func withMigration(t *testing.T, m func(*bolt.Tx) error) {
	saved := migrations
	t.Cleanup(func() { migrations = saved })
	migrations = append(slices.Clone(saved), m)
}

func writeBytes(data []byte) func(*testing.T, string) {
	return func(t *testing.T, path string) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func writeRandom(n int) func(*testing.T, string) {
	return func(t *testing.T, path string) {
		data := make([]byte, n)
		_, _ = rand.Read(data)
		writeBytes(data)(t, path)
	}
}

// writeBolt creates a plain bbolt file shaped by fn.
func writeBolt(fn func(*bolt.Tx) error) func(*testing.T, string) {
	return func(t *testing.T, path string) {
		db, err := bolt.Open(path, 0o600, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := db.Update(fn); err != nil {
			t.Fatal(err)
		}
	}
}

// writeWard creates a ward file, then changes it with fn behind ward's back.
func writeWard(fn func(*bolt.Tx) error) func(*testing.T, string) {
	return func(t *testing.T, path string) {
		s, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		writeBolt(fn)(t, path)
	}
}

func readRaw(t *testing.T, path string, fn func(*bolt.Tx)) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_ = db.View(func(tx *bolt.Tx) error {
		fn(tx)
		return nil
	})
}

// Commits counts each durable commit once, and a rolled-back transaction or a read not at all.
func TestCommitsCountsDurableCommits(t *testing.T) {
	s, _ := openTemp(t)
	before := commits(t, s)
	sid := "s1"
	newSession(t, s, sid)
	mustUpdate(t, s, sid, func(tx *Tx) error { return tx.Append("patient_1", msg("user", "hello", 0)) })
	_ = s.Update(sid, func(*Tx) error { return errors.New("rolled back") })
	if err := s.View(sid, func(*Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if got := commits(t, s) - before; got != 2 {
		t.Fatalf("a new session and one append made %d commits, want 2", got)
	}
}

func commits(t *testing.T, s *Store) uint64 {
	t.Helper()
	n, err := s.Commits()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A file from before schema version 4 held each shelf's registry as a value of the shelf's own
// bucket. A snapshot of it reads the registries without changing the file; opening it moves
// them into their buckets, bytes as they were.
func TestRegistriesWrittenBeforeVersion4Read(t *testing.T) {
	s, path := openTemp(t)
	newSession(t, s, "s1")
	reg := Registry{ActivePatientID: "patient_4", Patients: map[string]PatientEntry{"patient_4": {PatientID: "patient_4", Facts: map[string]any{"bed": "4"}, CreatedAt: t0, UpdatedAt: t0}}}
	mustUpdate(t, s, "s1", func(tx *Tx) error { return tx.PutRegistry(reg) })
	archived, err := s.Archive("s1", t0)
	if err != nil {
		t.Fatal(err)
	}
	mustUpdate(t, s, "s1", func(tx *Tx) error { return tx.PutRegistry(reg) })
	s.Close()
	shelves := [][]string{{"sessions", "s1"}, {"archive", "s1", archived}}
	tamper(t, path, func(tx *bolt.Tx) error { // back to version 3's layout
		for _, at := range shelves {
			shelf := bucketAt(tx, at...)
			v := bytes.Clone(shelf.Bucket(bucketRegistry).Get(keyRegistry))
			if err := firstErr(shelf.DeleteBucket(bucketRegistry), shelf.Put(keyRegistry, v)); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketMeta).Put(keySchemaVersion, []byte("3"))
	})
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := OpenSnapshot(path)
	if err != nil {
		t.Fatal(err)
	}
	d, err := snap.Dump("s1")
	snap.Close()
	if err != nil || !reflect.DeepEqual(d.Registry, reg) || len(d.Archives) != 1 || !reflect.DeepEqual(d.Archives[0].Registry, reg) {
		t.Errorf("the snapshot's dump: %+v, %v", d, err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("reading a snapshot changed the file")
	}
	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	mustView(t, s, "s1", func(tx *Tx) error {
		got, err := tx.Registry()
		if !reflect.DeepEqual(got, reg) {
			t.Errorf("the registry after the migration: %+v", got)
		}
		return err
	})
	s.Close()
	readRaw(t, path, func(tx *bolt.Tx) {
		for _, at := range shelves {
			shelf := bucketAt(tx, at...)
			if shelf.Get(keyRegistry) != nil || shelf.Bucket(bucketRegistry) == nil || shelf.Bucket(bucketRegistry).Get(keyRegistry) == nil {
				t.Errorf("%s: the registry did not move into its bucket", strings.Join(at, "/"))
			}
		}
	})
}
