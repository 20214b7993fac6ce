// Package live is the screen's room: Live runs a shift for the UI, one caller at a time, and
// turns what the turn reports into the view types a screen draws (screen.go); the inspector's
// view of a turn, live or from a trace, is built here too (inspector.go).
package live

import (
	"context"
	"fmt"
	"reflect"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/physio"
	"github.com/ward-sim/ward/session/records"
)

// Live runs a session for the UI. A session serves one caller at a time, so every call
// into it holds mu; a turn holds it for as long as it streams. Snapshot must never wait for a
// turn, so it returns the last view built, and the turn rebuilds that view (on its own goroutine,
// already holding mu) whenever something on screen changed.
type Live struct {
	mu        sync.Mutex
	s         *session.Session
	restart   func(shift, trainee string) (*session.Session, error)
	view      atomic.Pointer[ViewState]
	standing  atomic.Pointer[Standing] // the instructor's board's reading (class.go)
	lastTick  time.Time
	lastFlush time.Time
	onPanic   func(v any, stack []byte)
	arrivals  sync.Mutex    // guards tail
	tail      chan struct{} // closed when the turn that arrived last is over (runTurn)

	// Guarded by mu.
	chat    chatCache
	notes   []note            // what ward showed without storing it, in the active conversation
	sounded int               // alarms and escalations sounded since the screen opened
	live    map[string]string // agent → ID of its message streaming now
	writing []Writing         // the messages streaming now, as far as they have come
	aliases map[int64]string  // stored message time → the live ID it streamed under
	nextID  int
	last    TurnStats
}

// note is a message ward showed without storing it, placed among the stored ones by time.
type note struct {
	at  time.Time
	msg ChatMessage
}

// chatCache holds the newest messages of one conversation, so a repaint does not re-read the
// store, and the chat built from them, so the once-a-second snapshot does not rebuild it either.
// It holds want messages at most: a switch reads one page from the end of the history, whatever
// its length, and LoadOlder widens it a page at a time.
type chatCache struct {
	patient string
	want    int
	msgs    []memory.Message
	more    bool          // the store holds older messages than msgs
	valid   bool          // msgs is what the store holds
	view    []ChatMessage // msgs with the notes merged in; nil when it must be rebuilt
	// read says msgs was read whole, when the store's conversation held stored messages ending
	// with newest (session.Newest): while it still does, msgs is still what it holds.
	read   bool
	stored int
	newest memory.Message
}

// chatPage is how many stored messages a screen loads at a time: more than a tall terminal
// shows, few enough that reading them costs the same at 10 and at 10,000 messages.
const chatPage = 100

// NewLive wraps s. restart starts a new session for the start dialog: a shift id, a shift file,
// or "" for an empty roster, for the trainee named.
func NewLive(s *session.Session, restart func(shift, trainee string) (*session.Session, error)) *Live {
	e := &Live{s: s, restart: restart, lastTick: time.Now(), lastFlush: time.Now(),
		live: map[string]string{}, aliases: map[int64]string{}, tail: make(chan struct{})}
	close(e.tail)
	s.Restore(func(session.Event) {})
	e.refresh()
	return e
}

// Snapshot returns the latest view. When no turn is running it first lets the sim clock catch up
// with the wall clock, so the vitals keep moving while the trainee reads.
func (e *Live) Snapshot() ViewState {
	if e.mu.TryLock() {
		e.tick()
		e.refresh()
		e.mu.Unlock()
	}
	return *e.view.Load()
}

// flushEvery is how often the clock's progress is saved; a crash loses at most that much sim time.
const flushEvery = 5 * time.Second

// tickEvery is the least wall time a tick lets pass: the engine steps whole sim seconds, and a
// snapshot taken right after another (the first frame after start-up) has nothing to move.
const tickEvery = time.Second

func (e *Live) tick() {
	now := time.Now()
	if wall := now.Sub(e.lastTick); wall >= tickEvery {
		e.s.Tick(wall, func(ev session.Event) { e.hear(ev) })
		e.lastTick = now
	}
	if now.Sub(e.lastFlush) >= flushEvery {
		_ = e.s.Flush() // a failed flush is retried next time; the messages are already safe
		e.lastFlush = now
	}
}

// Submit runs one turn on its own goroutine and streams what happens.
func (e *Live) Submit(ctx context.Context, text string) <-chan Update {
	return e.runTurn(ctx, func(ctx context.Context, emit func(session.Event)) { e.s.Turn(ctx, text, emit) })
}

// Retry answers the last message again without storing it twice.
func (e *Live) Retry(ctx context.Context) <-chan Update {
	return e.runTurn(ctx, func(ctx context.Context, emit func(session.Event)) { e.s.Retry(ctx, emit) })
}

