package persist

import (
	"encoding/json"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

var errNotJSON = errors.New("not valid JSON")

// VerifyLatest reads every stored value of the latest shift of the person signed in, and of its
// archives, as `ward dump` reads them, so that a command about to write refuses a file dump would
// call damaged. The infos and the registry are decoded; every other value, the histories above
// all, is opened and checked as JSON without being decoded, which costs a fraction of a dump
// (BenchmarkVerifyLatest).
func (s *Store) VerifyLatest() error {
	info, ok, err := s.LatestSession()
	if err != nil || !ok {
		return err
	}
	return s.View(info.ID, func(t *Tx) error {
		if _, err := t.c.registry(t.b.Get(keyRegistry)); err != nil {
			return fmt.Errorf("registry: %w", err)
		}
		if err := wellFormed(t.c, t.b, "shift "+info.ID); err != nil {
			return err
		}
		return wellFormed(t.c, t.b.Tx().Bucket(bucketArchive).Bucket([]byte(info.ID)), "archives of "+info.ID)
	})
}

// wellFormed checks that every value under b, in nested buckets too, opens with c and is JSON.
// A session's info is stored plain and read by LatestSession, so it is left out.
func wellFormed(c *sealer, b *bolt.Bucket, where string) error {
	if b == nil {
		return nil
	}
	return b.ForEach(func(k, v []byte) error {
		switch {
		case v == nil:
			return wellFormed(c, b.Bucket(k), where+"/"+printableKey(k))
		case string(k) == string(keyInfo):
			return nil
		}
		plain, err := c.open(v)
		if err == nil && !json.Valid(plain) {
			err = &corruptValue{errNotJSON}
		}
		if err != nil {
			return fmt.Errorf("%s/%s: %w", where, printableKey(k), err)
		}
		return nil
	})
}

// printableKey is a key as a message names it: a name as it is, a sequence number as a number.
func printableKey(k []byte) string {
	for _, b := range k {
		if b < 0x20 || b > 0x7e {
			if len(k) == 8 {
				var n uint64
				for _, b := range k {
					n = n<<8 | uint64(b)
				}
				return fmt.Sprint(n)
			}
			return fmt.Sprintf("%x", k)
		}
	}
	return string(k)
}
