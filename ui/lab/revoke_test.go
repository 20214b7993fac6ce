package lab

import (
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ward-sim/ward/persist"
	gossh "golang.org/x/crypto/ssh"
)

// Taking a key's line out of the enrolments ends its open connection within seconds: the
// trainee is told, what they sent is saved, the removal audited; another trainee plays on.
func TestARevokedKeysConnectionEnds(t *testing.T) {
	l := newLab(t, nil, nil)
	alice := l.dial("alice", l.enrol("alice", false))
	bob := l.dial("bob", l.enrol("bob", false))
	for _, c := range []*client{alice, bob} {
		c.waitFor("patient_1")
		c.typeLine("review patient_1")
	}
	alice.typeLine("any pain?")
	waitForReply(t, l, "alice", "", "any pain?")
	data, err := os.ReadFile(l.cfg.Keys)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if !strings.HasPrefix(line, "trainee alice ") {
			kept = append(kept, line)
		}
	}
	revoked := time.Now()
	if err := os.WriteFile(l.cfg.Keys, []byte(strings.Join(kept, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	alice.waitExit()
	if took := time.Since(revoked); took > 5*time.Second {
		t.Errorf("the revoked key's connection ended %s after its line went", took)
	}
	alice.waitFor("your key is no longer enrolled here")
	if !l.hasAudit(persist.AuditRevoked, "no one in particular") {
		t.Errorf("the revocation is not audited: %+v", l.audited())
	}
	bob.typeLine("any pain?")
	waitForReply(t, l, "bob", "", "any pain?")
	waitForReply(t, l, "alice", "", "any pain?") // still stored
}

// Every connection is audited, those that never open a session too: a client that only
// handshakes and leaves (ssh -N, a port scan) leaves a line saying how far it got.
func TestAConnectionWithoutASessionIsAudited(t *testing.T) {
	l := newLab(t, nil, nil)
	key := l.enrol("alice", false)
	conn, err := gossh.Dial("tcp", l.addr, &gossh.ClientConfig{User: "alice", Auth: []gossh.AuthMethod{gossh.PublicKeys(key)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	raw, err := net.Dial("tcp", l.addr)
	if err != nil {
		t.Fatal(err)
	}
	raw.Close()
	want := []string{`as user "alice" with key ` + gossh.FingerprintSHA256(key.PublicKey()) + ": ended without opening a session",
		raw.LocalAddr().String() + ": ended without opening a session"}
	deadline := time.Now().Add(10 * time.Second)
	for _, w := range want {
		for !audits(l, persist.AuditConnect, w) {
			if time.Now().After(deadline) {
				t.Fatalf("no audit line with %q: %+v", w, l.audited())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// audits reports whether the audit record holds action with detail holding words.
func audits(l *testLab, action, words string) bool {
	for _, e := range l.audited() {
		if e.Action == action && strings.Contains(e.Detail, words) {
			return true
		}
	}
	return false
}
