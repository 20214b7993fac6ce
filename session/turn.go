package session

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
)

// A turn is one line the trainee typed, carried through four stages that hand values on:
//
//	settle   → whose conversation it continues, with the typed text stored once (settled);
//	examine  → what it does in the engine and memory: actions, disclosures, compound parts,
//	           safety verdicts (examination);
//	converse → the team answers through prompts and the backend (what was said);
//	record   → what the turn said, and the engine's changes, are committed.
//
// turn itself holds only what every stage reports to: the event sink, the timing and the
// inspector's record.
type turn struct {
	input         string
	emit          func(Event)
	started       time.Time
	timing        Timing
	decision      Decision
	calls         []CallRecord   // the turn's LLM calls, for the inspector
	decisionEvent *DecisionEvent // the turn's decision, for the inspector
	toolCalls     int            // tool calls so far, which number their IDs
	loadNoticed   bool           // the trainee was told the model may be loading
	pruned        []PruneEvent   // what the turn's pruning rules took out, for the inspector
	pending                      // what the turn owes the store until a commit takes it (record.go)
	by            Member         // the team member who said the line; zero in a shift of one
	orderFor      string         // whom the line orders to carry it out (team.go)
	carries       string         // the order a member's line says back as done, which it carries out (team.go)
}

func newTurn(input string, emit func(Event)) *turn {
	return &turn{input: input, emit: emit, started: time.Now()}
}

// Turn runs one line the user typed. Every call ends with exactly one TurnEndEvent; failures are
// reported as ErrorEvents and never lose the typed text once it was stored.
func (s *Session) Turn(ctx context.Context, text string, emit func(Event)) {
	s.begin(llm.TraceInput{Op: llm.InputTurn, Text: text}, emit)
	t := newTurn(text, emit)
	defer s.endTurn(t)
	defer s.observeCalls(t)()
	if line := strings.TrimSpace(text); strings.HasPrefix(line, "/") {
		s.restoreFromRegistry(t) // a command acts on the restored patient, silently
		s.command(ctx, t, line)
		return
	}
	if st, ok := s.settle(ctx, t); ok {
		s.respond(ctx, t, st)
	}
}

// observeCalls makes the calls the session does not build itself, the analyzer's and the
// router's, part of the turn: each is an llm_call event and an entry in the inspector. Before
// each, the turn does what it owes the trainee (beforeModelCall; a line it could not store is
// reported, and the call goes on). stop ends it with the turn.
func (s *Session) observeCalls(t *turn) (stop func()) {
	s.cfg.Observer.Hear(func() { _ = s.beforeModelCall(t) }, func(rec llm.TraceRecord) {
		rec.PatientID = s.active
		s.recordCall(t, CallRecord{Trace: rec})
	})
	return func() { s.cfg.Observer.Hear(nil, nil) }
}

// respond runs a settled turn through the other stages: a roster question is answered from the
// registry, everything else by the engine first and then the team.
func (s *Session) respond(ctx context.Context, t *turn, st settled) {
	if st.effect == "" && isRosterQuestion(t.input) {
		s.record(t, []memory.Message{s.wardSays(t, s.reg.rosterAnswer(s.active))}, nil)
		return
	}
	if e := s.engine(t, s.active); e != nil && e.Closed() && st.effect == "" {
		s.afterCase(t, e)
		return
	}
	exam := s.examine(t, st)
	said, err := s.converse(ctx, t, st.prior, exam)
	s.record(t, said, err)
}

func (t *turn) storage(fn func() error) error {
	t0 := time.Now()
	err := fn()
	t.timing.StorageMS = math.Round((t.timing.StorageMS+msSince(t0))*1e3) / 1e3
	return err
}

// msSince is elapsed milliseconds, rounded to the microsecond the events report.
func msSince(t0 time.Time) float64 {
	return math.Round(float64(time.Since(t0).Nanoseconds())/1e3) / 1e3
}

// message is a new message of the active conversation, stamped with the wall clock.
func (s *Session) message(role, agent, content string) memory.Message {
	return memory.Message{Role: role, Agent: agent, Content: content, At: s.cfg.Now().UTC()}
}

func (s *Session) endTurn(t *turn) {
	s.commit(t, nil) // what the turn still holds is durable before it is acknowledged
	if !strings.EqualFold(t.input, CmdInspect) {
		s.keepTurnRecord(t)
	}
	t.emit(TurnEndEvent{
		Input: t.input, Decision: string(t.decision), ActivePatient: nullable(s.active),
		Roster: s.reg.roster, Footer: footer(s.info.ID, s.active, s.reg.roster), Timing: t.timing,
	})
}

// footer is the PT_CTX audit line: shown to the user, never stored and never sent to a model.
func footer(sessionID, active string, roster []string) string {
	if active == "" {
		active = "none"
	}
	return fmt.Sprintf("PT_CTX session=%s active=%s roster=[%s]", sessionID, active, strings.Join(roster, ","))
}

// Retry answers the last thing the trainee said to the active conversation again, without
// storing it twice: the path for a failed, stalled or empty answer.
func (s *Session) Retry(ctx context.Context, emit func(Event)) {
	s.begin(llm.TraceInput{Op: llm.InputRetry}, emit)
	i := s.chat.lastUserMessage()
	if i < 0 {
		emit(ErrorEvent{Code: "NOTHING_TO_RETRY", Message: "nothing to retry yet"})
		return
	}
	t := newTurn(s.chat.history[i].Content, emit)
	defer s.endTurn(t)
	defer s.observeCalls(t)()
	s.respond(ctx, t, settled{prior: slices.Delete(slices.Clone(s.chat.history), i, i+1), retry: true})
}

// wardSays is a reply from ward itself, shown at once and recorded with the turn.
func (s *Session) wardSays(t *turn, text string) memory.Message {
	return s.saySpoken(t, memory.SystemAgent, text)
}

// saySpoken is a line ward writes itself in another voice at the bedside (the nurse, a
// relative), shown at once and recorded with the turn.
func (s *Session) saySpoken(t *turn, voice, text string) memory.Message {
	msg := s.message(memory.RoleAssistant, voice, text)
	t.emit(MessageEvent{PatientID: s.active, Role: msg.Role, Agent: voice, Text: text, At: msg.At})
	return msg
}
