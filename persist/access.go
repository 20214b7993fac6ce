package persist

import (
	"crypto/ecdh"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"
)

// Person is whom ward acts for: whose shifts LatestSession finds, and whose key opens them in an
// encrypted database.
type Person struct {
	Trainee    string // "" finds any trainee's shifts
	Instructor bool   // the instructor's key opens every trainee's records
	// Login marks a Trainee that is the login's name (LoginName), taken because none was given:
	// a shift is kept under it, but it names no trainee to a learning record store.
	Login bool
}

func (p Person) String() string {
	switch {
	case p.Instructor && p.Trainee != "":
		return "the instructor (for trainee " + p.Trainee + ")"
	case p.Instructor:
		return "the instructor"
	case p.Trainee != "":
		return "trainee " + p.Trainee
	}
	return "no one in particular"
}

// Errors of signing in and of opening records, usable with errors.Is.
var (
	ErrNotEnrolled  = errors.New("trainee not enrolled")
	ErrNoPassphrase = errors.New("trainee has no passphrase yet")
	ErrNoAccess     = errors.New("no access")
	ErrNotEncrypted = errors.New("database is not encrypted")
)

var (
	bucketKeys     = []byte("keys")
	bucketTrainees = []byte("trainees")
	keyInstructor  = []byte("instructor")
	keyTraineeKey  = []byte("key")
	keyPrefs       = []byte("prefs")
)

// access is what a Store knows about who uses it: the person, and the keys their passphrase
// opened. Keys live in memory only.
type access struct {
	encrypted atomic.Int32 // encryptionUnknown until the first transaction reads the file

	mu         sync.Mutex
	person     Person
	instructor *ecdh.PrivateKey   // once the instructor's passphrase opened it
	dataKeys   map[string]*sealer // trainee → their opened data key
	owners     map[string]string  // session → its trainee, read from its info once

	bindingBackup string // the copy made when signing in bound the person's values (bind.go)
}

const (
	encryptionUnknown int32 = iota
	encryptionOff
	encryptionOn
)

// encrypted reports whether the file holds keys. Only Protect adds them to an open file, and
// it says so, so the answer of the first transaction holds for the Store's life.
func (s *Store) encrypted(tx *bolt.Tx) bool {
	switch s.acc.encrypted.Load() {
	case encryptionOff:
		return false
	case encryptionOn:
		return true
	}
	on := tx.Bucket(bucketKeys) != nil
	state := encryptionOff
	if on {
		state = encryptionOn
	}
	s.acc.encrypted.Store(state)
	return on
}

// Encrypted reports whether the database encrypts its records.
func (s *Store) Encrypted() (on bool, err error) {
	err = s.view(func(tx *bolt.Tx) error {
		on = s.encrypted(tx)
		return nil
	})
	return on, err
}

// Person is whom the store acts for.
func (s *Store) Person() Person {
	s.acc.mu.Lock()
	defer s.acc.mu.Unlock()
	return s.acc.person
}

// SignIn makes p the person the store acts for. In an encrypted database the passphrase must
// open p's key (the instructor's, or the trainee's); the keys opened before are dropped. A
// wrong passphrase is ErrWrongPassphrase; a trainee with no key in the file is ErrNotEnrolled,
// and one whose key the instructor holds alone is ErrNoPassphrase. A plain database needs no
// passphrase and ignores it.
func (s *Store) SignIn(p Person, passphrase []byte) error {
	if err := s.verify.verified(); err != nil { // the check reads as the person signed in at the start
		return err
	}
	if err := checkTraineeName(p.Trainee, false); err != nil {
		return err
	}
	var instructor *ecdh.PrivateKey
	var own *sealer
	err := s.view(func(tx *bolt.Tx) (err error) {
		switch {
		case !s.encrypted(tx):
			return nil
		case p.Instructor:
			instructor, err = openInstructor(tx, passphrase)
		case p.Trainee == "":
			return checkTraineeName("", true)
		default:
			own, err = openOwnKey(tx, p.Trainee, passphrase)
		}
		return err
	})
	if err != nil {
		return err
	}
	s.acc.mu.Lock()
	s.acc.person, s.acc.instructor, s.acc.dataKeys = p, instructor, map[string]*sealer{}
	if own != nil {
		s.acc.dataKeys[p.Trainee] = own
	}
	s.acc.mu.Unlock()
	backup, err := s.bindOpened(p, own)
	if err == nil && own != nil && backup != "" {
		own, err = newSealer(own.trainee, own.key, false)
		s.acc.mu.Lock()
		s.acc.dataKeys[p.Trainee] = own
		s.acc.mu.Unlock()
	}
	s.acc.mu.Lock()
	defer s.acc.mu.Unlock()
	s.acc.bindingBackup = backup
	return err
}