// SubmitAs runs one line a member of a team said (session.TeamTurn), as Submit does.
func (e *Live) SubmitAs(ctx context.Context, by session.Member, team []session.Member, text string) <-chan Update {
	return e.runTurn(ctx, func(ctx context.Context, emit func(session.Event)) { e.s.TeamTurn(ctx, by, team, text, emit) })
}

// arrive queues a turn behind the turns that arrived before it: wait is closed when the one
// before is over, and done closes this one's. mu alone would let waiting turns run in any order,
// and a team's lines must run in the order they were said.
func (e *Live) arrive() (wait <-chan struct{}, done func()) {
	e.arrivals.Lock()
	defer e.arrivals.Unlock()
	wait, next := e.tail, make(chan struct{})
	e.tail = next
	return wait, func() { close(next) }
}

// runTurn runs a turn with ctx, after the turns that arrived before it. While a model call of the turn waits its turn in a class's queue
// (llm.Queue), the screen hears how many calls are ahead.
func (e *Live) runTurn(ctx context.Context, run func(context.Context, func(session.Event))) <-chan Update {
	out := make(chan Update, 64)
	send := func(u Update) {
		select {
		case out <- u:
		case <-ctx.Done():
		}
	}
	waiting := llm.WithWaiting(ctx, func(ahead int) { send(Update{Kind: UpdateWaiting, Ahead: ahead}) })
	before, done := e.arrive()
	go func() {
		defer close(out)
		defer e.survive(send) // after mu is unlocked
		defer done()
		<-before
		e.mu.Lock()
		defer e.mu.Unlock()
		e.tick()
		started := time.Now()
		e.last = TurnStats{}
		run(waiting, func(ev session.Event) {
			for _, u := range e.translate(ev) {
				send(u)
			}
		})
		e.last.Latency = time.Since(started)
		clear(e.live)
		e.writing = nil
		e.refresh()
		send(Update{Kind: UpdateChanged})
	}()
	return out
}

// CodeFailed is the UpdateError code of a turn that failed inside ward (a panic): a bug, not the
// trainee's doing nor the model's.
const CodeFailed = "WARD_FAILED"

// OnPanic makes f hear every panic a turn recovers from, with its stack (ward serve audits
// them). Call it before the first turn.
func (e *Live) OnPanic(f func(v any, stack []byte)) { e.onPanic = f }

// survive, deferred in a turn's goroutine, ends a turn that panicked as one that failed: the
// screen is told, what the turn stored before is kept, and the shift goes on.
func (e *Live) survive(send func(Update)) {
	v := recover()
	if v == nil {
		return
	}
	if e.onPanic != nil {
		e.onPanic(v, debug.Stack())
	}
	send(Update{Kind: UpdateError, Code: CodeFailed,
		Text: "this turn failed inside ward (a bug, reported to the instructor); what was saved before it is kept; your shift goes on"})
	send(Update{Kind: UpdateChanged})
}

// hear notes what the clock brought between turns: an alarm sounding, or a nurse's or monitor's
// message stored in the active chat.
func (e *Live) hear(ev session.Event) {
	switch ev := ev.(type) {
	case session.SimEvent:
		if ev.Event.Kind == physio.EventAlarm || ev.Event.Kind == physio.EventEscalation {
			e.sounded++
		}
	case session.MessageEvent:
		e.chat.valid = false
	}
}

// translate turns one session event into what the UI shows, rebuilding the view first when the
// screen changes. It runs on the turn's goroutine, which holds mu.
func (e *Live) translate(ev session.Event) []Update {
	switch ev := ev.(type) {
	case session.DeltaEvent:
		id := e.liveID(ev.Agent)
		e.write(id, ev.Agent, ev.Text)
		return []Update{{Kind: UpdateDelta, MessageID: id, Agent: ev.Agent, Text: ev.Text}}
	case session.MessageEvent:
		return e.finished(ev)
	case session.ErrorEvent:
		return []Update{{Kind: UpdateError, Text: ev.Message, Code: ev.Code}}
	case session.ConfirmEvent:
		return []Update{{Kind: UpdateConfirm, Text: ev.Question, Line: ev.Line}}
	case session.NoteEvent:
		e.note(ev.Text)
		return e.changed()
	case session.ProgressEvent:
		return []Update{{Kind: UpdateNotice, Text: ev.Text}}
	case session.AAREvent:
		e.note(ev.Markdown())
		return e.changed()
	case session.LLMCallEvent:
		e.count(ev)
		return nil
	case session.DecisionEvent, session.TurnEndEvent:
		e.chat.valid = false // the user's text is stored
		return e.changed()
	}
	// Engine events (a monitored /wait sends hundreds) repaint with the message or the turn end
	// that follows them, not one by one.
	e.hear(ev)
	return nil
}

