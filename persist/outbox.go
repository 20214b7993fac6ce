package persist

import (
	"bytes"
	"errors"
	"time"

	bolt "go.etcd.io/bbolt"
)

// The outbox holds learning records bound for a learning record store, by statement id, so
// none is lost while the store is down: a record waits until the store has it, then its id is
// kept as sent, so a later run never sends it again. It is a bucket of its own, beside the
// shifts, created by the first run that posts.
var (
	bucketOutbox  = []byte("lrs_outbox")
	bucketWaiting = []byte("waiting")
	bucketSent    = []byte("sent")
)

// ErrOutboxEncrypted refuses an outbox in an encrypted file: its records name trainees and
// their scores, which the file keeps only sealed.
var ErrOutboxEncrypted = errors.New("an encrypted database keeps no outbox of learning records in the clear: export with --format xapi and post the file instead")

// OutboxAdd puts each record (by id) the outbox has neither waiting nor sent, and says how
// many it added.
func (s *Store) OutboxAdd(records map[string][]byte) (added int, err error) {
	err = s.update(func(tx *bolt.Tx) error {
		if s.encrypted(tx) {
			return ErrOutboxEncrypted
		}
		waiting, sent, err := outbox(tx)
		if err != nil {
			return err
		}
		for id, doc := range records {
			if waiting.Get([]byte(id)) != nil || sent.Get([]byte(id)) != nil {
				continue
			}
			if err := waiting.Put([]byte(id), bytes.Clone(doc)); err != nil {
				return err
			}
			added++
		}
		return nil
	})
	return added, err
}

// OutboxWaiting is every record waiting, by id, in id order.
func (s *Store) OutboxWaiting() (ids []string, docs [][]byte, err error) {
	err = s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketOutbox)
		if b == nil || b.Bucket(bucketWaiting) == nil {
			return nil
		}
		return b.Bucket(bucketWaiting).ForEach(func(k, v []byte) error {
			ids, docs = append(ids, string(k)), append(docs, bytes.Clone(v))
			return nil
		})
	})
	return ids, docs, err
}

// OutboxSent moves records from waiting to sent, at the time the store took them.
func (s *Store) OutboxSent(ids []string, at time.Time) error {
	return s.update(func(tx *bolt.Tx) error {
		waiting, sent, err := outbox(tx)
		if err != nil {
			return err
		}
		stamp := []byte(at.UTC().Format(time.RFC3339))
		for _, id := range ids {
			if err := waiting.Delete([]byte(id)); err != nil {
				return err
			}
			if err := sent.Put([]byte(id), stamp); err != nil {
				return err
			}
		}
		return nil
	})
}

func outbox(tx *bolt.Tx) (waiting, sent *bolt.Bucket, err error) {
	b, err := tx.CreateBucketIfNotExists(bucketOutbox)
	if err != nil {
		return nil, nil, err
	}
	if waiting, err = b.CreateBucketIfNotExists(bucketWaiting); err != nil {
		return nil, nil, err
	}
	sent, err = b.CreateBucketIfNotExists(bucketSent)
	return waiting, sent, err
}
