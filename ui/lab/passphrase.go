package lab

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

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
		if err := s.waitOutBar(c, t, who.String()); err != nil {
			return nil, err
		}
		pass, err := t.ReadPassword("Passphrase of " + who.String() + ": ")
		if err != nil {
			return nil, refusal{"ward: no passphrase was given", "no passphrase: " + err.Error()}
		}
		var view *persist.Store
		s.guesses.derive(func() { view, err = s.store.As(who, []byte(pass)) })
		if err == nil || errors.Is(err, persist.ErrWrongPassphrase) {
			s.guesses.note(who.String(), err == nil)
		}
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

// waitOutBar waits, saying so, while passphrases of whose are barred after wrong ones; an error
// when the connection ends first.
func (s *Server) waitOutBar(c *conn, t *term.Terminal, whose string) error {
	wait := s.guesses.barred(whose)
	if wait <= 0 {
		return nil
	}
	fmt.Fprintf(t, "Too many wrong passphrases for %s in a row: the next may be tried in %s.\n", whose, wait.Round(time.Second))
	select {
	case <-time.After(wait):
		return nil
	case <-c.sess.Context().Done():
		return refusal{"ward: the connection ended", "left while passphrases were barred"}
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
			s.guesses.derive(func() { view, err = s.store.EnrolAs(trainee, []byte(pass)) })
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

// guesses bound what passphrases cost the server. Each try derives a key with argon2id (64 MiB,
// and four lanes that take every core for a moment): one runs at a time, so the class's turns
// are never starved by sign-ins, and the others wait their turn. And a
// name guessed wrong freeAfter times in a row is barred for a while that doubles with each
// further wrong one, up to maxBar: the count is the server's, kept across connections, so
// connecting again does not start it afresh; a right passphrase clears it.
type guesses struct {
	slots chan struct{}
	mu    sync.Mutex
	wrong map[string]int       // wrong passphrases in a row, by whose
	until map[string]time.Time // barred until
}

const (
	derivations = 1
	freeAfter   = 3
	firstBar    = 5 * time.Second
	maxBar      = 5 * time.Minute
)

func newGuesses() guesses {
	return guesses{slots: make(chan struct{}, derivations), wrong: map[string]int{}, until: map[string]time.Time{}}
}

// derive runs a key derivation once a slot is free.
func (g *guesses) derive(f func()) {
	g.slots <- struct{}{}
	defer func() { <-g.slots }()
	f()
}

// barred is how long whose must wait before a passphrase of theirs is tried; 0: now.
func (g *guesses) barred(whose string) time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	return max(time.Until(g.until[whose]), 0)
}

// note counts a passphrase of whose, right or wrong.
func (g *guesses) note(whose string, right bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if right {
		delete(g.wrong, whose)
		delete(g.until, whose)
		return
	}
	g.wrong[whose]++
	if n := g.wrong[whose]; n >= freeAfter {
		g.until[whose] = time.Now().Add(min(firstBar<<min(n-freeAfter, 10), maxBar))
	}
}
