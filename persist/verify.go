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
		if err := wellFormed(&t.shelf, "shift "+info.ID); err != nil {
			return err
		}
		perSession := t.b.Tx().Bucket(bucketArchive).Bucket([]byte(info.ID))
		if perSession == nil {
			return nil
		}
		return perSession.ForEachBucket(func(at []byte) error {
			snap := archiveShelf(perSession.Bucket(at), t.c, info.ID, string(at))
			return wellFormed(&snap, "archives of "+info.ID+"/"+printableKey(at))
		})
	})
}

// verification is VerifyLatest run in the background for a command that plays a shift: it opens
// and reads what it needs while the check reads the rest, and its first write waits for the
// check, so a damaged file is still refused before anything is written to it.
type verification struct {
	done chan struct{}
	err  error
}

// verifyBeforeWriting starts VerifyLatest; the store's writes, a new sign-in and Close wait for
// it, and a write fails with its error.
func (s *Store) verifyBeforeWriting() {
	v := &verification{done: make(chan struct{})}
	s.verify = v
	go func() {
		defer close(v.done)
		v.err = s.VerifyLatest()
	}()
}

// Verified waits for the damage check OpenAs started for a command that plays a shift, and
// returns its error: nil when none was started or the file is sound.
func (s *Store) Verified() error { return s.verify.verified() }

// verified waits for the check verifyBeforeWriting started, if any, and returns its error.
func (v *verification) verified() error {
	if v == nil {
		return nil
	}
	<-v.done
	return v.err
}

// wellFormed checks that every value of a shelf opens in its place, is the one ward wrote last
// there (its pins), and is JSON; and that its histories hold the messages ward wrote.
func wellFormed(sh *shelf, where string) error {
	if _, err := sh.registry(); err != nil {
		return fmt.Errorf("%s: registry: %w", where, err)
	}
	if _, err := sh.allPins(); err != nil {
		return fmt.Errorf("%s: pins: %w", where, err)
	}
	for _, name := range contentBuckets {
		if b := sh.b.Bucket(name); b != nil {
			if err := wellFormedTree(sh, []string{string(name)}, b, where+"/"+string(name)); err != nil {
				return err
			}
		}
	}
	if err := noneMissing(sh); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	return nil
}

// noneMissing refuses a shelf from which a pinned document or a whole history was taken.
func noneMissing(sh *shelf) error {
	if !sh.pinned() {
		return nil
	}
	for _, kind := range docKinds {
		stored := 0
		if b := sh.b.Bucket([]byte(kind)); b != nil {
			stored = b.Stats().KeyN
		}
		if pinned, err := sh.pinnedIn([]string{kind}); err != nil || pinned != stored {
			if err == nil {
				err = &corruptValue{errMissing}
			}
			return fmt.Errorf("%s documents: %w", kind, err)
		}
	}
	lengths, err := sh.pinnedLengths(string(bucketHistories) + "/")
	for pid, n := range lengths {
		if h := sh.b.Bucket(bucketHistories); n > 0 && (h == nil || h.Bucket([]byte(pid)) == nil) {
			return fmt.Errorf("history of %s: %w", pid, &corruptValue{errMissing})
		}
	}
	return err
}

func wellFormedTree(sh *shelf, rel []string, b *bolt.Bucket, where string) error {
	var messages uint64
	err := b.ForEach(func(k, v []byte) error {
		if v == nil {
			return wellFormedTree(sh, append(rel[:len(rel):len(rel)], string(k)), b.Bucket(k), where+"/"+printableKey(k))
		}
		var plain []byte
		var err error
		if isHistory(rel) {
			messages++
			plain, err = sh.openMessage(rel, k, v)
		} else {
			plain, err = sh.get(rel, k, v)
		}
		if err == nil && !json.Valid(plain) {
			err = &corruptValue{errNotJSON}
		}
		if err != nil {
			return fmt.Errorf("%s/%s: %w", where, printableKey(k), err)
		}
		return nil
	})
	if err == nil && isHistory(rel) {
		if err = sh.checkLength(rel, messages); err != nil {
			err = fmt.Errorf("%s: %w", where, err)
		}
	}
	return err
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
