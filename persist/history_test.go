package persist

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/ward-sim/ward/memory"
	bolt "go.etcd.io/bbolt"
)

func TestAppendHistoryRecent(t *testing.T) {
	for _, pid := range []string{"", "patient_4"} {
		t.Run("patient="+pid, func(t *testing.T) {
			s, _ := openTemp(t)
			newSession(t, s, "s1")
			var all []memory.Message
			for i := range 5 {
				all = append(all, msg("user", string(rune('a'+i)), i))
			}
			// Three commits, one of them with several messages.
			appendMsgs(t, s, "s1", pid, all[0])
			appendMsgs(t, s, "s1", pid, all[1:4]...)
			appendMsgs(t, s, "s1", pid, all[4])

			if got := history(t, s, "s1", pid); !reflect.DeepEqual(got, all) {
				t.Errorf("History = %v, want %v", got, all)
			}
			for _, tt := range []struct {
				n    int
				want []memory.Message
			}{
				{0, []memory.Message{}},
				{-1, []memory.Message{}},
				{1, all[4:]},
				{3, all[2:]},
				{5, all},
				{10, all},
			} {
				mustView(t, s, "s1", func(tx *Tx) error {
					got, err := tx.Recent(pid, tt.n)
					if !reflect.DeepEqual(got, tt.want) {
						t.Errorf("Recent(%d) = %v, want %v", tt.n, got, tt.want)
					}
					return err
				})
			}
			for from, want := range map[int][]memory.Message{-1: all, 0: all, 1: all, 2: all[1:], 5: all[4:], 6: {}, 9: {}} {
				mustView(t, s, "s1", func(tx *Tx) error {
					got, err := tx.From(pid, from)
					if !reflect.DeepEqual(got, want) {
						t.Errorf("From(%d) = %v, want %v", from, got, want)
					}
					return err
				})
			}
		})
	}
}

func TestEmptyHistoryIsEmptyNotNil(t *testing.T) {
	s, _ := openTemp(t)
	newSession(t, s, "s1")
	mustView(t, s, "s1", func(tx *Tx) error {
		h, err := tx.History("patient_9")
		if h == nil || len(h) != 0 {
			t.Errorf("History = %#v, want empty", h)
		}
		r, _ := tx.Recent("", 8)
		if r == nil || len(r) != 0 {
			t.Errorf("Recent = %#v, want empty", r)
		}
		return err
	})
}

// TestAppendNeverRewritesKeys checks the stored bytes: each message has its own big-endian
// sequence key, and later appends leave earlier keys exactly as they were.
func TestAppendNeverRewritesKeys(t *testing.T) {
	s, _ := openTemp(t)
	newSession(t, s, "s1")
	appendMsgs(t, s, "s1", "patient_1", msg("user", "first", 0))
	first := rawHistory(t, s, "s1", "patient_1")
	for i := range 3 {
		appendMsgs(t, s, "s1", "patient_1", msg("assistant", "more", i+1))
	}
	after := rawHistory(t, s, "s1", "patient_1")
	if len(after) != 4 {
		t.Fatalf("%d keys, want 4", len(after))
	}
	for i, kv := range after {
		if want := []byte{0, 0, 0, 0, 0, 0, 0, byte(i + 1)}; !bytes.Equal(kv[0], want) {
			t.Errorf("key %d = %x, want %x", i, kv[0], want)
		}
	}
	if !bytes.Equal(after[0][1], first[0][1]) {
		t.Errorf("first message rewritten: %s -> %s", first[0][1], after[0][1])
	}
}

