package ui

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/live"
	"github.com/ward-sim/ward/themes"
)

// Options configure the UI. main fills them from flags and from session.
type Options struct {
	Theme       themes.Theme
	StartShifts []Shift // when not nil, open with the start dialog offering these
	Trainee     string  // whose shift the start dialog starts
	// TraineeFixed: the start dialog may not change the trainee (their passphrase opened ward).
	TraineeFixed bool
	SaveDir      string    // where the inspector saves prompts; "" is the working directory
	Clipboard    io.Writer // where OSC 52 is written; nil is stderr
	Notice       string    // shown in the status bar at start, e.g. why the offline backend is in use
	// Bell is where the terminal bell is rung when an alarm or escalation sounds; nil rings none.
	Bell io.Writer
	// StartedTheme is the theme of the trainee the start dialog has just started a shift for, who
	// may prefer another than the person ward opened as; nil keeps the theme.
	StartedTheme func() (themes.Theme, error)
}

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
}

// Model is the one Bubble Tea model. It owns all state; the panes are
// plain structs it sizes, feeds and draws.
type Model struct {
	engine Engine
	opts   Options
	theme  themes.Theme
	keys   keyMap
	ctx    context.Context

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
	confirm   confirmDialog

	focus      focusArea
	overlay    overlayKind
	searching  bool // the chat rule is the search bar and typing goes to the query
	helpOffset int  // first line of the help overlay, when it scrolls
	turn       *turn
	queued     string // a line to send once the turn running now ends (a confirmed admission)
	quitting   bool   // ctrl+c was pressed while generating
	notice     notice
	lastErr    bool // the last turn failed in a way worth retrying: hint at ctrl+r
	sounded    int  // the snapshot's count of alarms sounded, when last seen
	ring       bool // an alarm sounded since the last Update: ring the bell
}

// buildPanes makes every pane draw with theme t. The panes hold nothing but the theme until
// the first snapshot and size reach them.
func (m *Model) buildPanes(t themes.Theme) {
	m.theme = t
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
	m.input.ta.SetValue(typed)
	m.input.setHeld(held)
	m.input.Focus()
	m.relayout()
}

// New builds the model. It does not touch the engine: the first snapshot
// arrives through Init's Cmd.
func New(engine Engine, opts Options) *Model {
	t := opts.Theme
	if t.Name == "" {
		t, _ = themes.New("", false)
	}
	if opts.Clipboard == nil {
		opts.Clipboard = os.Stderr
	}
	m := &Model{engine: engine, opts: opts, keys: newKeyMap(), ctx: context.Background()}
	m.buildPanes(t)
	if opts.StartShifts != nil {
		m.overlay = overlayStart
	}
	if opts.Notice != "" {
		m.notice = notice{text: opts.Notice, level: noticeWarn}
	}
	m.input.Focus()
	m.applyState(live.ViewState{})
	return m
}

func (m *Model) Init() tea.Cmd {
	return tea.Batch(fetchSnapshot(m.engine), refreshLater(m.engine))
}

func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	// A notice or hint that no longer fits on the status line takes lines from the chat.
	if m.width > 0 && m.status.Height(m.notice, m.hints()) != m.lay.statusHeight {
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

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.relayout()
		return nil
	case tea.KeyMsg:
		return m.handleKey(msg)
	case tea.MouseMsg:
		return m.handleMouse(msg)
	case snapshotMsg:
		m.applyState(msg.state)
		if msg.periodic {
			return refreshLater(m.engine)
		}
		return nil
	case turnStartedMsg:
		m.turn.events = msg.events
		return readStream(m.engine, msg.events, streamWindow)
	case streamMsg:
		return m.handleStream(msg)
	case switchedMsg:
		if msg.err != nil {
			m.notice = notice{text: msg.err.Error(), level: noticeError}
		}
		m.applyState(msg.state)
		return nil
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
	m.relayout()
}

