package lab

import (
	"github.com/charmbracelet/x/ansi"
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
	base := settled(0)
	for range 10 {
		cycle()
	}
	if n := settled(base + 2); n > base+2 {
		t.Errorf("%d goroutines after ten more connections, %d before:\n%s", n, base, stacks())
	}
}

// settled is the goroutine count once it is at most limit, or has held still for a second.
func settled(limit int) int {
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

// stacks is the end of every goroutine's stack, for a test that found too many.
func stacks() string {
	buf := make([]byte, 1<<20)
	return tail(strings.TrimSpace(string(buf[:runtime.Stack(buf, true)])), 6000)
}

// A client asking for a 30000×10000 terminal is drawn at 500×200 at most and told so, on a
// later resize too; once it leaves, nothing of it runs on and the memory it cost is back.
func TestAHugeTerminalIsClampedAndLeavesNothing(t *testing.T) {
	l := newLab(t, nil, nil)
	key := l.enrol("alice", false)
	warm := l.dial("alice", key)
	warm.waitFor("patient_1")
	warm.conn.Close()
	base := settled(0)
	before := heap()

	huge := l.dialSized("alice", key, 30000, 10000)
	huge.waitFor("your terminal is 30000×10000; ward draws at most 500×200 of it")
	frame, _ := l.srv.Class().Frame("alice")
	lines := strings.Split(frame, "\n")
	widest := 0
	for _, line := range lines {
		widest = max(widest, ansi.StringWidth(line))
	}
	if len(lines) > maxHeight || widest > maxWidth {
		t.Errorf("the frame is %d×%d, larger than ward draws", widest, len(lines))
	}
	from := huge.out.len()
	if err := huge.sess.WindowChange(20000, 50000); err != nil {
		t.Fatal(err)
	}
	huge.waitAfter(from, "your terminal is 50000×20000")
	if grew := heap() - before; grew > 64<<20 {
		t.Errorf("the huge terminal's connection holds %d MiB", grew>>20)
	}
	huge.conn.Close()
	if n := settled(base + 2); n > base+2 {
		t.Errorf("%d goroutines after the huge terminal left, %d before:\n%s", n, base, stacks())
	}
}

// heap is the bytes of the heap in use, after a collection.
func heap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}