// BindingBackup is the copy of the file ward made before it bound the sealed values of the
// person who signed in last to their place: "" when their values were bound already.
func (s *Store) BindingBackup() string {
	s.acc.mu.Lock()
	defer s.acc.mu.Unlock()
	return s.acc.bindingBackup
}

func openInstructor(tx *bolt.Tx, passphrase []byte) (*ecdh.PrivateKey, error) {
	k, err := readInstructorKey(tx)
	if err != nil {
		return nil, err
	}
	priv, err := k.open(passphrase)
	if errors.Is(err, ErrWrongPassphrase) {
		return nil, fmt.Errorf("the instructor's passphrase is wrong: %w", err)
	}
	return priv, err
}

func openOwnKey(tx *bolt.Tx, trainee string, passphrase []byte) (*sealer, error) {
	k, found, err := readTraineeKey(tx, trainee)
	switch {
	case err != nil:
		return nil, err
	case !found:
		return nil, fmt.Errorf("trainee %q has no passphrase in this database yet (starting a shift as them chooses one): %w", trainee, ErrNotEnrolled)
	case k.Own == nil:
		return nil, fmt.Errorf("trainee %q's records are held for the instructor only, until the instructor gives them a passphrase (ward passwd --instructor --trainee %s): %w",
			trainee, trainee, ErrNoPassphrase)
	}
	dataKey, err := k.Own.unwrap(passphrase, traineeAAD(trainee))
	if errors.Is(err, ErrWrongPassphrase) {
		return nil, fmt.Errorf("the passphrase of trainee %q is wrong: %w", trainee, err)
	}
	if err != nil {
		return nil, err
	}
	return newSealer(trainee, dataKey, !k.Bound)
}

func readInstructorKey(tx *bolt.Tx) (instructorKey, error) {
	b := tx.Bucket(bucketKeys)
	if b == nil || b.Get(keyInstructor) == nil {
		return instructorKey{}, ErrNotEncrypted
	}
	return decodeKey[instructorKey](b.Get(keyInstructor), "the instructor's key")
}

func readTraineeKey(tx *bolt.Tx, trainee string) (traineeKey, bool, error) {
	raw := traineeValue(tx, trainee, keyTraineeKey)
	if raw == nil {
		return traineeKey{}, false, nil
	}
	k, err := decodeKey[traineeKey](raw, "the key of trainee "+trainee)
	return k, err == nil, err
}

func traineeValue(tx *bolt.Tx, trainee string, key []byte) []byte {
	if b := tx.Bucket(bucketTrainees); b != nil {
		if t := b.Bucket([]byte(trainee)); t != nil {
			return t.Get(key)
		}
	}
	return nil
}

func putTraineeValue(tx *bolt.Tx, trainee string, key, value []byte) error {
	all, err := tx.CreateBucketIfNotExists(bucketTrainees)
	if err != nil {
		return err
	}
	b, err := all.CreateBucketIfNotExists([]byte(trainee))
	if err != nil {
		return err
	}
	return b.Put(key, value)
}

// Enrolled reports whether the trainee has a key in an encrypted database.
func (s *Store) Enrolled(trainee string) (found bool, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		_, found, err = readTraineeKey(tx, trainee)
		return err
	})
	return found, err
}