func firstScreenHint(s live.ViewState) string {
	switch {
	case s.Patient.ID != "":
		return "No messages yet — say what you do, or ask " + s.Patient.ID + " something."
	case len(s.Roster) > 0:
		return fmt.Sprintf("Type 'review %s' or press alt+1 to begin.", s.Roster[0].ID)
	}
	return "Type 'review patient_1' to admit and see your first patient."
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
		case live.UpdateConfirm:
			m.confirmLine(ev.Text, ev.Line)
		}
	}
	m.chat.dropFinishedLive()
	if !msg.done {
		return readStream(m.engine, m.turn.events, streamWindow)
	}
	m.chat.EndTurn()
	if m.turn.cancelled && !m.lastErr {
		m.notice = notice{text: "reply cancelled", level: noticeWarn}
	}
	m.turn.cancel()
	m.turn = nil
	if m.quitting {
		return tea.Quit
	}
	if line := m.queued; line != "" {
		m.queued = ""
		return m.sendLine(line)
	}
	return nil
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
	if key.Matches(msg, m.keys.Quit) {
		return m.quit()
	}
	switch m.overlay {
	case overlayStart:
		if shift := m.start.Update(msg); shift != nil {
			return startCmd(m.ctx, m.engine, shift.ID, m.start.trainee, m.opts.StartedTheme)
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
		return m.confirmKey(msg)
	}
	if m.searching {
		if cmd, ok := m.searchKey(msg); ok {
			return cmd
		}
	}
	if typesText(msg) {
		// Whatever has focus, typing types: the text goes to the input, which takes focus.
		if key.Matches(msg, m.keys.Help) && m.input.Empty() {
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

// typesText reports whether a key would type something: letters, digits and symbols without
// alt, space, and pastes.
func typesText(msg tea.KeyMsg) bool {
	return (msg.Type == tea.KeyRunes && !msg.Alt) || msg.Type == tea.KeySpace || msg.Paste
}

// scrollHelp moves the help overlay delta lines, within what it has to show.
func (m *Model) scrollHelp(delta int) {
	_, most := helpView(m.theme, m.keys, m.width-4, m.dialogHeight(), 0)
	m.helpOffset = min(max(m.helpOffset+delta, 0), most)
}

func (m *Model) quit() tea.Cmd {
	if m.turn == nil || m.quitting {
		return tea.Quit
	}
	m.quitting = true
	m.cancelTurn()
	m.notice = notice{text: "stopping the reply — ctrl+c again quits at once", level: noticeWarn}
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
		if m.turn != nil {
			m.cancelTurn()
			m.notice = notice{text: "cancelling…", level: noticeWarn}
		} else if m.focus != focusInput {
			m.setFocus(focusInput)
		}
	case key.Matches(msg, k.Retry):
		return m.retry(), true
	case key.Matches(msg, k.Inspector):
		return m.openInspector(), true
	case key.Matches(msg, k.Palette):
		m.palette.Open()
		m.overlay = overlayPalette
	case key.Matches(msg, k.Search):
		m.searching = true
		m.chat.SetQuery("")
	case key.Matches(msg, k.CopyChat):
		return copyChatCmd(m.ctx, m.engine, m.opts.Clipboard), true
	case key.Matches(msg, k.Patient):
		n := int(msg.Runes[0] - '0')
		return m.switchTo(m.roster.NthByID(n), fmt.Sprintf("there is no patient %d on the roster", n)), true
	case key.Matches(msg, k.NextPat):
		return m.switchTo(m.roster.Neighbour(1), "the roster is empty"), true
	case key.Matches(msg, k.PrevPat):
		return m.switchTo(m.roster.Neighbour(-1), "the roster is empty"), true
	case key.Matches(msg, k.RosterOrder):
		m.roster.ToggleOrder()
	case key.Matches(msg, k.AlarmGo):
		return m.switchTo(m.alarmPatient(), "no alarm or escalation is waiting"), true
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

// chatKey moves the message selection and copies the selected message.
func (m *Model) chatKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.SelectMessage) && upward(msg):
		if m.chat.selected <= 0 && m.state.ChatMore {
			return loadOlderCmd(m.ctx, m.engine) // the selection stays on its message as they arrive
		}
		m.chat.Select(m.chat.selected - 1)
	case key.Matches(msg, k.SelectMessage):
		m.chat.Select(m.chat.selected + 1)
	case key.Matches(msg, k.CopyMessage):
		if sel, ok := m.chat.Selected(); ok {
			return copyCmd(m.opts.Clipboard, "message", themes.Printable(sel.Content))
		}
	case key.Matches(msg, k.Top):
		m.chat.Top()
		return m.olderAtTop()
	case key.Matches(msg, k.End):
		m.chat.End()
	}
	return nil
}

// olderAtTop asks for the page of older messages once the view reaches the oldest one loaded:
// a switch loads only the newest page, so a long history comes in as the trainee scrolls back.
func (m *Model) olderAtTop() tea.Cmd {
	if !m.state.ChatMore || !m.chat.AtTop() {
		return nil
	}
	return loadOlderCmd(m.ctx, m.engine)
}

func (m *Model) rosterKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.RosterMove):
		m.roster.Move(step(msg))
	case key.Matches(msg, k.RosterSwitch):
		id := m.roster.Selected()
		m.setFocus(focusInput) // the next thing is to talk to them
		return m.switchTo(id, "the roster is empty")
	}
	return nil
}