func (e *Live) changed() []Update {
	e.refresh()
	return []Update{{Kind: UpdateChanged}}
}

// liveID names the message an agent is streaming, so its deltas gather in one place and the
// stored message can take over the same ID when it lands.
func (e *Live) liveID(agent string) string {
	id, ok := e.live[agent]
	if !ok {
		e.nextID++
		id = fmt.Sprintf("live-%d", e.nextID)
		e.live[agent] = id
	}
	return id
}

// write adds a delta to the message streaming as id, and shows it in the view the other screens
// read (Snapshot) at once: the view is not rebuilt, only its Writing replaced.
func (e *Live) write(id, agent, text string) {
	i := slices.IndexFunc(e.writing, func(w Writing) bool { return w.ID == id })
	if i < 0 {
		i = len(e.writing)
		e.writing = append(e.writing, Writing{ID: id, Agent: agent})
	}
	e.writing[i].Text += text
	v := *e.view.Load()
	v.Writing = slices.Clone(e.writing)
	e.view.Store(&v)
}

func (e *Live) finished(ev session.MessageEvent) []Update {
	id, streamed := e.live[ev.Agent]
	delete(e.live, ev.Agent)
	e.writing = slices.DeleteFunc(e.writing, func(w Writing) bool { return w.ID == id })
	if ev.At.IsZero() {
		e.note(ev.Text) // shown, never stored: the history need not be re-read
	} else {
		if streamed {
			e.aliases[ev.At.UnixNano()] = id
		}
		e.chat.valid = false
	}
	ch := e.changed()
	ch[0].MessageID = id
	return ch
}

// note keeps a message ward showed without storing it, in the active conversation's view.
func (e *Live) note(text string) {
	e.nextID++
	e.notes = append(e.notes, note{at: time.Now(), msg: ChatMessage{ID: fmt.Sprintf("note-%d", e.nextID), Role: "assistant", Agent: "ward", Content: text}})
	e.chat.view = nil
}

func (e *Live) count(ev session.LLMCallEvent) {
	e.last.PromptTokens += ev.PromptTokensEst
	if ev.PromptEvalCount != nil {
		e.last.PromptTokens += *ev.PromptEvalCount - ev.PromptTokensEst // measured beats estimated
	}
	if ev.EvalCount != nil {
		e.last.OutputTokens += *ev.EvalCount
	}
}

// Switch makes patientID active through the registry, with no analyzer call.
func (e *Live) Switch(_ context.Context, patientID string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var failure error
	e.s.Switch(patientID, func(ev session.Event) {
		if er, ok := ev.(session.ErrorEvent); ok {
			failure = fmt.Errorf("%s", er.Message)
		}
	})
	e.chat.valid = false
	e.refresh()
	return failure
}

// Start replaces the session with a new one of the trainee named, for the start dialog.
func (e *Live) Start(_ context.Context, shift, trainee string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, err := e.restart(shift, trainee)
	if err != nil {
		return err
	}
	// A failure leaves only an empty shift behind, which the next start would not resume anyway.
	_ = e.s.DiscardIfUnused()
	// Patient IDs repeat across shifts, so nothing remembered about the old one's patients carries over.
	// The new shift's clock starts now, not when the last one ticked. Its own conversation shows
	// a page, as any other does (a shift drawn from the trainee's progress says why there).
	e.s, e.notes, e.chat, e.lastTick = s, nil, chatCache{want: chatPage}, time.Now()
	clear(e.aliases)
	s.Restore(func(session.Event) {})
	e.refresh()
	return nil
}

// Close saves the clock's progress since the last flush, when the UI exits.
func (e *Live) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.s.Flush()
}

// Trace returns the inspector's view of a turn, counted back from the latest.
func (e *Live) Trace(back int) (TurnTrace, bool) {
	e.mu.Lock()
	turns := e.s.Turns()
	e.mu.Unlock()
	i := len(turns) - 1 - back
	if back < 0 || i < 0 {
		return TurnTrace{}, false
	}
	return turnTrace(turns[i]), true
}

// refresh rebuilds the view from the session. The caller holds mu.
func (e *Live) refresh() {
	active := e.s.Active()
	summaries := e.s.Summaries()
	clock, paused, speed := e.s.Clock()
	backend, model := e.s.Backend()
	v := ViewState{Clock: seconds(clock), Paused: paused, Ended: e.s.Ended(), Speed: speed, Backend: backend, Model: model, Last: e.last,
		Sounded: e.sounded}
	if p, ok := e.s.ActivePatient(); ok {
		v.Patient, v.Vitals, v.Monitor, v.ECG = header(p), vitalSeries(p.Readings), p.Monitored, ecgTrace(p)
	}
	for _, p := range summaries {
		v.Roster = append(v.Roster, rosterEntry(p, clock))
	}
	for _, a := range e.s.Waiting() {
		v.Alerts = append(v.Alerts, alertView(a))
	}
	v.Chat = e.chatView(active)
	v.ChatMore = e.chat.more
	v.Writing = slices.Clone(e.writing)
	e.view.Store(&v)
}