// Protect makes a new database encrypted: it stores the instructor's key pair, the private key
// wrapped by passphrase. A database that holds shifts is converted by Encrypt instead, which
// leaves no plaintext behind in the file's free pages.
func (s *Store) Protect(instructorPassphrase []byte) error {
	if err := CheckPassphrase(instructorPassphrase, "", true); err != nil {
		return err
	}
	k, _, err := newInstructorKey(instructorPassphrase)
	if err != nil {
		return err
	}
	err = s.update(func(tx *bolt.Tx) error {
		switch {
		case s.encrypted(tx):
			return errors.New("the database is encrypted already")
		case !emptyTree(tx.Bucket(bucketSessions)) || !emptyTree(tx.Bucket(bucketArchive)) || !emptyTree(tx.Bucket(bucketTrainees)):
			return errors.New("the database holds shifts already: `ward encrypt` converts it")
		}
		return putInstructorKey(tx, k)
	})
	if err == nil {
		s.acc.encrypted.Store(encryptionOn)
	}
	return err
}

func putInstructorKey(tx *bolt.Tx, k instructorKey) error {
	b, err := tx.CreateBucketIfNotExists(bucketKeys)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(k)
	if err != nil {
		return err
	}
	return b.Put(keyInstructor, raw)
}

// Enrol gives a new trainee a data key, wrapped by their passphrase and sealed to the
// instructor, and signs them in.
func (s *Store) Enrol(trainee string, passphrase []byte) error {
	if err := checkTraineeName(trainee, true); err != nil {
		return err
	}
	if err := CheckPassphrase(passphrase, trainee, false); err != nil {
		return err
	}
	dataKey := newDataKey()
	err := s.update(func(tx *bolt.Tx) error {
		if !s.encrypted(tx) {
			return ErrNotEncrypted
		}
		if _, found, err := readTraineeKey(tx, trainee); err != nil || found {
			if err == nil {
				err = fmt.Errorf("trainee %q is enrolled already", trainee)
			}
			return err
		}
		return putTraineeKey(tx, trainee, dataKey, passphrase, true)
	})
	if err != nil {
		return err
	}
	own, err := newSealer(trainee, dataKey, false)
	if err != nil {
		return err
	}
	s.acc.mu.Lock()
	defer s.acc.mu.Unlock()
	s.acc.person, s.acc.instructor, s.acc.dataKeys = Person{Trainee: trainee}, nil, map[string]*sealer{trainee: own}
	return nil
}

func putTraineeKey(tx *bolt.Tx, trainee string, dataKey, passphrase []byte, bound bool) error {
	ik, err := readInstructorKey(tx)
	if err != nil {
		return err
	}
	pub, err := ik.public()
	if err != nil {
		return fmt.Errorf("the instructor's public key is damaged: %w", err)
	}
	k, err := newTraineeKey(trainee, dataKey, pub, passphrase, bound)
	if err != nil {
		return err
	}
	if old, found, err := readTraineeKey(tx, trainee); err == nil && found {
		k.Members = old.Members // a team's members keep their boxes of its key (team.go)
	}
	return putKey(tx, trainee, k)
}

// SetPassphrase gives a trainee a new passphrase. The store must hold their data key: signed in
// as the trainee, or as the instructor (who so gives a passphrase to a trainee whose key the
// instructor held alone, or to one who forgot theirs).
func (s *Store) SetPassphrase(trainee string, passphrase []byte) error {
	if err := checkTraineeName(trainee, true); err != nil {
		return err
	}
	if err := CheckPassphrase(passphrase, trainee, false); err != nil {
		return err
	}
	return s.update(func(tx *bolt.Tx) error {
		if !s.encrypted(tx) {
			return ErrNotEncrypted
		}
		c, err := s.dataKey(tx, trainee)
		if err != nil {
			return err
		}
		return putTraineeKey(tx, trainee, c.key, passphrase, c.unbound == nil)
	})
}

// SetInstructorPassphrase wraps the instructor's private key under a new passphrase. The store
// must be signed in as the instructor, whose old passphrase opened the key. The trainees' keys
// are sealed to the public half, which does not change, so nothing else is rewritten.
func (s *Store) SetInstructorPassphrase(passphrase []byte) error {
	if err := CheckPassphrase(passphrase, "", true); err != nil {
		return err
	}
	s.acc.mu.Lock()
	priv, person := s.acc.instructor, s.acc.person
	s.acc.mu.Unlock()
	if priv == nil {
		return fmt.Errorf("only the instructor changes the instructor's passphrase, and ward was opened for %s: %w", person, ErrNoAccess)
	}
	return s.update(func(tx *bolt.Tx) error {
		k, err := readInstructorKey(tx)
		if err != nil {
			return err
		}
		k.Private = wrapWithPassphrase(passphrase, priv.Bytes(), instructorAAD)
		return putInstructorKey(tx, k)
	})
}