// searchKey handles a key while the search is open: typing edits the query, ↑ and ↓ walk the
// matches, esc ends it. Keys it does not use (page keys, alt+N…) keep their usual meaning.
func (m *Model) searchKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := m.keys
	q := m.chat.search.query
	switch {
	case key.Matches(msg, k.Close):
		m.searching = false
		m.chat.EndSearch()
	case key.Matches(msg, k.SearchPrev):
		return m.previousMatch(), true
	case key.Matches(msg, k.SearchNext), key.Matches(msg, k.Search):
		if m.chat.NextMatch(1) {
			m.notice = notice{text: "search went round to the oldest match"}
		}
	case msg.Type == tea.KeyBackspace:
		if r := []rune(q); len(r) > 0 {
			m.chat.SetQuery(string(r[:len(r)-1]))
		}
	case typesText(msg):
		m.chat.SetQuery(q + strings.ReplaceAll(lineEnds.Replace(string(msg.Runes)), "\n", " "))
	default:
		return nil, false
	}
	return nil, true
}

// previousMatch walks to an older match. At the oldest one held, older messages are loaded first,
// so the search reaches back through the whole conversation.
func (m *Model) previousMatch() tea.Cmd {
	if m.chat.AtFirstMatch() && m.state.ChatMore {
		m.notice = notice{text: "loading older messages — ↑ again searches them"}
		return loadOlderCmd(m.ctx, m.engine)
	}
	if m.chat.NextMatch(-1) {
		m.notice = notice{text: "search went round to the newest match"}
	}
	return nil
}

func (m *Model) paletteKey(msg tea.KeyMsg) tea.Cmd {
	chosen, done := m.palette.Update(msg)
	if done {
		m.overlay = overlayNone
	}
	if chosen == nil {
		return nil
	}
	m.setFocus(focusInput)
	if chosen.Args != "" {
		m.input.SetValue(chosen.Name + " ")
		return nil
	}
	m.input.SetValue(chosen.Name)
	return m.send()
}

func (m *Model) inspectorKey(msg tea.KeyMsg) tea.Cmd {
	switch action := m.inspector.Update(msg); action {
	case inspectClose:
		m.overlay = overlayNone
	case inspectOlder:
		return m.loadTrace(m.inspector.back + 1)
	case inspectNewer:
		return m.loadTrace(max(m.inspector.back-1, 0))
	case inspectCopy, inspectSave:
		return m.inspector.export(action, m.opts)
	}
	return nil
}

func (m *Model) openInspector() tea.Cmd {
	if m.overlay == overlayInspector {
		m.overlay = overlayNone
		return nil
	}
	m.overlay = overlayInspector
	return m.loadTrace(0)
}

func (m *Model) loadTrace(back int) tea.Cmd {
	m.inspector.Loading(back)
	return traceCmd(m.engine, back)
}

// send starts a turn with the input's text. A clear is asked about first; /inspect and /export
// are the screen's own.
func (m *Model) send() tea.Cmd {
	text := strings.TrimSpace(m.input.Value())
	switch {
	case text == "":
		return nil
	case m.turn != nil:
		m.notice = notice{text: "a reply is still coming — esc cancels it", level: noticeWarn}
		return nil
	case session.IsClearRequest(text):
		return clearPreviewCmd(m.ctx, m.engine, text) // the text stays in the input until the answer
	}
	m.input.Sent(text)
	name, arg, _ := strings.Cut(text, " ")
	switch name { // the commands the screen answers itself (session.Command.Screen)
	case session.CmdInspect:
		return m.openInspector()
	case session.CmdExport:
		return exportCmd(m.ctx, m.engine, m.opts.SaveDir, strings.TrimSpace(arg))
	}
	return m.sendLine(text)
}

