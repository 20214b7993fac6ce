package ui

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/live"
	"github.com/ward-sim/ward/themes"
)

type focusArea int

const (
	focusInput focusArea = iota
	focusChat
	focusRoster
	focusCount
)

type overlayKind int

const (
	overlayNone overlayKind = iota
	overlayHelp
	overlayPalette
	overlayInspector
	overlayStart
	overlayConfirm
)

// turn is the generation in progress. The model keeps reading its channel
// until the engine closes it, even after a cancel, so the engine is never
// left blocked on a send.
type turn struct {
	cancel    context.CancelFunc
	events    <-chan live.Update
	cancelled bool
	failed    bool // it reported an error: the lines queued after it are held
	ahead     int  // calls ahead of its model call in the class's queue for the model; 0 when not waiting
}

// Model is the one Bubble Tea model. It owns all state; the panes are
// plain structs it sizes, feeds and draws.
type Model struct {
	shift    Shift
	opts     Options
	theme    themes.Theme
	painter  painter // the theme's screen colours under every frame
	keys     keyMap
	hintSets hintSets // the status bar's hints, made from keys
	ctx      context.Context

	width, height int
	lay           layout
	state         live.ViewState

	header    headerPane
	roster    rosterPane
	vitals    vitalsPane
	ecg       ecgPane
	sweep     sweep // the strip's motion between snapshots
	chat      chatPane
	input     inputPane
	status    statusPane
	palette   palette
	inspector inspector
	start     startDialog

	focus      focusArea
	overlay    overlayKind
	searching  bool // the chat rule is the search bar and typing goes to the query
	helpOffset int  // first line of the help overlay, when it scrolls
	turn       *turn
	queue      []request       // what the trainee asked for while ward was busy, oldest first
	held       []request       // queued after a line that did not go as typed: enter sends them on
	heldWhy    notice          // what did not go as typed
	failedAt   time.Time       // when a line's turn failed, until the trainee has paused to read why
	switching  bool            // a switch of patient is on its way
	counting   bool            // a clear's preview is on its way; the question follows
	confirms   []confirmDialog // the open question first, then those waiting behind it
	now        func() time.Time
	lastKey    time.Time // when the last key arrived, so a question is not answered by typing
	quitting   bool      // ctrl+c was pressed while generating
	notice     notice
	lastErr    bool // the last turn failed in a way worth retrying: hint at ctrl+r
	sounded    int  // the snapshot's count of alarms sounded, when last seen
	ring       bool // an alarm sounded since the last Update: ring the bell

	// body is the roster, vitals, strip and chat as last drawn, while bodyFresh: a key that only
	// types into the input (most of what a class sends) leaves them as they were.
	body      string
	bodyFresh bool
	rule      struct { // the chat's rule as last drawn, and what from
		key  chatRuleKey
		view string
	}
}

// buildPanes makes every pane draw with theme t. The panes hold nothing but the theme until
// the first snapshot and size reach them; they share the model's (a theme is 22 KB, and a copy in
// each pane made a screen 300 KB, which a class's server holds for every trainee and its
// collector scans).
func (m *Model) buildPanes(theme themes.Theme) {
	m.theme, m.painter = theme, newPainter(theme.Screen)
	m.rule.view = "" // drawn in the old theme
	t := &m.theme
	m.header, m.roster, m.vitals = headerPane{theme: t}, rosterPane{theme: t}, vitalsPane{theme: t}
	m.ecg = ecgPane{theme: t}
	m.chat, m.input, m.status = newChatPane(t), newInputPane(t), newStatusPane(t)
	m.palette = palette{theme: t, keys: m.keys, commands: session.Commands()}
	m.inspector = inspector{theme: t, keys: m.keys}
	m.start = startDialog{theme: t, keys: m.keys, shifts: m.opts.StartShifts, trainee: m.opts.Trainee, fixed: m.opts.TraineeFixed}
}

// retheme redraws the screen with theme t, keeping what the trainee has typed.
func (m *Model) retheme(t themes.Theme) {
	typed, held := m.input.ta.Value(), m.input.held
	m.buildPanes(t)
	m.input.SetValue(typed)
	m.input.setHeld(held)
	m.input.Focus()
	m.relayout()
}

// New builds the model. It does not touch the engine: the first snapshot
// arrives through Init's Cmd.
func New(shift Shift, opts Options) *Model {
	t := opts.Theme
	if t.Name == "" {
		t, _ = themes.New("", false)
	}
	if opts.Clipboard == nil {
		opts.Clipboard = os.Stderr
	}
	keys := newKeyMap()
	m := &Model{shift: shift, opts: opts, keys: keys, hintSets: newHintSets(keys), ctx: context.Background(), now: time.Now}
	m.buildPanes(t)
	if opts.StartShifts != nil {
		m.overlay = overlayStart
	}
	if opts.Notice != "" {
		m.notice = notice{text: opts.Notice, level: noticeWarn}
	}
	m.restoreUnsent(opts.Unsent, opts.Typed)
	m.input.Focus()
	m.applyState(live.ViewState{})
	return m
}

