package session

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/session/physio"
)

// Live runs a session for the UI. A session serves one caller at a time, so every call
// into it holds mu; a turn holds it for as long as it streams. Snapshot must never wait for a
// turn, so it returns the last view built, and the turn rebuilds that view (on its own goroutine,
// already holding mu) whenever something on screen changed.
type Live struct {
	mu        sync.Mutex
	s         *Session
	restart   func(shift, trainee string) (*Session, error)
	view      atomic.Pointer[ViewState]
	lastTick  time.Time
	lastFlush time.Time

	// Guarded by mu.
	chat    chatCache
	notes   []note            // what ward showed without storing it, in the active conversation
	sounded int               // alarms and escalations sounded since the screen opened
	live    map[string]string // agent → ID of its message streaming now
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
}

// chatPage is how many stored messages a screen loads at a time: more than a tall terminal
// shows, few enough that reading them costs the same at 10 and at 10,000 messages.
const chatPage = 100

// NewLive wraps s. restart starts a new session for the start dialog: a shift id, a shift file,
// or "" for an empty roster, for the trainee named.
func NewLive(s *Session, restart func(shift, trainee string) (*Session, error)) *Live {
	e := &Live{s: s, restart: restart, lastTick: time.Now(), lastFlush: time.Now(),
		live: map[string]string{}, aliases: map[int64]string{}}
	s.Restore(func(Event) {})
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
		e.s.Tick(wall, func(ev Event) { e.hear(ev) })
		e.lastTick = now
	}
	if now.Sub(e.lastFlush) >= flushEvery {
		_ = e.s.Flush() // a failed flush is retried next time; the messages are already safe
		e.lastFlush = now
	}
}

// Submit runs one turn on its own goroutine and streams what happens.
func (e *Live) Submit(ctx context.Context, text string) <-chan Update {
	return e.runTurn(ctx, func(emit func(Event)) { e.s.Turn(ctx, text, emit) })
}

// Retry answers the last message again without storing it twice.
func (e *Live) Retry(ctx context.Context) <-chan Update {
	return e.runTurn(ctx, func(emit func(Event)) { e.s.Retry(ctx, emit) })
}

func (e *Live) runTurn(ctx context.Context, run func(func(Event))) <-chan Update {
	out := make(chan Update, 64)
	go func() {
		defer close(out)
		e.mu.Lock()
		defer e.mu.Unlock()
		e.tick()
		started := time.Now()
		e.last = TurnStats{}
		run(func(ev Event) {
			for _, u := range e.translate(ev) {
				select {
				case out <- u:
				case <-ctx.Done():
				}
			}
		})
		e.last.Latency = time.Since(started)
		clear(e.live)
		e.refresh()
		select {
		case out <- Update{Kind: UpdateChanged}:
		case <-ctx.Done():
		}
	}()
	return out
}

// hear notes what the clock brought between turns: an alarm sounding, or a nurse's or monitor's
// message stored in the active chat.
func (e *Live) hear(ev Event) {
	switch ev := ev.(type) {
	case SimEvent:
		if ev.Event.Kind == physio.EventAlarm || ev.Event.Kind == physio.EventEscalation {
			e.sounded++
		}
	case MessageEvent:
		e.chat.valid = false
	}
}

