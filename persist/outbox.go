package persist

import (
	"bytes"
	"time"

	bolt "go.etcd.io/bbolt"
)

// The outbox holds learning records bound for a learning record store, trainee by trainee and
// by record id, so none is lost while the store is down: a record waits until the store has
// it, then its id is kept as sent, so a later run never sends it again. It is a bucket of its
// own, beside the shifts, created by the first run that posts. A record names its trainee and
// their results: in an encrypted file it is sealed with that trainee's key, like their shifts.
var (
	bucketOutbox  = []byte("lrs_outbox")
	bucketWaiting = []byte("waiting")
	bucketSent    = []byte("sent")
)

// OutboxRecord is one learning record: its id, the trainee it is about, and the document.
type OutboxRecord struct {
	ID, Trainee string
	Doc         []byte
}

// OutboxAdd puts each record the outbox has neither waiting nor sent, and says how many it
// added.
func (s *Store) OutboxAdd(records []OutboxRecord) (added int, err error) {
	err = s.update(func(tx *bolt.Tx) error {
		waiting, sent, err := outbox(tx)
		if err != nil {
			return err
		}
		for _, r := range records {
			if err := checkTraineeName(r.Trainee, true); err != nil {
				return err
			}
			theirs, err := waiting.CreateBucketIfNotExists([]byte(r.Trainee))
			if err != nil {
				return err
			}
			if theirs.Get([]byte(r.ID)) != nil || sent.Get([]byte(r.ID)) != nil {
				continue
			}
			c, err := s.traineeSealer(tx, r.Trainee)
			if err != nil {
				return err
			}
			if err := theirs.Put([]byte(r.ID), bytes.Clone(c.seal(r.Doc, outboxPlace(r)))); err != nil {
				return err
			}
			added++
		}
		return nil
	})
	return added, err
}

// OutboxWaiting is every record waiting, trainee by trainee, in id order.
func (s *Store) OutboxWaiting() (records []OutboxRecord, err error) {
	err = s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketOutbox)
		if b == nil || b.Bucket(bucketWaiting) == nil {
			return nil
		}
		waiting := b.Bucket(bucketWaiting)
		return waiting.ForEachBucket(func(trainee []byte) error {
			c, err := s.traineeSealer(tx, string(trainee))
			if err != nil {
				return err
			}
			return waiting.Bucket(trainee).ForEach(func(id, stored []byte) error {
				r := OutboxRecord{ID: string(id), Trainee: string(trainee)}
				doc, err := c.open(stored, outboxPlace(r))
				r.Doc = bytes.Clone(doc)
				records = append(records, r)
				return err
			})
		})
	})
	return records, err
}

// OutboxSent moves records from waiting to sent, at the time the store took them.
func (s *Store) OutboxSent(records []OutboxRecord, at time.Time) error {
	return s.update(func(tx *bolt.Tx) error {
		waiting, sent, err := outbox(tx)
		if err != nil {
			return err
		}
		stamp := []byte(at.UTC().Format(time.RFC3339))
		for _, r := range records {
			if theirs := waiting.Bucket([]byte(r.Trainee)); theirs != nil {
				if err := theirs.Delete([]byte(r.ID)); err != nil {
					return err
				}
			}
			if err := sent.Put([]byte(r.ID), stamp); err != nil {
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

// outboxPlace is where a record waits, which its seal is bound to.
func outboxPlace(r OutboxRecord) place {
	return place{path: []string{string(bucketOutbox), string(bucketWaiting), r.Trainee}, key: []byte(r.ID)}
}