func (m *Model) Init() tea.Cmd {
	return tea.Batch(fetchSnapshot(m.shift), refreshLater(m.shift), m.readNextShift())
}

// readNextShift reads the next shift for the start dialog, when it is open and there is one to
// read.
func (m *Model) readNextShift() tea.Cmd {
	next := m.opts.NextShift
	if m.overlay != overlayStart || next == nil {
		return nil
	}
	return func() tea.Msg { c, err := next(); return nextShiftMsg{c, err} }
}

// nextShiftMsg is the next shift Options.NextShift read, or why none is offered.
type nextShiftMsg struct {
	choice *ShiftChoice
	err    error
}

func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m.bodyFresh = m.bodyFresh && m.onlyTypes(msg)
	cmd := m.update(msg)
	// A notice or hint that no longer fits on the status line takes lines from the chat.
	if m.width > 0 && m.status.Height(m.notice, m.activity(), m.hints()) != m.lay.statusHeight {
		m.relayout()
	}
	if m.ring {
		m.ring = false
		cmd = tea.Batch(cmd, bellCmd(m.opts.Bell))
	}
	if m.state.ECG != nil && !m.sweep.running {
		m.sweep.running = true
		cmd = tea.Batch(cmd, sweepLater())
	}
	return m, cmd
}

// NoticeMsg is a word for the status bar from whoever runs the screen (ward serve's, when the
// terminal is larger than it draws).
type NoticeMsg string

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.relayout()
		return nil
	case NoticeMsg:
		m.notice = notice{text: string(msg), level: noticeWarn}
		return nil
	case nextShiftMsg:
		if msg.err != nil {
			m.notice = notice{text: strings.TrimPrefix(m.notice.text+"; no next shift offered: "+msg.err.Error(), "; "), level: noticeWarn}
		}
		if msg.choice != nil {
			m.start.offer(*msg.choice)
		}
		return nil
	case tea.KeyMsg:
		return m.handleKey(msg)
	case tea.MouseMsg:
		return m.handleMouse(msg)
	case snapshotMsg:
		m.applyState(msg.state)
		if msg.periodic {
			return refreshLater(m.shift)
		}
		return nil
	case turnStartedMsg:
		m.turn.events = msg.events
		return readStream(m.shift, msg.events, streamWindow)
	case streamMsg:
		return m.handleStream(msg)
	case switchedMsg:
		m.switching = false
		if msg.err != nil {
			m.notice = notice{text: msg.err.Error(), level: noticeError}
		}
		m.applyState(msg.state)
		return m.next()
	case startedMsg:
		if msg.err != nil {
			m.start.err = msg.err.Error()
			m.notice = notice{text: msg.err.Error(), level: noticeError}
			return nil
		}
		m.overlay = overlayNone
		if msg.themeErr != nil { // the shift started: only the look stays as it was
			m.notice = notice{text: "kept the theme: " + msg.themeErr.Error(), level: noticeWarn}
		} else if msg.theme.Name != "" && msg.theme.Name != m.theme.Name {
			m.retheme(msg.theme)
		}
		m.applyState(msg.state)
		return nil
	case clearPreviewMsg:
		return m.confirmClear(msg)
	case traceMsg:
		m.inspector.SetTrace(msg.back, msg.trace, msg.found)
		return nil
	case noticeMsg:
		m.notice = notice(msg)
		return nil
	case sweepMsg:
		return m.sweepStrip()
	}
	return nil
}

// applyState shows a new snapshot in every pane.
func (m *Model) applyState(s live.ViewState) {
	newPatient := s.Patient.ID != m.state.Patient.ID
	m.ring = m.ring || s.Sounded > m.sounded
	m.sounded = max(m.sounded, s.Sounded)
	m.state = s
	m.sweep.offset = 0
	m.roster.SetState(s)
	m.chat.hint = firstScreenHint(s)
	m.chat.SetHistory(s.Chat, newPatient)
	if m.turn == nil { // a turn of this screen's own streams to it (handleStream)
		m.chat.ShowWriting(s.Writing)
	}
	m.relayout()
}

