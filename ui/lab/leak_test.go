package lab

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// Connections that come and go leave nothing running behind them: ten rounds of a trainee's
// connection closed by the client and a stranger's refused end with the goroutines back where
// they were.
func TestConnectionsLeaveNothingBehind(t *testing.T) {
	l := newLab(t, nil, nil)
	key := l.enrol("alice", false)
	cycle := func() {
		c := l.dial("alice", key)
		c.waitFor("patient_1")
		c.conn.Close()
		stranger := l.dial("alice", newKey(t))
		stranger.waitExit()
		stranger.conn.Close()
	}
	cycle()
	// settled is the goroutine count once it is at most limit, or has held still for a second.
	settled := func(limit int) int {
		deadline, last, still := time.Now().Add(10*time.Second), -1, 0
		for {
			n := runtime.NumGoroutine()
			if n == last {
				still++
			} else {
				last, still = n, 0
			}
			if n <= limit || still >= 10 || time.Now().After(deadline) {
				return n
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	base := settled(0)
	for range 10 {
		cycle()
	}
	if n := settled(base + 2); n > base+2 {
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		t.Errorf("%d goroutines after ten more connections, %d before:\n%s", n, base, tail(strings.TrimSpace(stacks), 6000))
	}
}
