package persist

import (
	"encoding/json"
	"fmt"

	"github.com/ward-sim/ward/memory"
	bolt "go.etcd.io/bbolt"
)

// A Batch is writes to one session encoded, and sealed where the file is encrypted, before their
// commit. Store.Update's function runs in the writer every session on the file shares
// (groupcommit.go): what it encodes or seals there, every trainee whose update waits on that
// commit waits for. A turn fills a Batch in its own goroutine and its update only puts the bytes
// already made (Tx.Write), in the order they were added.
//
// A value is sealed for the place it will be put, and a message for the key its history's
// sequence will give it; the write checks both (the sealer is the transaction's, the key the one
// the sequence gave) and seals again in the rare case one differs, as when a message moved out
// of a history in the same batch.
type Batch struct {
	store    *Store
	id       string
	c        *sealer           // the session's sealer; nil: nothing is sealed before the commit
	where    place             // the session's shelf
	next     map[string]uint64 // a history → the key its next message is sealed for; 0: in the write
	writes   []write
	onCommit []func()
}

// write is one write of a batch: bytes made when it was added, put by Tx.Write.
type write struct {
	what     writeKind
	patient  string   // the history or document's patient; the history a message moves from
	name     string   // a document's kind; the history a message moves to
	data     []byte   // a document, the registry, the info, encoded
	sealed   []byte   // data sealed for its place; nil when the batch seals nothing
	messages [][]byte // appended messages, encoded
	pre      presealed
	info     *SessionInfo
}

type writeKind uint8

const (
	writeAppend writeKind = iota
	writeMove
	writeDoc
	writeRegistry
	writeInfo
)

// NewBatch starts a batch of the session's writes; in an encrypted file it seals each value as it
// is added.
func (s *Store) NewBatch(sessionID string) (*Batch, error) {
	b := &Batch{store: s, id: sessionID, where: sessionShelf(nil, nil, sessionID).where, next: map[string]uint64{}}
	if s.acc.encrypted.Load() == encryptionOff {
		return b, nil
	}
	err := s.view(func(tx *bolt.Tx) error {
		var err error
		b.c, err = s.sessionSealer(tx, sessionID)
		return err
	})
	return b, err
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
	first, sealed, err := b.sealMessages(patientID, encoded)
	if err != nil {
		return err
	}
	b.writes = append(b.writes, write{what: writeAppend, patient: patientID, messages: encoded, pre: presealed{first: first, values: sealed}})
	return nil
}

// sealMessages seals encoded for the keys the history's sequence will give them, the first of
// which it returns.
func (b *Batch) sealMessages(patientID string, encoded [][]byte) (first uint64, sealed [][]byte, err error) {
	if b.c == nil {
		return 0, nil, nil
	}
	next, known := b.next[patientID]
	switch {
	case known && next == 0: // a message moves out of it or into it first: sealed in the write
		return 0, nil, nil
	case !known:
		err = b.store.View(b.id, func(t *Tx) error { next = uint64(t.Len(patientID)) + 1; return nil })
		if err != nil {
			return 0, nil, err
		}
	}
	at := b.where.in(historyRel(patientID)...)
	for i, v := range encoded {
		sealed = append(sealed, b.c.seal(v, at.at(seqKey(next+uint64(i)))))
	}
	b.next[patientID] = next + uint64(len(encoded))
	return next, sealed, nil
}

// MoveLast moves the newest message of from's history to the end of to's (Tx.MoveLast).
func (b *Batch) MoveLast(from, to string) {
	if b.c != nil {
		b.next[from], b.next[to] = 0, 0 // their keys move in the write: their next messages are sealed there
	}
	b.writes = append(b.writes, write{what: writeMove, patient: from, name: to})
}

// PutPatientJSON encodes v as the patient's document of the given kind, for the commit to put
// (Tx.PutPatientEncoded).
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
	var sealed []byte
	if checkDocPlace(kind, patientID) == nil {
		sealed = b.seal(doc, docPlaces[kind].rel, []byte(patientID))
	}
	b.writes = append(b.writes, write{what: writeDoc, patient: patientID, name: kind, data: doc, sealed: sealed})
}

// PutRegistry encodes the session's registry, for the commit to put in its bucket
// (Tx.writeRegistry).
func (b *Batch) PutRegistry(r Registry) error {
	data, err := r.MarshalJSON() // called, not through json.Marshal, which would check and compact it again
	if err != nil {
		return err
	}
	b.writes = append(b.writes, write{what: writeRegistry, data: data, sealed: b.seal(data, nil, keyRegistry)})
	return nil
}

// seal seals a value for key in the bucket at rel under the session's shelf; nil when the batch
// seals nothing.
func (b *Batch) seal(plain []byte, rel []string, key []byte) []byte {
	if b.c == nil {
		return nil
	}
	return b.c.seal(plain, b.where.in(rel...).at(key))
}

// PutInfo encodes the session's info (Tx.putInfoEncoded, whose checks the write makes). An info is
// never sealed: it names the trainee whose key opens the rest.
func (b *Batch) PutInfo(info SessionInfo) error {
	data, err := json.Marshal(info)
	if err != nil {
		return err
	}
	b.writes = append(b.writes, write{what: writeInfo, data: data, info: &info})
	return nil
}

// OnCommit runs f once the transaction that writes the batch has committed.
func (b *Batch) OnCommit(f func()) { b.onCommit = append(b.onCommit, f) }

// Write puts what b holds in the transaction, in the order it was added. It may run again, in
// another transaction of a group commit: it writes the same bytes. A value sealed by the batch is
// put as it is when the transaction's sealer is the batch's, and sealed again otherwise.
func (t *Tx) Write(b *Batch) error {
	sealedHere := b.c != nil && b.c == t.c
	for i := range b.writes {
		w := &b.writes[i]
		var err error
		switch w.what {
		case writeAppend:
			pre := w.pre
			if !sealedHere {
				pre = presealed{}
			}
			err = t.appendEncoded(w.patient, w.messages, pre)
		case writeMove:
			err = t.MoveLast(w.patient, w.name)
		case writeDoc:
			err = t.writeDoc(w, sealedHere)
		case writeRegistry:
			err = t.writeRegistry(w, sealedHere)
		case writeInfo:
			err = t.putInfoEncoded(*w.info, w.data)
		}
		if err != nil {
			return err
		}
	}
	for _, f := range b.onCommit {
		t.OnCommit(f)
	}
	return nil
}

// writeDoc puts a batch's document: as the batch sealed it, or as PutPatientEncoded does.
func (t *Tx) writeDoc(w *write, sealedHere bool) error {
	if !sealedHere || w.sealed == nil {
		return t.PutPatientEncoded(w.name, w.patient, w.data)
	}
	at := docPlaces[w.name]
	bucket, err := bucketForWrite(t.b, at.bucket)
	if err != nil {
		return err
	}
	return t.putSealed(bucket, at.rel, []byte(w.patient), w.sealed)
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

// writeRegistry puts a batch's registry, sealed before the commit if sealedHere.
func (t *Tx) writeRegistry(w *write, sealedHere bool) error {
	b, err := t.registryForWrite()
	if err != nil {
		return err
	}
	if sealedHere {
		return t.putSealed(b, nil, keyRegistry, w.sealed)
	}
	return t.putOwn(b, nil, keyRegistry, w.data)
}