func (e *Live) chatView(active string) []ChatMessage {
	if e.chat.patient != active {
		e.notes = nil // notes belong to the conversation they were shown in
		e.chat = chatCache{patient: active, want: chatPage}
	}
	if !e.chat.valid {
		e.readChat(active)
	}
	if e.chat.view == nil {
		e.chat.view = e.mergeNotes()
	}
	return e.chat.view
}

// readChat brings the held page of the active conversation up to what the store holds, and
// reports how many messages it read. While the store's conversation still continues the page (it
// holds the page's newest message where the page read it), only the messages stored after it are
// read, with it: a turn's stored line, its decision and its end each ask, and a class's screens
// re-read a page of history at each of them. Otherwise (the newest moved to another
// conversation, a page never read whole) the page is read whole again. read counts the messages
// decoded.
func (e *Live) readChat(active string) (read int) {
	if e.chat.read {
		n, ok := e.readNewer(active)
		if ok {
			return n
		}
		read = n
	}
	last, n, err := e.s.Newest(active)
	msgs, more, readErr := e.s.Recent(active, e.chat.want)
	// A failed read is not retried on every repaint, which would add a note a second; the next
	// stored message re-reads. What was read is at least as new as what Newest said (read first).
	e.chat.msgs, e.chat.more, e.chat.valid, e.chat.view = msgs, more, true, nil
	e.chat.read, e.chat.stored, e.chat.newest = err == nil && readErr == nil, n, last
	if readErr != nil {
		e.note("could not read the history: " + readErr.Error())
	}
	return read + min(n, 1) + len(msgs)
}

// readNewer adds to the page the messages the store holds after the page's newest, read with it
// from the store; ok is false, and the page unchanged, when the conversation does not continue
// the page or the read failed.
func (e *Live) readNewer(active string) (read int, ok bool) {
	from := max(e.chat.stored, 1)
	msgs, n, err := e.s.From(active, from)
	if err != nil || len(msgs) != n-from+1 {
		return len(msgs), false
	}
	read = len(msgs)
	if e.chat.stored > 0 {
		if len(msgs) == 0 || !reflect.DeepEqual(msgs[0], e.chat.newest) {
			return read, false
		}
		msgs = msgs[1:]
	}
	if len(msgs) > 0 {
		page := append(e.chat.msgs, msgs...)
		e.chat.msgs = page[max(len(page)-e.chat.want, 0):]
		e.chat.newest = msgs[len(msgs)-1]
	}
	e.chat.more, e.chat.stored, e.chat.valid, e.chat.view = n > len(e.chat.msgs), n, true, nil
	return read, true
}

// LoadOlder shows one more page of the active conversation's older messages, when the store has
// any: the path for scrolling back past the oldest message on screen.
func (e *Live) LoadOlder(context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.chat.more {
		return nil
	}
	e.chat.want += chatPage
	e.chat.valid, e.chat.read = false, false
	e.refresh()
	return nil
}

// mergeNotes places the notes among the stored messages by time.
func (e *Live) mergeNotes() []ChatMessage {
	out := make([]ChatMessage, 0, len(e.chat.msgs)+len(e.notes))
	notes := e.notes
	for _, m := range e.chat.msgs {
		for len(notes) > 0 && notes[0].at.Before(m.At) {
			out, notes = append(out, notes[0].msg), notes[1:]
		}
		id, ok := e.aliases[m.At.UnixNano()]
		if !ok {
			id = fmt.Sprint(m.At.UnixNano())
		}
		out = append(out, ChatMessage{ID: id, Role: m.Role, Agent: m.Agent, Content: m.Content, Sources: m.Sources, Speaker: records.MemberOf(m)})
	}
	for _, n := range notes {
		out = append(out, n.msg)
	}
	return out
}

// ClearPreview is what a clear would archive now, so a screen can ask before it.
type ClearPreview struct {
	Patients int
	Messages int // stored messages, every conversation of the shift together
	Archive  int // the number the archive will get (`ward archive show N`)
}

// ClearPreview counts what a clear would archive now.
func (e *Live) ClearPreview(context.Context) (ClearPreview, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var p ClearPreview
	var err error
	p.Patients, p.Messages, p.Archive, err = e.s.ClearPreview()
	return p, err
}

// Transcript is the whole active conversation (the shift's own when no patient is active), for
// copying or exporting from the screen.
func (e *Live) Transcript(context.Context) (records.Conversation, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.s.Transcript()
}
