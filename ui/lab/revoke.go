package lab

import (
	"os"
	"time"

	"github.com/ward-sim/ward/persist"
)

// An enrolment taken out of DB.keys (a line deleted by hand) ends the key's open connections,
// not only its next ones: the server reads the file again whenever it changes, and closes every
// connection whose key and name it no longer admits, telling the trainee, their shift saved as
// at any close.

// enrolmentsEvery is how often the server looks whether the enrolments changed.
const enrolmentsEvery = time.Second

// watchEnrolments closes the connections the enrolments no longer admit, until done is closed.
func (s *Server) watchEnrolments(done <-chan struct{}) {
	defer s.survive(persist.Person{}, "watching the enrolments", nil)
	tick := time.NewTicker(enrolmentsEvery)
	defer tick.Stop()
	var seen os.FileInfo
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		info, _ := os.Stat(s.cfg.Keys) // nil once it is gone: no one is enrolled
		if sameFile(seen, info) {
			continue
		}
		seen = info
		all, err := ReadEnrolments(s.cfg.Keys)
		if err != nil {
			continue // a file being rewritten; new connections are refused meanwhile, and say why
		}
		s.mu.Lock()
		open := make([]*conn, 0, len(s.open))
		for c := range s.open {
			open = append(open, c)
		}
		s.mu.Unlock()
		for _, c := range open {
			if c.sess.PublicKey() == nil {
				continue // refused already
			}
			if _, err := all.whose(c.sess); err != nil {
				s.audit(persist.Person{}, persist.AuditRevoked, describe(c.sess))
				c.close("ward: your key is no longer enrolled here, so this connection is closed; your shift is saved")
			}
		}
	}
}

// sameFile reports whether two looks at a file saw it unchanged (or absent both times).
func sameFile(a, b os.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.ModTime().Equal(b.ModTime()) && a.Size() == b.Size()
}
