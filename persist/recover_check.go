package persist

import (
	"encoding/binary"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// CheckSealed opens, with the instructor's key, every encrypted value Recover copied into the
// new file: each that does not authenticate in its place (changed, moved, copied, or an older
// one put back while the pins still open) is left out and reported as lost, and every shelf is
// sealed and pinned again around what remains, bound to its place. A file that is not
// encrypted has nothing to check.
func (r *RecoverReport) CheckSealed(instructorPassphrase []byte) error {
	s, err := Open(r.Path)
	if err != nil {
		return err
	}
	defer s.Close()
	encrypted := false
	err = s.view(func(tx *bolt.Tx) (err error) {
		if encrypted = s.encrypted(tx); encrypted {
			s.acc.instructor, err = openInstructor(tx, instructorPassphrase)
			s.acc.dataKeys = map[string]*sealer{}
		}
		return err
	})
	if err != nil || !encrypted {
		return err
	}
	err = s.db.Update(func(tx *bolt.Tx) error { return (&checker{s: s, tx: tx, rep: r}).all() })
	if err == nil {
		r.Unchecked = 0
	}
	return err
}

// checker salvages the sealed values of a recovered file in one transaction.
type checker struct {
	s   *Store
	tx  *bolt.Tx
	rep *RecoverReport
}

func (k *checker) all() error {
	sessions := k.tx.Bucket(bucketSessions)
	err := sessions.ForEachBucket(func(id []byte) error {
		c, err := k.s.sessionSealer(k.tx, string(id))
		if err != nil { // its values stay as they were, and none is vouched for
			n := sealedIn(sessions.Bucket(id))
			if perSession := k.tx.Bucket(bucketArchive).Bucket(id); perSession != nil {
				n += sealedIn(perSession)
			}
			k.rep.loss1("sessions/"+name(id), n, "its trainee's key does not open, so its values and its archives' cannot be checked: "+err.Error())
			return nil
		}
		if err := k.shelf(sessionShelf(sessions.Bucket(id), c, string(id)), "sessions/"+name(id)); err != nil {
			return err
		}
		perSession := k.tx.Bucket(bucketArchive).Bucket(id)
		if perSession == nil {
			return nil
		}
		return perSession.ForEachBucket(func(at []byte) error {
			return k.shelf(archiveShelf(perSession.Bucket(at), c, string(id), string(at)), "archive/"+name(id)+"/"+name(at))
		})
	})
	if err != nil {
		return err
	}
	return k.trainees()
}

// trainees checks each trainee's preferences and marks their key bound: every value of theirs
// is sealed bound to its place now.
func (k *checker) trainees() error {
	all := k.tx.Bucket(bucketTrainees)
	if all == nil {
		return nil
	}
	var names []string
	_ = all.ForEachBucket(func(n []byte) error { names = append(names, string(n)); return nil })
	for _, trainee := range names {
		c, err := k.s.dataKey(k.tx, trainee)
		if err != nil {
			k.rep.loss1("trainees/"+name([]byte(trainee)), sealedIn(all.Bucket([]byte(trainee))), "the key does not open, so the preferences cannot be checked: "+err.Error())
			continue
		}
		if v := traineeValue(k.tx, trainee, keyPrefs); v != nil {
			plain, err := c.open(v, prefsPlace(trainee))
			if err != nil {
				k.rep.loss1("trainees/"+name([]byte(trainee)), 1, "the preferences do not authenticate")
				err = all.Bucket([]byte(trainee)).Delete(keyPrefs)
			} else {
				bound, _ := newSealer(trainee, c.key, false)
				err = putTraineeValue(k.tx, trainee, keyPrefs, bound.seal(plain, prefsPlace(trainee)))
			}
			if err != nil {
				return err
			}
		}
		if err := markBound(k.tx, trainee); err != nil {
			return err
		}
	}
	return nil
}

func markBound(tx *bolt.Tx, trainee string) error {
	key, _, err := readTraineeKey(tx, trainee)
	if err != nil {
		return err
	}
	key.Bound = true
	return putKey(tx, trainee, key)
}

// shelf keeps what authenticates of one shelf, sealed again in a bucket that lives only in the
// transaction, then puts it back: bound, pinned, each history numbered again without gaps.
func (k *checker) shelf(old shelf, where string) error {
	pinsOpen := true
	if _, err := old.allPins(); err != nil {
		pinsOpen = false
		k.rep.loss1(where, 0, "its pins do not authenticate: an older value put back, or a message removed, cannot be told")
	}
	get := func(rel []string, key, v []byte) ([]byte, error) {
		if pinsOpen && old.c.unbound == nil {
			return old.get(rel, key, v)
		}
		return old.c.open(v, old.where.in(rel...).at(key))
	}
	tmpBucket, err := k.tx.CreateBucket(bucketBinding)
	if err != nil {
		return err
	}
	bound, err := newSealer(old.c.trainee, old.c.key, false)
	if err != nil {
		return err
	}
	tmp := shelf{b: tmpBucket, c: bound, where: old.where}
	if v := old.storedRegistry(); v != nil {
		if plain, err := get(nil, keyRegistry, v); err != nil {
			k.rep.loss1(where, 1, "the registry does not authenticate")
		} else if err := tmp.putRegistry(plain); err != nil {
			return err
		}
	}
	for _, b := range contentBuckets {
		if from := old.b.Bucket(b); from != nil {
			to, err := tmp.b.CreateBucket(b)
			if err == nil {
				err = k.tree(&tmp, &old, get, pinsOpen, []string{string(b)}, to, from, where+"/"+string(b))
			}
			if err != nil {
				return err
			}
		}
	}
	if err := tmp.flush(); err != nil {
		return err
	}
	if err := deleteContent(&old); err != nil {
		return err
	}
	fresh := shelf{b: old.b, c: bound, where: old.where}
	if err := copyShelf(&fresh, &tmp); err != nil {
		return err
	}
	return k.tx.DeleteBucket(bucketBinding)
}

func (k *checker) tree(dst, src *shelf, get func([]string, []byte, []byte) ([]byte, error), pinsOpen bool, rel []string, to, from *bolt.Bucket, where string) error {
	var kept, failed uint64
	err := from.ForEach(func(key, v []byte) error {
		if v == nil {
			child, err := to.CreateBucket(key)
			if err != nil {
				return err
			}
			return k.tree(dst, src, get, pinsOpen, append(rel[:len(rel):len(rel)], string(key)), child, from.Bucket(key), where+"/"+name(key))
		}
		if !isHistory(rel) {
			plain, err := get(rel, key, v)
			if err != nil {
				k.rep.loss1(where, 1, "a document does not authenticate: "+why(err))
				return nil
			}
			return dst.put(to, rel, key, plain)
		}
		plain, err := src.openMessage(rel, key, v)
		if err != nil {
			failed++
			k.rep.loss1(where, 1, fmt.Sprintf("message %d does not authenticate: %s", binary.BigEndian.Uint64(append(make([]byte, 8-min(8, len(key))), key...)), why(err)))
			return nil
		}
		kept++
		return to.Put(seqKey(kept), dst.sealMessage(rel, seqKey(kept), plain))
	})
	if err != nil || !isHistory(rel) {
		return err
	}
	if want, ok := src.pinnedLength(rel); ok && pinsOpen && want > kept+failed {
		k.rep.loss1(where, int(want-kept-failed), fmt.Sprintf("%d of the %d messages ward wrote are missing", want-kept-failed, want))
	}
	if err := to.SetSequence(kept); err != nil {
		return err
	}
	return dst.setLength(rel, kept)
}

// why is a damaged value's reason, without the prefix every one shares.
func why(err error) string {
	var c *corruptValue
	if errors.As(err, &c) {
		return c.err.Error()
	}
	return err.Error()
}

// loss1 adds a loss to the report, as the copier does.
func (r *RecoverReport) loss1(where string, values int, why string) {
	(&copier{rep: r}).loss(where, values, 0, why)
}

// sealedIn counts the encrypted values in a bucket tree.
func sealedIn(b *bolt.Bucket) int {
	n := 0
	_ = b.ForEach(func(k, v []byte) error {
		if v == nil {
			n += sealedIn(b.Bucket(k))
		} else if isSealed(v) {
			n++
		}
		return nil
	})
	return n
}

// verifyRecovered opens the new file as ward does and reads every session back.
func verifyRecovered(path string) error {
	s, err := Open(path)
	if err != nil {
		return fmt.Errorf("the recovered file does not open: %w", err)
	}
	defer s.Close()
	var ids []string
	err = s.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketSessions).ForEachBucket(func(id []byte) error {
			ids = append(ids, string(id))
			return nil
		})
	})
	if err == nil {
		_, _, err = s.LatestSession()
	}
	encrypted, _ := s.Encrypted() // its records open only with a passphrase, which recover does not ask for
	for _, id := range ids {
		if err == nil && !encrypted {
			_, err = s.Dump(id)
		}
	}
	if err != nil {
		return fmt.Errorf("the recovered file does not read back: %w", err)
	}
	return nil
}