func rawHistory(t *testing.T, s *Store, sid, pid string) [][2][]byte {
	t.Helper()
	var kvs [][2][]byte
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketSessions).Bucket([]byte(sid)).Bucket(bucketHistories).Bucket([]byte(pid))
		return b.ForEach(func(k, v []byte) error {
			kvs = append(kvs, [2][]byte{bytes.Clone(k), bytes.Clone(v)})
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return kvs
}

func TestHistoriesAreIsolated(t *testing.T) {
	s, _ := openTemp(t)
	newSession(t, s, "s1")
	newSession(t, s, "s2")
	writes := []struct{ sid, pid, text string }{
		{"s1", "", "before any patient"},
		{"s1", "patient_1", "s1 p1"},
		{"s1", "patient_2", "s1 p2"},
		{"s2", "patient_1", "s2 p1"},
	}
	for i, w := range writes {
		appendMsgs(t, s, w.sid, w.pid, msg("user", w.text, i))
	}
	for i, w := range writes {
		got := history(t, s, w.sid, w.pid)
		if want := []memory.Message{msg("user", w.text, i)}; !reflect.DeepEqual(got, want) {
			t.Errorf("%s/%q = %v, want %v", w.sid, w.pid, got, want)
		}
	}
	if got := history(t, s, "s2", ""); len(got) != 0 {
		t.Errorf("s2 session history = %v, want empty", got)
	}
}

func TestMessageJSON(t *testing.T) {
	tests := []struct {
		name string
		m    memory.Message
		want string
	}{
		{"plain", memory.Message{Role: "user", Content: "hi", At: t0},
			`{"role":"user","content":"hi","at":"2025-03-01T22:00:00Z"}`},
		{"sim time", memory.Message{Role: "user", Content: "hi", At: t0, Sim: 90.5},
			`{"role":"user","content":"hi","at":"2025-03-01T22:00:00Z","sim":90.5}`},
		{"agent", memory.Message{Role: "assistant", Agent: "nurse", Content: "ok", At: t0},
			`{"role":"assistant","agent":"nurse","content":"ok","at":"2025-03-01T22:00:00Z"}`},
		{"tool call", memory.Message{Role: "assistant", At: t0, ToolCalls: []memory.ToolCall{{ID: "c1", Name: "vitals", Args: map[string]any{"patient": "patient_1"}}}},
			`{"role":"assistant","content":"","at":"2025-03-01T22:00:00Z","tool_calls":[{"id":"c1","name":"vitals","args":{"patient":"patient_1"}}]}`},
		{"tool result", memory.Message{Role: "tool", Content: "{}", At: t0, ToolCallID: "c1", ToolName: "vitals"},
			`{"role":"tool","content":"{}","at":"2025-03-01T22:00:00Z","tool_call_id":"c1","tool_name":"vitals"}`},
	}
	s, _ := openTemp(t)
	newSession(t, s, "s1")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := json.Marshal(tt.m)
			if err != nil {
				t.Fatal(err)
			}
			if string(data) != tt.want {
				t.Errorf("json = %s\nwant   %s", data, tt.want)
			}
			appendMsgs(t, s, "s1", tt.name, tt.m)
			if got := history(t, s, "s1", tt.name); !reflect.DeepEqual(got, []memory.Message{tt.m}) {
				t.Errorf("round trip = %#v, want %#v", got, tt.m)
			}
		})
	}
}

func TestFailedUpdateCommitsNothing(t *testing.T) {
	s, _ := openTemp(t)
	newSession(t, s, "s1")
	boom := errors.New("boom")
	err := s.Update("s1", func(tx *Tx) error {
		if err := tx.Append("patient_1", msg("user", "lost", 0)); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	appendMsgs(t, s, "s1", "patient_1", msg("user", "kept", 1))
	if got := rawHistory(t, s, "s1", "patient_1"); len(got) != 1 || got[0][0][7] != 1 {
		t.Errorf("after a rolled-back append, keys = %v, want the single key 1", got)
	}
}

func TestAppendInViewFails(t *testing.T) {
	s, _ := openTemp(t)
	newSession(t, s, "s1")
	err := s.View("s1", func(tx *Tx) error { return tx.Append("", msg("user", "x", 0)) })
	if err == nil {
		t.Error("Append in a read-only transaction succeeded")
	}
}

// MoveLast takes the newest message from one history to the end of another in one commit: the
// first no longer holds it and still counts its messages right, and a later append follows on.
func TestMoveLastMovesTheNewestMessage(t *testing.T) {
	s, _ := openTemp(t)
	newSession(t, s, "s1")
	a, b, line := msg("user", "a", 0), msg("assistant", "b", 1), msg("user", "to patient_2", 2)
	appendMsgs(t, s, "s1", "patient_1", a, b, line)
	appendMsgs(t, s, "s1", "patient_2", msg("user", "c", 3))
	if err := s.Update("s1", func(tx *Tx) error { return tx.MoveLast("patient_1", "patient_2") }); err != nil {
		t.Fatal(err)
	}
	later := msg("user", "d", 4)
	appendMsgs(t, s, "s1", "patient_1", later)
	if got := history(t, s, "s1", "patient_1"); !reflect.DeepEqual(got, []memory.Message{a, b, later}) {
		t.Errorf("patient_1 = %v, want a, b, d", got)
	}
	if got := history(t, s, "s1", "patient_2"); len(got) != 2 || !reflect.DeepEqual(got[1], line) {
		t.Errorf("patient_2 = %v, want c, then the moved line", got)
	}
	mustView(t, s, "s1", func(tx *Tx) error {
		if n := tx.Len("patient_1"); n != 3 {
			t.Errorf("Len(patient_1) = %d, want 3", n)
		}
		return nil
	})
	err := s.Update("s1", func(tx *Tx) error { return tx.MoveLast("patient_9", "patient_2") })
	if err == nil {
		t.Error("moving from a patient with no history succeeded")
	}
}

// In an encrypted database the moved message is sealed again where it lands and reads back.
func TestMoveLastInAnEncryptedDatabase(t *testing.T) {
	s, _ := encryptedStore(t)
	if err := s.SignIn(Person{Trainee: "alice"}, []byte("alice on the night shift")); err != nil {
		t.Fatal(err)
	}
	mustUpdate(t, s, "s-alice", func(tx *Tx) error { return tx.MoveLast("patient_1", "patient_2") })
	moved := history(t, s, "s-alice", "patient_2")
	if len(moved) != 1 || moved[0].Content != "I had anaphylaxis to penicillin." {
		t.Errorf("patient_2 = %v, want the moved reply", moved)
	}
	if left := history(t, s, "s-alice", "patient_1"); len(left) != 1 || left[0].Content != "any allergies?" {
		t.Errorf("patient_1 = %v, want only the question", left)
	}
}
