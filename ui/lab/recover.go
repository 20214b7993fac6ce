package lab

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"github.com/charmbracelet/ssh"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/persist"
)

// One trainee's failure is theirs alone: a panic in a connection's handling (guard), in a
// goroutine ward starts for a connection (survive) or in a turn (live.Live recovers its own and
// reports it through OnPanic) ends that connection or that turn with a word to the trainee and
// an audit line, and the class goes on. Bubble Tea recovers a panic in a screen's program
// itself, and its connection ends.

// guard is the outermost middleware: a panic anywhere in a connection's handling ends that
// connection, not the server.
func (s *Server) guard(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		defer s.survive(persist.Person{}, "a connection ("+describe(sess)+")", func() {
			say(sess, "ward: something failed inside ward and this connection is closed; what you sent is saved — connect again")
			_ = sess.Exit(1)
		})
		next(sess)
	}
}

// survive, deferred first in a goroutine ward starts, recovers a panic there: it is logged
// with its stack on the server's log and audited for who, and then ends what failed (nil:
// nothing more to end).
func (s *Server) survive(who persist.Person, where string, then func()) {
	v := recover()
	if v == nil {
		return
	}
	s.panicked(who, where, v, debug.Stack())
	if then != nil {
		then()
	}
}

// panicked records a panic recovered in where.
func (s *Server) panicked(who persist.Person, where string, v any, stack []byte) {
	s.logf("panic in %s: %v\n%s", where, v, stack)
	s.audit(who, persist.AuditPanic, fmt.Sprintf("in %s: %v", where, v))
}

// panicEnv names the test-only hook that panics a turn: a model call whose prompt ends with a
// message holding its value panics, as a bug in a turn would. The load test (load_test.go)
// plays a trainee who sets it off while the class plays.
const panicEnv = "WARD_TEST_PANIC_ON"

// panicHook wraps every trainee's backend with the hook when panicEnv is set.
func panicHook(backend func(string) llm.Backend) func(string) llm.Backend {
	word := os.Getenv(panicEnv)
	if word == "" {
		return backend
	}
	return func(trainee string) llm.Backend { return panicking{backend(trainee), word} }
}

type panicking struct {
	llm.Backend
	word string
}

func (p panicking) Chat(ctx context.Context, req llm.Request, onDelta func(string)) (llm.Response, error) {
	if n := len(req.Messages); n > 0 && strings.Contains(req.Messages[n-1].Content, p.word) {
		panic(panicEnv + ": a turn panics as asked")
	}
	return p.Backend.Chat(ctx, req, onDelta)
}
