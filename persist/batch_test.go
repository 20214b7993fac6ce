package persist

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/ward-sim/ward/memory"
)

// A batch, encoded before its commit, stores what the transaction's own writes store, in the
// order it was filled.
func TestABatchStoresWhatTheTransactionsWritesStore(t *testing.T) {
	s, _ := openTemp(t)
	newSession(t, s, "direct")
	newSession(t, s, "batch")
	reg := Registry{ActivePatientID: "patient_1", Patients: map[string]PatientEntry{
		"patient_1": {PatientID: "patient_1", Facts: map[string]any{"bed": "3 <A>", "news2": 5}, CreatedAt: t0, UpdatedAt: t0},
	}}
	doc := map[string]any{"start": 1.5, "said": "a & b"}
	mustUpdate(t, s, "direct", func(tx *Tx) error {
		return errors.Join(tx.Append("patient_1", msg("user", "first", 1)), tx.Append("patient_2", msg("user", "second", 2)),
			tx.MoveLast("patient_2", "patient_1"), tx.PutPatientJSON(KindMemory, "patient_1", doc), tx.PutRegistry(reg),
			tx.PutInfo(SessionInfo{ID: "direct", CreatedAt: t0, Shift: "quiet-night", ClockSeconds: 60}))
	})
	var b Batch
	if err := errors.Join(b.Append("patient_1", msg("user", "first", 1)), b.Append("patient_2", msg("user", "second", 2))); err != nil {
		t.Fatal(err)
	}
	b.MoveLast("patient_2", "patient_1")
	if err := errors.Join(b.PutPatientJSON(KindMemory, "patient_1", doc), b.PutRegistry(reg),
		b.PutInfo(SessionInfo{ID: "batch", CreatedAt: t0, Shift: "quiet-night", ClockSeconds: 60})); err != nil {
		t.Fatal(err)
	}
	mustUpdate(t, s, "batch", func(tx *Tx) error { return tx.Write(&b) })

	type stored struct {
		history [][]byte
		doc     []byte
		reg     Registry
		clock   float64
		lens    [2]int
	}
	read := func(id string) (out stored) {
		mustView(t, s, id, func(tx *Tx) error {
			h, err := tx.History("patient_1")
			for _, m := range h {
				out.history = append(out.history, []byte(m.Content+"|"+m.At.String()))
			}
			out.doc, _ = tx.PatientDoc(KindMemory, "patient_1")
			out.reg, _ = tx.Registry()
			info, _ := tx.Info()
			out.clock, out.lens = info.ClockSeconds, [2]int{tx.Len("patient_1"), tx.Len("patient_2")}
			return err
		})
		return out
	}
	direct, batch := read("direct"), read("batch")
	if !reflect.DeepEqual(direct, batch) || batch.lens != [2]int{2, 0} || !bytes.Contains(batch.doc, []byte(`"a \u0026 b"`)) {
		t.Fatalf("a batch stored\n%+v\nthe transaction's writes\n%+v", batch, direct)
	}
}

// A batch written in a transaction that is rolled back (a group commit runs it again without the
// update that failed) writes the same bytes in the next, once, and runs what waits for its commit
// once.
func TestABatchWrittenAgainAfterARollbackIsStoredOnce(t *testing.T) {
	s, _ := openTemp(t)
	newSession(t, s, "s")
	var b Batch
	if err := b.Append("patient_1", msg("user", "kept once", 1)); err != nil {
		t.Fatal(err)
	}
	committed := 0
	b.OnCommit(func() { committed++ })
	planted := errors.New("planted failure")
	if err := s.Update("s", func(tx *Tx) error { return errors.Join(tx.Write(&b), planted) }); !errors.Is(err, planted) {
		t.Fatalf("err = %v, want the planted failure", err)
	}
	if committed != 0 || lenOf(t, s, "s", "patient_1") != 0 {
		t.Fatalf("a rolled-back batch ran its commit's functions %d times and left %d messages", committed, lenOf(t, s, "s", "patient_1"))
	}
	mustUpdate(t, s, "s", func(tx *Tx) error { return tx.Write(&b) })
	if committed != 1 || lenOf(t, s, "s", "patient_1") != 1 {
		t.Fatalf("written again: its commit's functions ran %d times, %d messages stored; want 1 and 1", committed, lenOf(t, s, "s", "patient_1"))
	}
}

