package persist

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ward-sim/ward/memory"
)

func TestMain(m *testing.M) {
	CheapKDFForTests()
	if path := os.Getenv(crashChildEnv); path != "" {
		os.Exit(runCrashChild(path))
	}
	code := m.Run()
	removeBenchFixture()
	os.Exit(code)
}

// t0 is a fixed clock for deterministic messages.
var t0 = time.Date(2025, 3, 1, 22, 0, 0, 0, time.UTC)

func openTemp(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ward.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, path
}

func newSession(t *testing.T, s *Store, id string) {
	t.Helper()
	if err := s.CreateSession(SessionInfo{ID: id, CreatedAt: t0, Shift: "quiet-night"}); err != nil {
		t.Fatal(err)
	}
}

func msg(role, content string, minute int) memory.Message {
	return memory.Message{Role: role, Content: content, At: t0.Add(time.Duration(minute) * time.Minute)}
}

func mustUpdate(t *testing.T, s *Store, sid string, fn func(*Tx) error) {
	t.Helper()
	if err := s.Update(sid, fn); err != nil {
		t.Fatal(err)
	}
}

func mustView(t *testing.T, s *Store, sid string, fn func(*Tx) error) {
	t.Helper()
	if err := s.View(sid, fn); err != nil {
		t.Fatal(err)
	}
}

func appendMsgs(t *testing.T, s *Store, sid, pid string, msgs ...memory.Message) {
	t.Helper()
	mustUpdate(t, s, sid, func(tx *Tx) error { return tx.Append(pid, msgs...) })
}

func history(t *testing.T, s *Store, sid, pid string) []memory.Message {
	t.Helper()
	var got []memory.Message
	mustView(t, s, sid, func(tx *Tx) (err error) {
		got, err = tx.History(pid)
		return err
	})
	return got
}

func fileHash(t *testing.T, path string) [32]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(data)
}

// openAsAlice opens the encrypted file at path with alice signed in, closed when the test ends.
func openAsAlice(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if err := s.SignIn(Person{Trainee: "alice"}, []byte("alice on the night shift")); err != nil {
		t.Fatal(err)
	}
	return s
}
