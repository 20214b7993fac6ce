package persist

import (
	"fmt"
	"os"
	"time"

	bolt "go.etcd.io/bbolt"
)

// A file written before ward bound sealed values to their place (seal.go) holds each trainee's
// values sealed with the data key itself and no associated data, and no pins (shelf.go). When a
// writer first opens such a trainee's key, by signing in as them or as the instructor, ward
// copies the file aside once and then seals every value of theirs again, bound and pinned, in
// one transaction, and marks their key bound. From then on a value of the old kind in their
// records is refused. A read-only copy reads the old kind as it is and binds nothing.

// bucketBinding holds a shelf's values while they are sealed again; it lives only inside the
// transaction that binds them.
var bucketBinding = []byte("binding")

// bindOpened binds the values of every trainee whose opened key is not yet bound: the person
// signed in, or, for the instructor, every trainee in the file. It returns the path of the copy
// of the file as it was ("" when nothing needed binding).
func (s *Store) bindOpened(p Person, own *sealer) (string, error) {
	if s.db.IsReadOnly() { // a read-only copy
		return "", nil
	}
	var unbound []*sealer
	switch {
	case own != nil && own.unbound != nil:
		unbound = append(unbound, own)
	case p.Instructor:
		var err error
		if unbound, err = s.unboundTrainees(); err != nil {
			return "", err
		}
	}
	if len(unbound) == 0 {
		return "", nil
	}
	backup, err := s.backup("before-binding")
	if err != nil {
		return "", fmt.Errorf("copy the file aside before binding its values: %w", err)
	}
	err = s.update(func(tx *bolt.Tx) error {
		for _, c := range unbound {
			if err := bindTrainee(tx, c); err != nil {
				return fmt.Errorf("bind the values of trainee %q: %w", c.trainee, err)
			}
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	s.acc.mu.Lock()
	defer s.acc.mu.Unlock()
	for _, c := range unbound {
		delete(s.acc.dataKeys, c.trainee) // opened again, bound, when next needed
	}
	return backup, nil
}

// unboundTrainees opens, with the instructor's key, the key of every trainee not yet bound.
func (s *Store) unboundTrainees() ([]*sealer, error) {
	var names []string
	err := s.view(func(tx *bolt.Tx) error {
		all := tx.Bucket(bucketTrainees)
		if all == nil {
			return nil
		}
		return all.ForEachBucket(func(name []byte) error {
			k, found, err := readTraineeKey(tx, string(name))
			if err == nil && found && !k.Bound {
				names = append(names, string(name))
			}
			return err
		})
	})
	var list []*sealer
	for _, name := range names {
		err = s.view(func(tx *bolt.Tx) error {
			c, err := s.dataKey(tx, name)
			list = append(list, c)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return list, err
}

// backup copies the file, as of now, beside it, named for why; an existing copy is kept.
func (s *Store) backup(why string) (string, error) {
	path := s.path + "." + why + ".bak"
	if _, err := os.Stat(path); err == nil {
		path = fmt.Sprintf("%s.%s-%d.bak", s.path, why, time.Now().Unix())
	}
	return path, s.db.View(func(tx *bolt.Tx) error { return tx.CopyFile(path, 0o600) })
}

// bindTrainee seals every value of c's trainee again, bound to its place, and marks their key.
func bindTrainee(tx *bolt.Tx, c *sealer) error {
	bound, err := newSealer(c.trainee, c.key, false)
	if err != nil {
		return err
	}
	sessions := tx.Bucket(bucketSessions)
	err = sessions.ForEachBucket(func(id []byte) error {
		b := sessions.Bucket(id)
		if info, err := readInfo(b); err != nil || info.Trainee != c.trainee {
			return err
		}
		if err := rebind(tx, sessionShelf(b, c, string(id)), bound); err != nil {
			return fmt.Errorf("shift %s: %w", id, err)
		}
		perSession := tx.Bucket(bucketArchive).Bucket(id)
		if perSession == nil {
			return nil
		}
		return perSession.ForEachBucket(func(at []byte) error {
			if err := rebind(tx, archiveShelf(perSession.Bucket(at), c, string(id), string(at)), bound); err != nil {
				return fmt.Errorf("archive %s of shift %s: %w", at, id, err)
			}
			return nil
		})
	})
	if err != nil {
		return err
	}
	if v := traineeValue(tx, c.trainee, keyPrefs); v != nil {
		plain, err := c.open(v, prefsPlace(c.trainee))
		if err != nil {
			return fmt.Errorf("preferences: %w", err)
		}
		if err := putTraineeValue(tx, c.trainee, keyPrefs, bound.seal(plain, prefsPlace(c.trainee))); err != nil {
			return err
		}
	}
	return markBound(tx, c.trainee)
}

// rebind seals a shelf's values again with bound, through a bucket that lives only in tx.
func rebind(tx *bolt.Tx, old shelf, bound *sealer) error {
	tmpBucket, err := tx.CreateBucket(bucketBinding)
	if err != nil {
		return err
	}
	tmp := shelf{b: tmpBucket, c: bound, where: old.where}
	if err := copyShelf(&tmp, &old); err != nil {
		return err
	}
	if err := deleteContent(&old); err != nil {
		return err
	}
	fresh := shelf{b: old.b, c: bound, where: old.where}
	if err := copyShelf(&fresh, &tmp); err != nil {
		return err
	}
	return tx.DeleteBucket(bucketBinding)
}
