package persist

import (
	"bytes"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Prefs returns the trainee's preferences document, nil when none was stored. In an encrypted
// database it opens with the trainee's data key.
func (s *Store) Prefs(trainee string) (doc []byte, err error) {
	err = s.view(func(tx *bolt.Tx) error {
		c, err := s.traineeSealer(tx, trainee)
		if err != nil {
			return err
		}
		doc, err = c.open(traineeValue(tx, trainee, keyPrefs), prefsPlace(trainee))
		doc = bytes.Clone(doc)
		return err
	})
	return doc, err
}

// PutPrefs replaces the trainee's preferences document, which must be JSON.
func (s *Store) PutPrefs(trainee string, doc []byte) error {
	if err := checkTraineeName(trainee, true); err != nil {
		return err
	}
	if !json.Valid(doc) {
		return fmt.Errorf("preferences of %s: not valid JSON", trainee)
	}
	return s.update(func(tx *bolt.Tx) error {
		c, err := s.traineeSealer(tx, trainee)
		if err != nil {
			return err
		}
		return putTraineeValue(tx, trainee, keyPrefs, bytes.Clone(c.seal(doc, prefsPlace(trainee))))
	})
}

// traineeSealer is the sealer of a trainee's own values: nil in a plain database.
func (s *Store) traineeSealer(tx *bolt.Tx, trainee string) (*sealer, error) {
	if !s.encrypted(tx) {
		return nil, nil
	}
	return s.dataKey(tx, trainee)
}

// prefsPlace is where a trainee's preferences are stored, which their seal is bound to.
func prefsPlace(trainee string) place {
	return place{path: []string{string(bucketTrainees), trainee}, key: keyPrefs}
}
