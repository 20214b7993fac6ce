package llm

import (
	"context"
	"slices"
	"sync"
	"time"
)

// WithTimeout is context.WithTimeout for a model call: the time the call waits in a Queue does
// not count, so a class keeping the server busy is not taken for a model that stopped answering.
// When the time runs out, ctx's cause (context.Cause) is context.DeadlineExceeded.
func WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	c := &clock{left: d, expire: func() { cancel(context.DeadlineExceeded) }}
	c.run()
	clocks := append(slices.Clip(clocksOf(ctx)), c)
	return context.WithValue(ctx, clocksKey{}, clocks), func() { c.stop(); cancel(nil) }
}

type clocksKey struct{}

func clocksOf(ctx context.Context) []*clock {
	clocks, _ := ctx.Value(clocksKey{}).([]*clock)
	return clocks
}

// pauseClocks stops ctx's time limits until the returned func restarts them with the time they
// had left.
func pauseClocks(ctx context.Context) (resume func()) {
	clocks := clocksOf(ctx)
	for _, c := range clocks {
		c.hold()
	}
	return func() {
		for _, c := range clocks {
			c.release()
		}
	}
}

// clock is one time limit that stands still while a queue holds its call.
type clock struct {
	mu     sync.Mutex
	left   time.Duration
	since  time.Time // when it last started running
	timer  *time.Timer
	held   int  // queues holding it now: a ctx may carry calls made side by side
	over   bool // it expired or was stopped: nothing restarts it
	expire func()
}

// run starts the time left running. The caller holds mu, or has the clock to itself.
func (c *clock) run() {
	c.since = time.Now()
	c.timer = time.AfterFunc(c.left, c.expire)
}

func (c *clock) hold() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.held++
	if c.held > 1 || c.over {
		return
	}
	if c.timer.Stop() {
		c.left -= time.Since(c.since)
	} else {
		c.over = true // it had already expired
	}
}

func (c *clock) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.held--
	if c.held == 0 && !c.over {
		c.run()
	}
}

func (c *clock) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.over = true
	c.timer.Stop()
}