// translate turns one session event into what the UI shows, rebuilding the view first when the
// screen changes. It runs on the turn's goroutine, which holds mu.
func (e *Live) translate(ev Event) []Update {
	switch ev := ev.(type) {
	case DeltaEvent:
		return []Update{{Kind: UpdateDelta, MessageID: e.liveID(ev.Agent), Agent: ev.Agent, Text: ev.Text}}
	case MessageEvent:
		return e.finished(ev)
	case ErrorEvent:
		return []Update{{Kind: UpdateError, Text: ev.Message, Code: ev.Code}}
	case ConfirmEvent:
		return []Update{{Kind: UpdateConfirm, Text: ev.Question, Line: ev.Line}}
	case NoteEvent:
		e.note(ev.Text)
		return e.changed()
	case ProgressEvent:
		return []Update{{Kind: UpdateNotice, Text: ev.Text}}
	case AAREvent:
		e.note(ev.Markdown())
		return e.changed()
	case LLMCallEvent:
		e.count(ev)
		return nil
	case DecisionEvent, TurnEndEvent:
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

func (e *Live) finished(ev MessageEvent) []Update {
	id, streamed := e.live[ev.Agent]
	delete(e.live, ev.Agent)
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

func (e *Live) count(ev LLMCallEvent) {
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
	e.s.Switch(patientID, func(ev Event) {
		if er, ok := ev.(ErrorEvent); ok {
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
	// The new shift's clock starts now, not when the last one ticked.
	e.s, e.notes, e.chat, e.lastTick = s, nil, chatCache{}, time.Now()
	clear(e.aliases)
	s.Restore(func(Event) {})
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
	v := ViewState{Clock: seconds(clock), Paused: paused, Speed: speed, Backend: backend, Model: model, Last: e.last,
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
	e.view.Store(&v)
}

func rosterEntry(p PatientSummary, clock float64) RosterEntry {
	r := RosterEntry{ID: p.ID, Name: p.Name, LastChecked: -1, Overdue: p.overdue(clock)}
	if p.Known {
		r.NEWS2 = score(physio.NEWS2Score{Total: p.NEWS2, Band: p.Band})
		r.LastChecked = seconds(p.At)
	}
	switch {
	case !p.HasPrev || p.Prev == p.NEWS2:
		r.Trend = TrendFlat
	case p.NEWS2 > p.Prev:
		r.Trend = TrendUp
	default:
		r.Trend = TrendDown
	}
	if p.Alert != "" {
		r.Alert = alertView(PatientAlert{PatientID: p.ID, Level: p.Alert, Text: p.AlertText, Raised: p.AlertAt})
	}
	return r
}

func alertView(a PatientAlert) Alert {
	level := map[string]AlertLevel{physio.LevelUrgent: AlertUrgent, physio.LevelAlarm: AlertAlarm,
		physio.LevelEmergency: AlertEmergency}[a.Level]
	return Alert{PatientID: a.PatientID, Level: level, Text: a.Text, Raised: seconds(a.Raised)}
}

func (e *Live) chatView(active string) []ChatMessage {
	if e.chat.patient != active {
		e.notes = nil // notes belong to the conversation they were shown in
		e.chat = chatCache{patient: active, want: chatPage}
	}
	if !e.chat.valid {
		msgs, more, err := e.s.Recent(active, e.chat.want)
		// A failed read is not retried on every repaint, which would add a note a second; the next
		// stored message re-reads.
		e.chat.msgs, e.chat.more, e.chat.valid, e.chat.view = msgs, more, true, nil
		if err != nil {
			e.note("could not read the history: " + err.Error())
		}
	}
	if e.chat.view == nil {
		e.chat.view = e.mergeNotes()
	}
	return e.chat.view
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
	e.chat.valid = false
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
		out = append(out, ChatMessage{ID: id, Role: m.Role, Agent: m.Agent, Content: m.Content, Sources: m.Sources})
	}
	for _, n := range notes {
		out = append(out, n.msg)
	}
	return out
}

func header(p PatientView) Patient {
	h := Patient{ID: p.ID, Name: p.Name, Age: p.Age, Sex: p.Sex, Bed: p.Bed, Presentation: p.Presentation,
		NEWS2: latestScore(p.Readings), Allergies: p.Allergies, Found: latestResults(p.Results)}
	if !p.AllergiesAsked {
		h.Allergies = []string{"not asked yet"}
	} else if len(h.Allergies) == 0 {
		h.Allergies = []string{"none disclosed"}
	}
	return h
}

// latestResults keeps the newest result of each kind, in the order each kind was first taken.
func latestResults(results []physio.Result) []string {
	var names []string
	latest := map[string]physio.Result{}
	for _, r := range results {
		if _, seen := latest[r.Name]; !seen {
			names = append(names, r.Name)
		}
		latest[r.Name] = r
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = latest[n].String()
	}
	return out
}

func latestScore(readings []physio.Reading) Score {
	if len(readings) == 0 {
		return Score{}
	}
	return score(readings[len(readings)-1].Score())
}

func score(n physio.NEWS2Score) Score {
	return Score{Known: true, Value: n.Total, Band: band(n.Band), Text: n.String()}
}

func band(name string) Band {
	switch name {
	case physio.BandLowMedium:
		return BandLowMedium
	case physio.BandMedium:
		return BandMedium
	case physio.BandHigh:
		return BandHigh
	}
	return BandLow
}

// vitalSeries is the measured vitals as the trend pane draws them; it keeps its own time window.
func vitalSeries(readings []physio.Reading) []VitalSeries {
	out := []VitalSeries{{Name: "HR", Unit: "bpm"}, {Name: "RR", Unit: "/min"}, {Name: "SpO2", Unit: "%"}, {Name: "SBP", Unit: "mmHg"}}
	for _, r := range readings {
		at := seconds(r.T)
		for i, v := range []int{r.HR, r.RR, r.SpO2, r.SBP} {
			out[i].Points = append(out[i].Points, VitalPoint{At: at, Value: float64(v)})
		}
	}
	return out
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// turnTrace maps the session's record of a turn onto the inspector's view, folding each prompt's
// messages into its sections.
func turnTrace(rec TurnRecord) TurnTrace {
	tr := TurnTrace{Turn: rec.Number, Input: rec.Input, Engine: rec.Engine}
	if d := rec.Decision; d != nil {
		tr.Analyzer = AnalyzerTrace{Input: d.Input, Action: d.AnalyzerAction, PatientID: d.PatientID, Source: d.Source,
			Reasoning: d.Reasoning + " → " + d.Decision, Elapsed: time.Duration(d.Timing.AnalyzerMS * float64(time.Millisecond))}
	}
	for _, c := range rec.Calls {
		tr.Calls = append(tr.Calls, llmCall(c))
	}
	if st := rec.Counters; st != nil {
		tr.Counters = fmt.Sprintf("%d merges · %d parse errors · %d format fallbacks · %d evictions · %d refused · %d cap / %d loop stops · %d citations removed · merge p95 %s",
			st.Merges, st.ParseErrors, st.FormatFallbacks, st.Evictions, st.Refused, st.CapStops, st.LoopStops, st.CitationsRemoved, st.MergeLatency.P95())
	}
	return tr
}

func llmCall(c CallRecord) LLMCall {
	var mem []PromptMessage
	for _, it := range c.Recall.Items {
		mem = append(mem, PromptMessage{Role: string(it.Category), Content: c.Recall.Line(it), Rule: string(it.Rule)})
	}
	call := callView(c.Trace, mem, len(c.Recall.Shown), c.Held)
	for _, p := range c.Retrieved { // how each passage ranked is known only live, not from a trace
		call.Notes = append(call.Notes, fmt.Sprintf("knowledge [%d] %s › %s — %s, score %.4f", p.N, p.Title, p.Section, p.Why, p.Score))
	}
	return call
}

// callView is a call as the inspector shows it: its prompt folded by section, with memory as
// mem; shown is how many recalled items the window made redundant, held how ward changed the
// reply ("" when it stood).
func callView(t llm.TraceRecord, mem []PromptMessage, shown int, held string) LLMCall {
	m := t.Metrics
	call := LLMCall{Agent: t.Agent, Model: t.Model, NumPredict: t.Options.NumPredict, Reply: t.Reply.Content, Notes: callNotes(t, shown, held),
		Metrics: CallMetrics{PromptEvalCount: m.PromptEvalCount, PromptEvalDuration: m.PromptEvalDuration,
			EvalCount: m.EvalCount, EvalDuration: m.EvalDuration, LoadDuration: m.LoadDuration, TotalDuration: m.TotalDuration,
			CacheHit: cacheHit(m.PromptEvalCount, m.PromptEvalDuration)}}
	msgs := t.Messages
	if len(msgs) < 2 {
		return call
	}
	section := func(name string, ms []PromptMessage) {
		call.Sections = append(call.Sections, PromptSection{Name: name, Tokens: t.Sections[name], Messages: ms})
	}
	section("static", []PromptMessage{{Role: msgs[0].Role, Content: msgs[0].Content}})
	window := msgs[1:min(1+t.WindowLen, len(msgs))]
	var wm []PromptMessage
	for _, m := range window {
		wm = append(wm, PromptMessage{Role: m.Role, Content: m.Content})
	}
	section("window", wm)
	if dyn := msgs[1+len(window) : len(msgs)-1]; len(dyn) > 0 {
		section("dynamic", []PromptMessage{{Role: dyn[0].Role, Content: dyn[0].Content}})
	}
	section("memory", mem)
	last := msgs[len(msgs)-1]
	section("user", []PromptMessage{{Role: last.Role, Content: last.Content}})
	return call
}

func callNotes(t llm.TraceRecord, shown int, held string) []string {
	var notes []string
	if t.Retry != "" {
		notes = append(notes, "retry: "+t.Retry)
	}
	if len(t.Shrunk) > 0 {
		notes = append(notes, "cut to fit num_ctx: "+strings.Join(t.Shrunk, ", "))
	}
	if shown > 0 {
		notes = append(notes, fmt.Sprintf("memory: %d recalled items not repeated, the window shows them", shown))
	}
	if m := t.Merge; m != nil {
		notes = append(notes, fmt.Sprintf("entities: added %v · updated %v · evicted %v", m.Added, m.Updated, m.Evicted))
	}
	if t.Error != "" {
		notes = append(notes, "error: "+t.Error)
	}
	if held != "" {
		notes = append(notes, "held to the record: "+held)
	}
	return notes
}

// cacheHit judges a KV-cache hit: a prompt evaluated at under 0.2 ms per token was mostly served
// from the cache (a cold prompt costs milliseconds per token on a CPU).
func cacheHit(tokens int, d time.Duration) bool {
	return tokens > 0 && d/time.Duration(tokens) < 200*time.Microsecond
}
