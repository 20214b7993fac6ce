package persist

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/ward-sim/ward/memory"
	bolt "go.etcd.io/bbolt"
)

var (
	bucketSessionHistory = []byte("session_history")
	bucketHistories      = []byte("histories")
)

// historyFill packs history pages fuller than bbolt's default: keys only ever grow at the end,
// so pages split on append are never written to again.
const historyFill = 0.9

// Append adds msgs to the patient's history ("" = the session history). Each message gets its
// own key from the bucket's sequence, so existing messages are never rewritten.
func (t *Tx) Append(patientID string, msgs ...memory.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	encoded, err := encodeMessages(msgs)
	if err != nil {
		return err
	}
	return t.appendEncoded(patientID, encoded, presealed{})
}

// presealed are messages a batch sealed before their commit, for keys from first on.
type presealed struct {
	first  uint64
	values [][]byte
}

// at is the i-th message sealed for seq, if it was; nil if not.
func (p presealed) at(i int, seq uint64) []byte {
	if i < len(p.values) && seq == p.first+uint64(i) {
		return p.values[i]
	}
	return nil
}

// appendEncoded is Append of messages already encoded, and of those sealed already for the keys
// they get (pre); nothing may change them before the commit.
func (t *Tx) appendEncoded(patientID string, encoded [][]byte, pre presealed) error {
	b, err := t.historyForWrite(patientID)
	if err != nil {
		return err
	}
	b.FillPercent = historyFill
	rel := historyRel(patientID)
	for i, v := range encoded {
		seq, err := b.NextSequence()
		if err != nil {
			return err
		}
		key, stored := seqKey(seq), pre.at(i, seq)
		if stored == nil {
			stored = t.sealMessage(rel, key, v)
		}
		if err := b.Put(key, stored); err != nil {
			return err
		}
	}
	return t.setLength(rel, b.Sequence())
}

// MoveLast moves the newest message of from's history to the end of to's: a line stored before
// anyone knew whose it was. from's sequence steps back with it, so Len still counts its messages.
func (t *Tx) MoveLast(from, to string) error {
	b := t.history(from)
	if b == nil {
		return fmt.Errorf("%s has no history to move a message from", from)
	}
	k, v := b.Cursor().Last()
	if k == nil || !bytes.Equal(k, seqKey(b.Sequence())) {
		return fmt.Errorf("%s's history does not end with its newest message", from)
	}
	var m memory.Message
	if err := t.decode(historyRel(from), k, v, &m); err != nil {
		return err
	}
	if err := t.checkLength(historyRel(from), b.Sequence()); err != nil {
		return err
	}
	if err := b.Delete(k); err != nil {
		return err
	}
	if err := b.SetSequence(b.Sequence() - 1); err != nil {
		return err
	}
	if err := t.setLength(historyRel(from), b.Sequence()); err != nil {
		return err
	}
	return t.Append(to, m)
}

// History returns the patient's whole history ("" = the session history), oldest first.
func (t *Tx) History(patientID string) ([]memory.Message, error) {
	return readHistory(&t.shelf, historyRel(patientID), t.history(patientID))
}

// Recent returns the last n messages of the patient's history, oldest first. The history must
// end with the last message ward appended to it.
func (t *Tx) Recent(patientID string, n int) ([]memory.Message, error) {
	b, rel := t.history(patientID), historyRel(patientID)
	if b == nil || n <= 0 {
		return []memory.Message{}, t.checkLength(rel, 0)
	}
	var keys, raw [][]byte
	c := b.Cursor()
	for k, v := c.Last(); k != nil && len(raw) < n; k, v = c.Prev() {
		keys, raw = append(keys, k), append(raw, v)
	}
	last := uint64(0)
	if len(keys) > 0 {
		last = binary.BigEndian.Uint64(keys[0])
	}
	if err := t.checkLength(rel, last); err != nil {
		return nil, err
	}
	msgs := make([]memory.Message, len(raw))
	for i, v := range raw {
		if err := t.decode(rel, keys[i], v, &msgs[len(raw)-1-i]); err != nil {
			return nil, err
		}
	}
	return msgs, nil
}