// dataKey returns the trainee's opened data key: opened at sign-in, or now with the
// instructor's key.
func (s *Store) dataKey(tx *bolt.Tx, trainee string) (*sealer, error) {
	s.acc.mu.Lock()
	defer s.acc.mu.Unlock()
	if c, ok := s.acc.dataKeys[trainee]; ok {
		return c, nil
	}
	if s.acc.instructor == nil {
		return nil, fmt.Errorf("the records of trainee %q open only with their passphrase or the instructor's, and ward was opened for %s: %w",
			trainee, s.acc.person, ErrNoAccess)
	}
	k, found, err := readTraineeKey(tx, trainee)
	if err == nil && !found {
		err = fmt.Errorf("trainee %q has no key in this database: %w", trainee, ErrNotEnrolled)
	}
	if err != nil {
		return nil, err
	}
	dataKey, err := openFrom(s.acc.instructor, k.Instructor, traineeAAD(trainee))
	if err != nil {
		return nil, fmt.Errorf("the key of trainee %q does not open with the instructor's: it is damaged", trainee)
	}
	c, err := newSealer(trainee, dataKey, !k.Bound)
	if err == nil {
		s.acc.dataKeys[trainee] = c
	}
	return c, err
}

// sessionSealer is the sealer of a session's records: nil in a plain database, else the data
// key of the trainee the session belongs to.
func (s *Store) sessionSealer(tx *bolt.Tx, sessionID string) (*sealer, error) {
	if !s.encrypted(tx) {
		return nil, nil
	}
	owner, err := s.owner(tx, sessionID)
	if err != nil {
		return nil, err
	}
	c, err := s.dataKey(tx, owner)
	if err != nil {
		return nil, fmt.Errorf("shift %s: %w", sessionID, err)
	}
	return c, nil
}

// owner is the trainee a session belongs to, from its info; it never changes.
func (s *Store) owner(tx *bolt.Tx, sessionID string) (string, error) {
	s.acc.mu.Lock()
	owner, ok := s.acc.owners[sessionID]
	s.acc.mu.Unlock()
	if ok {
		return owner, nil
	}
	b, err := sessionBucket(tx, sessionID)
	if err != nil {
		return "", err
	}
	info, err := readInfo(b)
	if err == nil && info.Trainee == "" {
		err = errors.New("it names no trainee")
	}
	if err != nil {
		return "", fmt.Errorf("shift %s: its info: %w", sessionID, err)
	}
	s.acc.mu.Lock()
	defer s.acc.mu.Unlock()
	if s.acc.owners == nil {
		s.acc.owners = map[string]string{}
	}
	s.acc.owners[sessionID] = info.Trainee
	return info.Trainee, nil
}

// mayOpen reports whether the person's list of shifts includes one of this trainee: their own,
// and, in a plain database, a shift that names no trainee (written before ward had trainees).
func (p Person) mayOpen(trainee string) bool {
	return p.Trainee == "" || trainee == p.Trainee || trainee == ""
}

// maxTraineeName bounds a trainee's name, which is a bucket key and shows in lists.
const maxTraineeName = 64

// checkTraineeName refuses a name that could not be a key or would not print on one line.
func checkTraineeName(name string, required bool) error {
	switch {
	case name == "" && !required:
		return nil
	case name == "":
		return errors.New("a trainee needs a name (--trainee NAME)")
	case len(name) > maxTraineeName, !utf8.ValidString(name), strings.TrimSpace(name) != name,
		strings.ContainsFunc(name, func(r rune) bool { return r == '/' || !unicode.IsPrint(r) }):
		return fmt.Errorf("%q is not a trainee name: up to %d printable characters, no '/' and no spaces at either end",
			name, maxTraineeName)
	}
	return nil
}