// In an encrypted file a batch seals its values as they are added, for the place and the key
// each will have: written twice (a group commit runs it again after a rollback) it puts the very
// same sealed bytes, which the writer did not make. A message whose key moved before the write
// (another commit appended to its history, or the batch moved a message out) is sealed again in
// the write; everything opens in its place afterwards, pins and all.
func TestABatchSealsBeforeTheCommitInAnEncryptedFile(t *testing.T) {
	s, path := encryptedStore(t)
	if err := s.SignIn(Person{Trainee: "alice"}, []byte("alice on the night shift")); err != nil {
		t.Fatal(err)
	}
	const sid = "s-alice"
	b, err := s.NewBatch(sid)
	if err != nil || b.c == nil {
		t.Fatalf("NewBatch: %v, sealer %v; want one that seals", err, b.c)
	}
	doc := map[string]any{"items": []string{"wheeze"}}
	if err := errors.Join(b.Append("patient_1", msg("user", "sats?", 4), msg("user", "pulse?", 5)),
		b.PutPatientJSON(KindMemory, "patient_1", doc), b.PutRegistry(Registry{ActivePatientID: "patient_1"})); err != nil {
		t.Fatal(err)
	}
	raw := func(tx *Tx) [][]byte {
		h := tx.history("patient_1")
		return [][]byte{bytes.Clone(h.Get(seqKey(h.Sequence() - 1))), bytes.Clone(h.Get(seqKey(h.Sequence()))),
			bytes.Clone(tx.b.Bucket([]byte(KindMemory)).Get([]byte("patient_1"))), bytes.Clone(tx.storedRegistry())}
	}
	var rolledBack, committed [][]byte
	planted := errors.New("planted failure")
	if err := s.Update(sid, func(tx *Tx) error {
		err := tx.Write(b)
		rolledBack = raw(tx)
		return errors.Join(err, planted)
	}); !errors.Is(err, planted) {
		t.Fatal(err)
	}
	mustUpdate(t, s, sid, func(tx *Tx) error {
		err := tx.Write(b)
		committed = raw(tx)
		return err
	})
	if !reflect.DeepEqual(rolledBack, committed) {
		t.Error("written twice, the batch put other bytes: its values were sealed in the write")
	}

	moved, err := s.NewBatch(sid)
	if err != nil {
		t.Fatal(err)
	}
	if err := moved.Append("patient_1", msg("user", "after another's line", 7)); err != nil {
		t.Fatal(err)
	}
	moved.MoveLast("patient_1", "patient_2")
	if err := moved.Append("patient_2", msg("user", "after the move", 8)); err != nil {
		t.Fatal(err)
	}
	appendMsgs(t, s, sid, "patient_1", msg("user", "another's line first", 6))
	mustUpdate(t, s, sid, func(tx *Tx) error { return tx.Write(moved) })

	s.Close()
	reopened := openAsAlice(t, path)
	d, err := reopened.Dump(sid)
	if err != nil {
		t.Fatalf("the shift does not read back: %v", err)
	}
	contents := func(msgs []memory.Message) (out []string) {
		for _, m := range msgs {
			out = append(out, m.Content)
		}
		return out
	}
	if got, want := contents(d.Histories["patient_1"]), []string{"any allergies?", "I had anaphylaxis to penicillin.", "sats?", "pulse?", "another's line first"}; !reflect.DeepEqual(got, want) {
		t.Errorf("patient_1's history reads %q, want %q", got, want)
	}
	if got, want := contents(d.Histories["patient_2"]), []string{"after another's line", "after the move"}; !reflect.DeepEqual(got, want) {
		t.Errorf("patient_2's history reads %q, want %q", got, want)
	}
}
