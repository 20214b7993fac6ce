package persist

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The outbox keeps a record until it is sent, through a reopening of the file, and never takes
// one again once sent.
func TestOutboxKeepsRecordsUntilSentAndNeverTwice(t *testing.T) {
	s, path := openTemp(t)
	added, err := s.OutboxAdd([]OutboxRecord{rec("b"), rec("a")})
	if err != nil || added != 2 {
		t.Fatalf("added %d: %v", added, err)
	}
	s.Close()
	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waiting, err := s.OutboxWaiting()
	if err != nil || !reflect.DeepEqual(waiting, []OutboxRecord{rec("a"), rec("b")}) {
		t.Fatalf("waiting after a reopening: %v %v", waiting, err)
	}
	if err := s.OutboxSent(waiting[:1], time.Now()); err != nil {
		t.Fatal(err)
	}
	if added, err = s.OutboxAdd([]OutboxRecord{rec("a"), rec("b"), rec("c")}); err != nil || added != 1 {
		t.Errorf("adding a sent, a waiting and a new record added %d: %v", added, err)
	}
	if waiting, _ = s.OutboxWaiting(); !reflect.DeepEqual(waiting, []OutboxRecord{rec("b"), rec("c")}) {
		t.Errorf("waiting: %v, want b and c", waiting)
	}
}

func rec(id string) OutboxRecord {
	return OutboxRecord{ID: id, Trainee: "alice", Doc: []byte(`{"id":"` + id + `"}`)}
}

// Records waiting in the clear stop a file being encrypted; once sent, only their ids remain
// and the conversion keeps them; in the encrypted file a record waits sealed.
func TestEncryptRefusesWhileRecordsWait(t *testing.T) {
	s, path := openTemp(t)
	fillShift(t, s, "s-alice", "alice")
	if _, err := s.OutboxAdd([]OutboxRecord{rec("a")}); err != nil {
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
	if err := s.OutboxSent([]OutboxRecord{rec("a")}, time.Now()); err != nil {
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
	secret := OutboxRecord{ID: "b", Trainee: "alice", Doc: []byte(`{"response":"a silent chest"}`)}
	if _, err := s.OutboxAdd([]OutboxRecord{secret}); err != nil {
		t.Fatal(err)
	}
	if waiting, err := s.OutboxWaiting(); err != nil || !reflect.DeepEqual(waiting, []OutboxRecord{secret}) {
		t.Errorf("a sealed record read back: %v %v", waiting, err)
	}
	s.Close()
	if data, _ := os.ReadFile(path); bytes.Contains(data, []byte("a silent chest")) {
		t.Error("an encrypted file holds a waiting record in the clear")
	}
}
