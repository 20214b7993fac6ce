package persist

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The outbox keeps a record until it is sent, through a reopening of the file, and never takes
// one again once sent.
func TestOutboxKeepsRecordsUntilSentAndNeverTwice(t *testing.T) {
	s, path := openTemp(t)
	added, err := s.OutboxAdd(map[string][]byte{"b": []byte(`{"id":"b"}`), "a": []byte(`{"id":"a"}`)})
	if err != nil || added != 2 {
		t.Fatalf("added %d: %v", added, err)
	}
	s.Close()
	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ids, docs, err := s.OutboxWaiting()
	if err != nil || !reflect.DeepEqual(ids, []string{"a", "b"}) || string(docs[1]) != `{"id":"b"}` {
		t.Fatalf("waiting after a reopening: %v %q %v", ids, docs, err)
	}
	if err := s.OutboxSent([]string{"a"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if added, err = s.OutboxAdd(map[string][]byte{"a": []byte(`{"id":"a"}`), "b": []byte(`{"id":"b"}`), "c": []byte(`{}`)}); err != nil || added != 1 {
		t.Errorf("adding a sent, a waiting and a new record added %d: %v", added, err)
	}
	if ids, _, _ = s.OutboxWaiting(); !reflect.DeepEqual(ids, []string{"b", "c"}) {
		t.Errorf("waiting: %v, want b and c", ids)
	}
}

// Records waiting in the clear stop a file being encrypted; once sent, only their ids remain
// and the conversion keeps them.
func TestEncryptRefusesWhileRecordsWait(t *testing.T) {
	s, path := openTemp(t)
	fillShift(t, s, "s-alice", "alice")
	if _, err := s.OutboxAdd(map[string][]byte{"a": []byte(`{"actor":"alice"}`)}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	before := fileHash(t, path)
	if _, err := Encrypt(path, []byte("the night sister holds the keys"), "owner"); err == nil || !strings.Contains(err.Error(), "outbox") {
		t.Fatalf("encrypting with records waiting: %v", err)
	}
	if fileHash(t, path) != before {
		t.Error("the refused conversion changed the file")
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.OutboxSent([]string{"a"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Encrypt(path, []byte("the night sister holds the keys"), "owner"); err != nil {
		t.Fatalf("encrypting once the records were sent: %v", err)
	}
	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.SignIn(Person{Instructor: true}, []byte("the night sister holds the keys")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.OutboxAdd(map[string][]byte{"a": []byte(`{}`)}); !errors.Is(err, ErrOutboxEncrypted) {
		t.Errorf("an encrypted file took a record in the clear: %v", err)
	}
}