// firstScreenHint is what an empty chat says: how to begin, and that the sim clock is running
// (patients change while you read) and how to stop it.
func firstScreenHint(s live.ViewState) string {
	begin := "Type 'review patient_1' to admit and see your first patient."
	switch {
	case s.Patient.ID != "":
		begin = "No messages yet — say what you do, or ask " + s.Patient.ID + " something."
	case len(s.Roster) > 0:
		begin = fmt.Sprintf("Type 'review %s' or press alt+1 to begin.", s.Roster[0].ID)
	}
	switch {
	case s.Ended:
		return begin
	case s.Paused:
		return begin + "\nThe sim clock is paused: /pause starts it again."
	}
	return begin + "\nThe sim clock is running: patients change while you read. /pause stops it."
}

func (m *Model) handleStream(msg streamMsg) tea.Cmd {
	// The snapshot was taken after the batch, so it goes first: a patient
	// switch in the batch must not wipe the deltas that follow it. Deltas
	// of a message the snapshot already holds are dropped again below.
	if msg.state != nil {
		m.applyState(*msg.state)
	}
	for _, ev := range msg.events {
		switch ev.Kind {
		case live.UpdateDelta:
			m.chat.AppendDelta(ev.MessageID, ev.Agent, ev.Text)
		case live.UpdateNotice:
			m.notice = notice{text: ev.Text, level: noticeWarn}
		case live.UpdateError:
			m.showError(ev)
			m.turn.failed = true
		case live.UpdateConfirm:
			m.confirmLine(ev.Text, ev.Line)
		case live.UpdateWaiting:
			m.turn.ahead = ev.Ahead
		}
	}
	m.chat.dropFinishedLive()
	if !msg.done {
		return readStream(m.shift, m.turn.events, streamWindow)
	}
	m.chat.EndTurn()
	if m.turn.cancelled && !m.lastErr {
		m.notice = notice{text: "reply cancelled", level: noticeWarn}
	}
	failed := m.turn.failed
	m.turn.cancel()
	m.turn = nil
	if m.quitting {
		return tea.Quit
	}
	if failed {
		m.failed(m.notice)
	}
	return m.next()
}

// showError puts a turn's error in the status bar. Only an error that another try could mend
// (the model or the store failed) points at ctrl+r; a mistake in what was typed does not.
func (m *Model) showError(ev live.Update) {
	m.lastErr = retryable(ev.Code)
	text := ev.Text
	if m.lastErr && !strings.Contains(text, "ctrl+r") {
		text += " — ctrl+r retries"
	}
	m.notice = notice{text: text, level: noticeError}
}

func retryable(code string) bool {
	return strings.HasPrefix(code, "LLM_") || code == "MODEL_NOT_FOUND" || code == "STORAGE" || code == session.CodeNotSaved
}

func (m *Model) handleKey(msg tea.KeyMsg) tea.Cmd {
	now := m.now()
	m.readSince(now)
	defer func() { m.lastKey = now }()
	if key.Matches(msg, m.keys.Quit) {
		return m.quit()
	}
	switch m.overlay {
	case overlayStart:
		chosen := m.start.Update(msg)
		switch {
		case chosen != nil && chosen.Stay:
			m.overlay = overlayNone
		case chosen != nil:
			return startCmd(m.ctx, m.shift, chosen.ID, m.start.trainee, m.opts.StartedTheme)
		}
		return nil
	case overlayHelp:
		switch {
		case key.Matches(msg, m.keys.Close, m.keys.Help):
			m.overlay = overlayNone
		case key.Matches(msg, m.keys.Up, m.keys.Down):
			m.scrollHelp(step(msg))
		case key.Matches(msg, m.keys.PageUp):
			m.scrollHelp(-m.dialogHeight() / 2)
		case key.Matches(msg, m.keys.PageDown):
			m.scrollHelp(m.dialogHeight() / 2)
		}
		return nil
	case overlayPalette:
		return m.paletteKey(msg)
	case overlayInspector:
		return m.inspectorKey(msg)
	case overlayConfirm:
		// Until the question can be answered, and for keys that do not answer it, the key does
		// what it would do without the question: nothing typed is dropped or taken as an answer.
		if m.confirms[0].answerable(now, m.lastKey, m.input.Empty()) {
			if cmd, ok := m.confirmKey(msg); ok {
				return cmd
			}
		}
	}
	if m.searching {
		if cmd, ok := m.searchKey(msg); ok {
			return cmd
		}
	}
	if typesText(msg) {
		// Whatever has focus, typing types: the text goes to the input, which takes focus.
		if key.Matches(msg, m.keys.Help) && m.input.Empty() && m.overlay == overlayNone {
			m.overlay, m.helpOffset = overlayHelp, 0
			return nil
		}
		m.setFocus(focusInput)
		return m.input.Update(msg)
	}
	if cmd, ok := m.globalKey(msg); ok {
		return cmd
	}
	switch m.focus {
	case focusChat:
		return m.chatKey(msg)
	case focusRoster:
		return m.rosterKey(msg)
	default:
		return m.inputKey(msg)
	}
}

