package persist

import (
	"encoding/json"
	"fmt"

	"github.com/ward-sim/ward/memory"
)

// A Batch is writes to one session encoded before their commit. Store.Update's function runs in
// the writer every session on the file shares (groupcommit.go): what it encodes there, every
// trainee whose update waits on that commit waits for. A turn fills a Batch in its own goroutine
// and its update only puts the bytes already made (Tx.Write), in the order they were added.
type Batch struct {
	puts     []func(*Tx) error // each puts bytes encoded when it was added
	onCommit []func()
}

// Append encodes msgs for the end of the patient's history ("" = the session history).
func (b *Batch) Append(patientID string, msgs ...memory.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	encoded, err := encodeMessages(msgs)
	if err != nil {
		return err
	}
	b.add(func(t *Tx) error { return t.appendEncoded(patientID, encoded) })
	return nil
}

// MoveLast moves the newest message of from's history to the end of to's (Tx.MoveLast).
func (b *Batch) MoveLast(from, to string) {
	b.add(func(t *Tx) error { return t.MoveLast(from, to) })
}

// PutPatientJSON encodes v as the patient's document of the given kind (Tx.PutPatientJSON).
func (b *Batch) PutPatientJSON(kind, patientID string, v any) error {
	doc, err := encodeDoc(kind, patientID, v)
	if err != nil {
		return err
	}
	b.PutPatientEncoded(kind, patientID, doc)
	return nil
}

// PutPatientEncoded is PutPatientJSON of a document encoding/json encoded elsewhere; nothing may
// change doc until the batch is written.
func (b *Batch) PutPatientEncoded(kind, patientID string, doc []byte) {
	b.add(func(t *Tx) error { return t.PutPatientEncoded(kind, patientID, doc) })
}

// PutRegistry encodes the session's registry (Tx.PutRegistry).
func (b *Batch) PutRegistry(r Registry) error {
	data, err := json.Marshal(r.stored())
	if err != nil {
		return err
	}
	b.add(func(t *Tx) error { return t.putOwn(t.b, nil, keyRegistry, data) })
	return nil
}

// PutInfo encodes the session's info (Tx.PutInfo, whose checks the write makes).
func (b *Batch) PutInfo(info SessionInfo) error {
	data, err := json.Marshal(info)
	if err != nil {
		return err
	}
	b.add(func(t *Tx) error { return t.putInfoEncoded(info, data) })
	return nil
}

// OnCommit runs f once the transaction that writes the batch has committed.
func (b *Batch) OnCommit(f func()) { b.onCommit = append(b.onCommit, f) }

func (b *Batch) add(put func(*Tx) error) { b.puts = append(b.puts, put) }

// Write puts what b holds in the transaction, in the order it was added. It may run again, in
// another transaction of a group commit: it writes the same bytes.
func (t *Tx) Write(b *Batch) error {
	for _, put := range b.puts {
		if err := put(t); err != nil {
			return err
		}
	}
	for _, f := range b.onCommit {
		t.OnCommit(f)
	}
	return nil
}

func encodeMessages(msgs []memory.Message) ([][]byte, error) {
	encoded := make([][]byte, len(msgs))
	for i, m := range msgs {
		v, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		encoded[i] = v
	}
	return encoded, nil
}

func encodeDoc(kind, patientID string, v any) ([]byte, error) {
	doc, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("put %s document of %s: %w", kind, patientID, err)
	}
	return doc, nil
}
