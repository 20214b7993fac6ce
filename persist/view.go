package persist

import (
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// A server (ward serve) holds one file for many people at once. Each connection acts through a
// view of the one Store: the same bbolt file, path and decoded pins, with its own access (the
// person and the keys their passphrase opened, in memory only). A view acting for a trainee opens
// only their shifts, in a plain file too, where no key would stop it; closing it forgets its keys
// and leaves the file open for the others.

// As is a view of the store acting for p, signed in with passphrase as SignIn does. A wrong
// passphrase is audited and the view is not made.
func (s *Store) As(p Person, passphrase []byte) (*Store, error) {
	v := s.newView()
	err := v.SignIn(p, passphrase)
	if errors.Is(err, ErrWrongPassphrase) {
		if aerr := s.Audit().Record(p, AuditFailed, "", ""); aerr != nil {
			err = fmt.Errorf("%w; and %v", err, aerr)
		}
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}

// EnrolAs is a view acting for a trainee new to an encrypted store: it enrols them with the
// passphrase they chose (Enrol) and audits it.
func (s *Store) EnrolAs(trainee string, passphrase []byte) (*Store, error) {
	v := s.newView()
	if err := v.Enrol(trainee, passphrase); err != nil {
		return nil, err
	}
	if err := s.Audit().Record(v.Person(), AuditEnrol, "", ""); err != nil {
		return nil, err
	}
	return v, nil
}

func (s *Store) newView() *Store {
	return &Store{db: s.db, path: s.path, pins: s.pins, commits: s.commits, release: func() {}, shared: true, verify: s.verify}
}

// forget drops the keys a view opened; it acts for no one after.
func (s *Store) forget() {
	s.acc.mu.Lock()
	defer s.acc.mu.Unlock()
	s.acc.person, s.acc.instructor, s.acc.dataKeys = Person{}, nil, map[string]*sealer{}
}

// viewMayOpen refuses, in a view acting for a trainee, a shift of another trainee.
func (s *Store) viewMayOpen(b *bolt.Bucket, sessionID string) error {
	if !s.shared {
		return nil
	}
	s.acc.mu.Lock()
	p := s.acc.person
	owner, known := s.acc.owners[sessionID]
	s.acc.mu.Unlock()
	if p.Trainee == "" {
		return nil
	}
	if !known {
		info, err := readInfo(b)
		if err != nil {
			return fmt.Errorf("shift %s: its info: %w", sessionID, err)
		}
		owner = info.Trainee
		if owner != "" { // a shift's trainee never changes once named (owner, access.go)
			s.acc.mu.Lock()
			if s.acc.owners == nil {
				s.acc.owners = map[string]string{}
			}
			s.acc.owners[sessionID] = owner
			s.acc.mu.Unlock()
		}
	}
	if !p.mayOpen(owner) {
		return fmt.Errorf("shift %s is trainee %q's, and ward acts for %s: %w", sessionID, owner, p, ErrNoAccess)
	}
	return nil
}