// sendLine starts a turn for text, or queues it behind the turn running now: a confirmed line
// can arrive while the turn that asked is still ending.
func (m *Model) sendLine(text string) tea.Cmd {
	if m.turn != nil {
		m.queued = text
		return nil
	}
	m.chat.End()
	return m.startTurn(func(ctx context.Context) tea.Cmd { return submitCmd(ctx, m.engine, text) })
}

// confirmClear asks before a clear, saying what it archives and how to get it back. A shift
// with nothing in it is cleared without asking.
func (m *Model) confirmClear(msg clearPreviewMsg) tea.Cmd {
	if msg.err != nil {
		m.notice = notice{text: "could not count what a clear would archive: " + msg.err.Error(), level: noticeError}
		return nil
	}
	p, text := msg.preview, msg.text
	send := func() tea.Cmd {
		m.input.Sent(text)
		return m.sendLine(text)
	}
	if p.Patients == 0 && p.Messages == 0 {
		return send()
	}
	m.confirm = confirmDialog{theme: m.theme, title: "Clear the whole shift?", yesLabel: "archive and clear", onYes: send,
		body: []string{
			fmt.Sprintf("%d patient%s and %d message%s will be archived as archive %d, and the shift goes on with no patient.",
				p.Patients, plural(p.Patients), p.Messages, plural(p.Messages), p.Archive),
			fmt.Sprintf("To bring them back, quit ward and run: ward archive restore %d", p.Archive),
		}}
	m.overlay = overlayConfirm
	return nil
}

// confirmLine asks the trainee the session's question; yes sends line as a turn of its own.
func (m *Model) confirmLine(question, line string) {
	m.confirm = confirmDialog{theme: m.theme, title: "Are you sure?", body: []string{question},
		yesLabel: "yes: " + line, onYes: func() tea.Cmd { return m.sendLine(line) }}
	m.overlay = overlayConfirm
}

func (m *Model) confirmKey(msg tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Yes):
		m.overlay = overlayNone
		return m.confirm.onYes()
	case key.Matches(msg, m.keys.No):
		m.overlay = overlayNone
		m.notice = notice{text: "nothing was changed"}
	}
	return nil
}

func (m *Model) retry() tea.Cmd {
	if m.turn != nil {
		m.notice = notice{text: "a reply is still coming — esc cancels it", level: noticeWarn}
		return nil
	}
	m.chat.End()
	return m.startTurn(func(ctx context.Context) tea.Cmd { return retryCmd(ctx, m.engine) })
}

func (m *Model) startTurn(run func(context.Context) tea.Cmd) tea.Cmd {
	ctx, cancel := context.WithCancel(m.ctx)
	m.turn = &turn{cancel: cancel}
	m.notice, m.lastErr = notice{}, false
	return run(ctx)
}

// switchTo changes the active patient by keyboard or mouse. missing explains an empty id.
func (m *Model) switchTo(id, missing string) tea.Cmd {
	switch {
	case id == "":
		m.notice = notice{text: missing, level: noticeWarn}
		return nil
	case id == m.state.Patient.ID:
		return nil
	case m.turn != nil:
		m.notice = notice{text: "finish or cancel (esc) the reply before switching", level: noticeWarn}
		return nil
	}
	m.notice = notice{}
	return switchCmd(m.ctx, m.engine, id)
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

// acknowledge acknowledges the alerts waiting on the active patient, as /ack does.
func (m *Model) acknowledge() tea.Cmd {
	switch {
	case m.turn != nil:
		m.notice = notice{text: "a reply is still coming — esc cancels it", level: noticeWarn}
		return nil
	case m.state.Patient.ID == "":
		m.notice = notice{text: "no patient is active — alt+a goes to the alarm first", level: noticeWarn}
		return nil
	}
	return m.sendLine(session.CmdAck)
}

func (m *Model) setFocus(f focusArea) {
	if f == m.focus {
		return
	}
	m.focus = f
	m.roster.SetFocused(f == focusRoster)
	m.chat.showSel = f == focusChat
	if f == focusChat {
		m.chat.SelectVisible()
	}
	if f == focusInput {
		m.input.Focus()
	} else {
		m.input.Blur()
	}
}