// From returns the patient's messages from the from-th (the first is 1) to the newest, oldest
// first: what a reader holding the messages up to the from-th needs to hold them all, with the
// from-th itself, by which it can tell the history still continues what it holds. The history
// must end with the last message ward appended to it.
func (t *Tx) From(patientID string, from int) ([]memory.Message, error) {
	b, rel := t.history(patientID), historyRel(patientID)
	if b == nil {
		return []memory.Message{}, t.checkLength(rel, 0)
	}
	c := b.Cursor()
	last := uint64(0)
	if k, _ := c.Last(); k != nil {
		last = binary.BigEndian.Uint64(k)
	}
	if err := t.checkLength(rel, last); err != nil {
		return nil, err
	}
	msgs := []memory.Message{}
	for k, v := c.Seek(seqKey(uint64(max(from, 1)))); k != nil; k, v = c.Next() {
		var m memory.Message
		if err := t.decode(rel, k, v, &m); err != nil {
			return nil, err
		}
		msgs = append(msgs, m)
	}
	return msgs, nil
}

// Len is how many messages the patient's history holds ("" = the session history). It reads the
// bucket's sequence, which only appends advance, so it costs nothing however long the history is.
func (t *Tx) Len(patientID string) int {
	b := t.history(patientID)
	if b == nil {
		return 0
	}
	return int(b.Sequence())
}

// history returns the patient's history bucket, or nil if it has none.
func (t *Tx) history(patientID string) *bolt.Bucket {
	if patientID == "" {
		return t.b.Bucket(bucketSessionHistory)
	}
	if h := t.b.Bucket(bucketHistories); h != nil {
		return h.Bucket([]byte(patientID))
	}
	return nil
}

func (t *Tx) historyForWrite(patientID string) (*bolt.Bucket, error) {
	if patientID == "" {
		return bucketForWrite(t.b, bucketSessionHistory)
	}
	h, err := bucketForWrite(t.b, bucketHistories)
	if err != nil {
		return nil, err
	}
	return bucketForWrite(h, []byte(patientID))
}

// bucketForWrite is the bucket name in b, created if it is not there: CreateBucketIfNotExists,
// but without copying the name when the transaction has the bucket open already, as a /wait's
// commit has for every patient it stores.
func bucketForWrite(b *bolt.Bucket, name []byte) (*bolt.Bucket, error) {
	if child := b.Bucket(name); child != nil {
		return child, nil
	}
	return b.CreateBucketIfNotExists(name)
}

// readHistory decodes the history bucket at rel in s (nil = empty), oldest first.
func readHistory(s *shelf, rel []string, b *bolt.Bucket) ([]memory.Message, error) {
	msgs := []memory.Message{}
	err := eachMessage(s, rel, b, func(m memory.Message) error {
		msgs = append(msgs, m)
		return nil
	})
	return msgs, err
}

// eachMessage decodes a history's messages one at a time, oldest first, hands each to fn, and
// checks the history's length against its pin once all are read.
func eachMessage(s *shelf, rel []string, b *bolt.Bucket, fn func(memory.Message) error) error {
	return eachStored(s, rel, b, decoded(fn))
}

// decoded hands fn each stored message decoded.
func decoded(fn func(memory.Message) error) func(StoredMessage) error {
	return func(m StoredMessage) error {
		msg, err := m.Decode()
		if err != nil {
			return err
		}
		return fn(msg)
	}
}

// StoredMessage is one message of a history as stored: its JSON, opened when the store is sealed.
type StoredMessage struct {
	// JSON is the message as json.Marshal wrote it; it is the store's memory, valid only until
	// the function it was handed to returns.
	JSON []byte
}

// Decode reads the message; JSON that does not read as one is a damaged value.
func (m StoredMessage) Decode() (memory.Message, error) {
	var msg memory.Message
	return msg, decodeStored(m.JSON, &msg)
}

// eachStored hands a history's messages to fn as stored, one at a time, oldest first, and
// checks the history's length against its pin once all are read.
func eachStored(s *shelf, rel []string, b *bolt.Bucket, fn func(StoredMessage) error) error {
	var n uint64
	if b != nil {
		err := b.ForEach(func(k, v []byte) error {
			plain, err := s.openMessage(rel, k, v)
			if err != nil {
				return err
			}
			n++
			return fn(StoredMessage{plain})
		})
		if err != nil {
			return err
		}
	}
	return s.checkLength(rel, n)
}

// seqKey is a big-endian sequence number, so byte order is append order.
func seqKey(seq uint64) []byte {
	return binary.BigEndian.AppendUint64(nil, seq)
}
