package lab

import (
	"fmt"
	"io"
	"regexp"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
)

// sshTerminal is one person's SSH session with a pty, as a terminal shows it: what the server
// draws lands on a screen of the pty's size.
type sshTerminal struct {
	name   string
	client *ssh.Client
	sess   *ssh.Session
	keys   io.Writer

	mu      sync.Mutex
	scr     *vtScreen
	want    func(lines []string) bool // what await waits to see
	seen    chan time.Time            // when it was first on the screen
	readErr error
	notice  *regexp.Regexp       // what the screen must never show
	noticed string               // the first screen that showed it
	marks   *regexp.Regexp       // what seenAt notes when it is first in the chat (nil: nothing)
	marked  map[string]time.Time // when each was
}

const termRows, termCols = 40, 120

// authorizedLine is signer's public key as a line of an authorized_keys file, name its comment.
func authorizedLine(signer ssh.Signer, name string) string {
	line := ssh.MarshalAuthorizedKey(signer.PublicKey())
	return fmt.Sprintf("%s %s", line[:len(line)-1], name)
}

// dialTerminal signs in to addr as user with signer and opens a 120×40 pty running the user's
// program.
func dialTerminal(addr, user string, signer ssh.Signer) (*sshTerminal, error) {
	return dialTerminalSized(addr, user, signer, termRows, termCols)
}

// dialTerminalSized is dialTerminal with a pty of rows × cols.
func dialTerminalSized(addr, user string, signer ssh.Signer, rows, cols int) (*sshTerminal, error) {
	client, err := ssh.Dial("tcp", addr, &ssh.ClientConfig{
		User:            user,
		Auth:            []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback: ssh.InsecureIgnoreHostKey(), // loopback, a server the test started
		Timeout:         30 * time.Second,
	})
	if err != nil {
		return nil, err
	}
	sess, err := client.NewSession()
	if err != nil {
		client.Close()
		return nil, err
	}
	term := &sshTerminal{name: user, client: client, sess: sess, scr: newVTScreen(rows, cols), marked: map[string]time.Time{}}
	if term.keys, err = sess.StdinPipe(); err != nil {
		term.Close()
		return nil, err
	}
	out, err := sess.StdoutPipe()
	if err == nil {
		err = sess.RequestPty("xterm-256color", rows, cols, ssh.TerminalModes{ssh.ECHO: 0})
	}
	if err == nil {
		err = sess.Shell()
	}
	if err != nil {
		term.Close()
		return nil, err
	}
	go term.draw(out)
	return term, nil
}

// draw puts what the server sends on the screen, and tells await the moment its want appears.
func (c *sshTerminal) draw(out io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := out.Read(buf)
		at := time.Now()
		c.mu.Lock()
		_, _ = c.scr.Write(buf[:n])
		if answers := c.scr.Answers(); len(answers) > 0 {
			_, _ = c.keys.Write(answers)
		}
		c.check(at)
		c.note(at)
		if c.notice != nil && c.noticed == "" && c.notice.MatchString(c.scr.String()) {
			c.noticed = c.scr.String()
			c.giveUp()
		}
		if err != nil {
			c.readErr = err
			c.giveUp()
		}
		c.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// check reports at on seen when the screen now shows what is wanted. The caller holds mu.
func (c *sshTerminal) check(at time.Time) {
	if c.want != nil && c.want(c.scr.Lines()) {
		c.want = nil
		c.seen <- at
	}
}

// note keeps when each text marks matches was first in the chat (above the input). The caller
// holds mu.
func (c *sshTerminal) note(at time.Time) {
	if c.marks == nil {
		return
	}
	lines := c.scr.Lines()
	for _, l := range lines[:inputTop(lines)] {
		for _, m := range c.marks.FindAllString(l, -1) {
			if _, ok := c.marked[m]; !ok {
				c.marked[m] = at
			}
		}
	}
}

// watchMarks makes the terminal note when each text re matches is first in the chat.
func (c *sshTerminal) watchMarks(re *regexp.Regexp) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.marks = re
}

// seenAt is when mark was first in the chat; false while it has not been.
func (c *sshTerminal) seenAt(mark string) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	at, ok := c.marked[mark]
	return at, ok
}

// giveUp ends an await still waiting: the connection ended or the screen showed the notice.
// The caller holds mu.
func (c *sshTerminal) giveUp() {
	if c.want != nil {
		c.want = nil
		close(c.seen)
	}
}

// await waits until the screen shows what ok looks for and returns when it first did. It gives
// up at limit, when the connection ends, or when the screen shows what never watches for.
func (c *sshTerminal) await(what string, limit time.Duration, ok func(lines []string) bool) (time.Time, error) {
	c.mu.Lock()
	seen := make(chan time.Time, 1)
	if c.readErr == nil && c.noticed == "" {
		c.want, c.seen = ok, seen
		c.check(time.Now())
	} else {
		close(seen)
	}
	c.mu.Unlock()
	timeout := time.NewTimer(limit)
	defer timeout.Stop()
	select {
	case at, open := <-seen:
		if open {
			return at, nil
		}
	case <-timeout.C:
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.want = nil
	switch {
	case c.noticed != "":
		return time.Time{}, fmt.Errorf("%s: before %s, the screen showed %q:\n%s", c.name, what, c.notice, c.noticed)
	case c.readErr != nil:
		return time.Time{}, fmt.Errorf("%s: the connection ended (%v) before %s:\n%s", c.name, c.readErr, what, c.scr)
	}
	return time.Time{}, fmt.Errorf("%s: no %s within %s:\n%s", c.name, what, limit, c.scr)
}

// never makes the terminal watch every frame for notice (nil: nothing).
func (c *sshTerminal) never(notice *regexp.Regexp) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.notice = notice
}

// sawNever is an error when a frame showed what never watches for.
func (c *sshTerminal) sawNever() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.noticed != "" {
		return fmt.Errorf("%s: the screen showed %q:\n%s", c.name, c.notice, c.noticed)
	}
	return nil
}

// typeKeys sends keys as typed.
func (c *sshTerminal) typeKeys(keys string) error {
	_, err := io.WriteString(c.keys, keys)
	return err
}

func (c *sshTerminal) Close() error {
	if c.sess != nil {
		c.sess.Close()
	}
	return c.client.Close()
}