// onlyTypes reports whether msg is a key that can change nothing but the input: text typed
// into it while it has focus and no dialog or search is open.
func (m *Model) onlyTypes(msg tea.Msg) bool {
	k, ok := msg.(tea.KeyMsg)
	return ok && typesText(k) && m.overlay == overlayNone && !m.searching && m.focus == focusInput &&
		!key.Matches(k, m.keys.Help)
}

// typesText reports whether a key would type something: letters, digits and symbols without
// alt, space, and pastes.
func typesText(msg tea.KeyMsg) bool {
	return (msg.Type == tea.KeyRunes && !msg.Alt) || msg.Type == tea.KeySpace || msg.Paste
}

func (m *Model) quit() tea.Cmd {
	waiting := len(m.queue) + len(m.held)
	if (m.turn == nil && waiting == 0) || m.quitting {
		return tea.Quit
	}
	m.quitting = true
	m.cancelTurn()
	text := "stopping the reply — ctrl+c again quits at once"
	if n := waiting; n > 0 {
		text = fmt.Sprintf("%d queued line%s will not be sent — ctrl+c again quits", n, plural(n))
	}
	m.notice = notice{text: text, level: noticeWarn}
	return nil
}

func (m *Model) cancelTurn() {
	if m.turn != nil {
		m.turn.cancelled = true
		m.turn.cancel()
	}
}

// globalKey handles the keys that mean the same whatever has focus.
func (m *Model) globalKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Cancel):
		switch {
		case m.takeBack():
		case m.turn != nil:
			m.cancelTurn()
		case m.focus != focusInput:
			m.setFocus(focusInput)
		}
	case key.Matches(msg, k.Retry):
		return m.retry(), true
	case m.overlay == overlayConfirm && key.Matches(msg, k.Inspector, k.Palette):
		m.notice = notice{text: "answer the question first: y or n", level: noticeWarn, untilIdle: true}
	case key.Matches(msg, k.Inspector):
		return m.openInspector(), true
	case key.Matches(msg, k.Palette):
		m.palette.Open()
		m.overlay = overlayPalette
	case key.Matches(msg, k.Search):
		m.searching = true
		m.chat.SetQuery("")
	case key.Matches(msg, k.CopyChat):
		return copyChatCmd(m.ctx, m.shift, m.opts.Clipboard), true
	case key.Matches(msg, k.Patient):
		n := int(msg.Runes[0] - '0')
		return m.switchTo(m.roster.NthByID(n), fmt.Sprintf("there is no patient %d on the roster", n), msg.String()), true
	case key.Matches(msg, k.NextPat):
		return m.switchTo(m.roster.Neighbour(1), "the roster is empty", msg.String()), true
	case key.Matches(msg, k.PrevPat):
		return m.switchTo(m.roster.Neighbour(-1), "the roster is empty", msg.String()), true
	case key.Matches(msg, k.RosterOrder):
		m.roster.ToggleOrder()
	case key.Matches(msg, k.AlarmGo):
		return m.switchTo(m.alarmPatient(), "no alarm or escalation is waiting", msg.String()), true
	case key.Matches(msg, k.AlarmAck):
		return m.acknowledge(), true
	case key.Matches(msg, k.Focus):
		m.setFocus((m.focus + 1) % focusCount)
	case key.Matches(msg, k.FocusBack):
		m.setFocus((m.focus + focusCount - 1) % focusCount)
	case key.Matches(msg, k.PageUp):
		m.chat.PageUp()
		return m.olderAtTop(), true
	case key.Matches(msg, k.PageDown):
		m.chat.PageDown()
	default:
		return nil, false
	}
	return nil, true
}

func (m *Model) inputKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Send):
		return m.send()
	case key.Matches(msg, k.History) && m.input.CanRecall():
		m.input.Recall(step(msg))
	case key.Matches(msg, k.Top) && m.input.Empty():
		m.chat.Top()
		return m.olderAtTop()
	case key.Matches(msg, k.End) && m.input.Empty():
		m.chat.End()
	default:
		return m.input.Update(msg)
	}
	return nil
}

// alarmPatient is the patient the alarm key goes to: the one whose alert is the most urgent, or,
// when the trainee is already with them, the next one waiting.
func (m *Model) alarmPatient() string {
	for _, a := range m.state.Alerts {
		if a.PatientID != m.state.Patient.ID {
			return a.PatientID
		}
	}
	if len(m.state.Alerts) > 0 {
		return m.state.Alerts[0].PatientID
	}
	return ""
}
