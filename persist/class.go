package persist

import (
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// The class's own values, outside every trainee's: the curriculum the instructor set. They name
// cases, never a trainee, so they are JSON in an encrypted file too, which every trainee reads;
// only the instructor writes them there.
var (
	bucketClass   = []byte("class")
	keyCurriculum = []byte("curriculum")
)

// Curriculum is the class's curriculum as the instructor set it: case ids and domains, which
// the caller resolves against its library. nil when none is set.
func (s *Store) Curriculum() (entries []string, err error) {
	err = s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketClass)
		if b == nil || b.Get(keyCurriculum) == nil {
			return nil
		}
		if err := json.Unmarshal(b.Get(keyCurriculum), &entries); err != nil {
			return fmt.Errorf("the class's curriculum: %w", err)
		}
		return nil
	})
	return entries, err
}

// PutCurriculum sets the class's curriculum; no entries clears it. In an encrypted database only
// the instructor, signed in with their passphrase, may.
func (s *Store) PutCurriculum(entries []string) error {
	s.acc.mu.Lock()
	instructor, person := s.acc.instructor != nil, s.acc.person
	s.acc.mu.Unlock()
	return s.update(func(tx *bolt.Tx) error {
		if s.encrypted(tx) && !instructor {
			return fmt.Errorf("only the instructor sets the class's curriculum (--instructor), and ward was opened for %s: %w", person, ErrNoAccess)
		}
		if len(entries) == 0 {
			if b := tx.Bucket(bucketClass); b != nil {
				return b.Delete(keyCurriculum)
			}
			return nil
		}
		b, err := tx.CreateBucketIfNotExists(bucketClass)
		if err != nil {
			return err
		}
		doc, err := json.Marshal(entries)
		if err != nil {
			return err
		}
		return b.Put(keyCurriculum, doc)
	})
}
