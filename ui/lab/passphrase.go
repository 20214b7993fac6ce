package lab

import (
	"errors"
	"fmt"
	"io"

	"github.com/ward-sim/ward/persist"
	"golang.org/x/term"
)

// signIn is a view of the store signed in as the connection's person. In an encrypted
// database their passphrase is asked on their terminal, without echo (three tries, each wrong
// one audited), and a trainee new to it chooses one, asked twice. The instructor's key needs
// the instructor's passphrase too: the board shows what the trainees' records hold.
func (s *Server) signIn(c *conn) (*persist.Store, error) {
	who := c.who.person()
	encrypted, err := s.store.Encrypted()
	if err != nil || !encrypted {
		if err != nil {
			return nil, err
		}
		return s.store.As(who, nil)
	}
	t := term.NewTerminal(struct {
		io.Reader
		io.Writer
	}{c.in, c.sess}, "")
	if !who.Instructor {
		known, err := s.store.Enrolled(who.Trainee)
		if err != nil || !known {
			if err != nil {
				return nil, err
			}
			return s.choosePassphrase(t, who.Trainee)
		}
	}
	for try := 1; ; try++ {
		pass, err := t.ReadPassword("Passphrase of " + who.String() + ": ")
		if err != nil {
			return nil, refusal{"ward: no passphrase was given", "no passphrase: " + err.Error()}
		}
		view, err := s.store.As(who, []byte(pass))
		switch {
		case err == nil:
			return view, nil
		case !errors.Is(err, persist.ErrWrongPassphrase):
			return nil, err
		case try == 3:
			return nil, refusal{"ward: wrong passphrase, three times", "wrong passphrase"}
		}
		fmt.Fprintln(t, "That passphrase is wrong; try again.")
	}
}

// choosePassphrase enrols a trainee new to an encrypted database with the passphrase they type,
// twice alike.
func (s *Server) choosePassphrase(t *term.Terminal, trainee string) (*persist.Store, error) {
	fmt.Fprintf(t, "Trainee %s is new to this database: choose a passphrase.\n", trainee)
	for try := 1; ; try++ {
		pass, err := t.ReadPassword("Passphrase: ")
		var again string
		if err == nil {
			again, err = t.ReadPassword("The same again: ")
		}
		if err != nil {
			return nil, refusal{"ward: no passphrase was chosen", "no passphrase: " + err.Error()}
		}
		if pass != again {
			err = errors.New("the two passphrases differ")
		}
		var view *persist.Store
		if err == nil {
			view, err = s.store.EnrolAs(trainee, []byte(pass))
		}
		if err == nil {
			return view, nil
		}
		if try == 3 {
			return nil, refusal{"ward: " + err.Error(), "no passphrase chosen: " + err.Error()}
		}
		fmt.Fprintf(t, "%v; try again.\n", err)
	}
}
