package persist

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/user"

	"golang.org/x/term"
)

// The passphrases come from the environment (for scripts) or from the terminal, never echoed.
const (
	EnvPassphrase           = "WARD_PASSPHRASE"            // the trainee's
	EnvInstructorPassphrase = "WARD_INSTRUCTOR_PASSPHRASE" // the instructor's
	EnvNewPassphrase        = "WARD_NEW_PASSPHRASE"        // the one passwd gives
)

// Access is whom a command acts for, and how it may use the file.
type Access struct {
	Person Person
	// Play: the command plays a shift. A trainee new to an encrypted file chooses a passphrase,
	// and a file whose latest shift does not read whole is refused before the shift writes.
	Play bool
	// Encrypt creates a new file encrypted under the instructor's passphrase (--encrypt).
	Encrypt bool
	// Existing refuses a missing file instead of creating one (a command that converts or
	// restores).
	Existing bool
}

// OpenAs opens the database at path for writing, signed in as a says. An encrypted file takes
// the person's passphrase; a wrong one is audited and the file is not written to.
func OpenAs(path string, a Access) (*Store, error) {
	if a.Existing {
		if err := MustExist(path); err != nil {
			return nil, err
		}
	}
	s, err := Open(path)
	if err != nil {
		return nil, err
	}
	if a.Encrypt {
		err = s.protect()
	}
	if err == nil {
		err = s.signInAs(a)
	}
	if err == nil && a.Play {
		s.verifyBeforeWriting()
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// OpenSnapshotAs is OpenSnapshot signed in as a says: for a command that only reads.
func OpenSnapshotAs(path string, a Access) (*Store, error) {
	s, err := OpenSnapshot(path)
	if err != nil {
		return nil, err
	}
	if err := s.signInAs(a); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// MustExist refuses a database that is not there.
func MustExist(path string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("%w at %s (pass --db, or set WARD_DB)", ErrNoDatabase, path)
	}
	return nil
}

// Audit is the audit record of this database, written as the login running ward.
func (s *Store) Audit() *AuditLog { return AuditFor(s.path) }

// AuditFor is the audit record of the database at dbPath.
func AuditFor(dbPath string) *AuditLog { return &AuditLog{Path: AuditPath(dbPath), User: LoginName()} }

// LoginName is who runs ward, the default trainee.
func LoginName() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if v := os.Getenv("USER"); v != "" {
		return v
	}
	return "trainee"
}

// signInAs makes the store act for a.Person. In an encrypted file a trainee new to it chooses a
// passphrase when a.Play is set; a wrong passphrase is audited.
func (s *Store) signInAs(a Access) error {
	p := a.Person
	encrypted, err := s.Encrypted()
	if err != nil || !encrypted {
		if err == nil {
			err = s.SignIn(p, nil)
		}
		return err
	}
	if !p.Instructor && a.Play {
		known, err := s.Enrolled(p.Trainee)
		if err != nil {
			return err
		}
		if !known {
			pass, err := AskPassphrase(EnvPassphrase, fmt.Sprintf("Trainee %s is new to this database: choose a passphrase", p.Trainee), true)
			if err == nil {
				err = s.Enrol(p.Trainee, pass)
			}
			if err != nil {
				return err
			}
			return s.Audit().Record(p, AuditEnrol, "", "")
		}
	}
	env := EnvPassphrase
	if p.Instructor {
		env = EnvInstructorPassphrase
	}
	pass, err := AskPassphrase(env, "Passphrase of "+p.String(), false)
	if err != nil {
		return err
	}
	err = s.SignIn(p, pass)
	if errors.Is(err, ErrWrongPassphrase) {
		if aerr := s.Audit().Record(p, AuditFailed, "", ""); aerr != nil {
			return fmt.Errorf("%w; and %v", err, aerr)
		}
	}
	return err
}

// protect encrypts a new database for --encrypt; one encrypted already stays as it is.
func (s *Store) protect() error {
	encrypted, err := s.Encrypted()
	if err != nil || encrypted {
		return err
	}
	if shifts, err := s.Sessions(); err != nil || len(shifts) > 0 {
		if err == nil {
			err = errors.New("--encrypt creates an encrypted database, and this one holds shifts already: `ward encrypt` converts it")
		}
		return err
	}
	pass, err := AskPassphrase(EnvInstructorPassphrase, "The instructor's passphrase for this new encrypted database", true)
	if err != nil {
		return err
	}
	return s.Protect(pass)
}

// AskPassphrase reads a passphrase from env, or asks for it on the terminal without echo; a new
// one is asked twice.
func AskPassphrase(env, prompt string, isNew bool) ([]byte, error) {
	if v := os.Getenv(env); v != "" {
		return []byte(v), nil
	}
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("the database is encrypted: set %s, or run ward in a terminal to be asked for the passphrase", env)
	}
	defer tty.Close()
	read := func(label string) ([]byte, error) {
		fmt.Fprintf(tty, "%s: ", label)
		defer fmt.Fprintln(tty)
		return term.ReadPassword(int(tty.Fd()))
	}
	pass, err := read(prompt)
	switch {
	case err != nil:
		return nil, err
	case len(pass) == 0:
		return nil, errors.New("the passphrase is empty; nothing was changed")
	case !isNew:
		return pass, nil
	}
	again, err := read("The same again")
	if err == nil && !bytes.Equal(pass, again) {
		err = errors.New("the two passphrases differ; nothing was changed")
	}
	return pass, err
}
