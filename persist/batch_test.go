package persist

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
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
