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
	"github.com/ward-sim/ward/themes"
)

// Options configure the UI. main fills them from flags and from session.
type Options struct {
	Theme       themes.Theme
	Commands    []Command // slash commands, for the palette
	StartShifts []Shift   // when not nil, open with the start dialog offering these
	SaveDir     string    // where the inspector saves prompts; "" is the working directory
	Clipboard   io.Writer // where OSC 52 is written; nil is stderr
	Notice      string    // shown in the status bar at start, e.g. why the offline backend is in use
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
)

// turn is the generation in progress. The model keeps reading its channel
// until the engine closes it, even after a cancel, so the engine is never
// left blocked on a send.
type turn struct {
	cancel    context.CancelFunc
	events    <-chan session.Update
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
	state         session.ViewState

	header    headerPane
	roster    rosterPane
	vitals    vitalsPane
	chat      chatPane
	input     inputPane
	status    statusPane
	palette   palette
	inspector inspector
	start     startDialog

	focus    focusArea
	overlay  overlayKind
	turn     *turn
	quitting bool // ctrl+c was pressed while generating
	notice   notice
	lastErr  bool // the last turn failed: hint at ctrl+r
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
	keys := newKeyMap()
	m := &Model{
		engine:    engine,
		opts:      opts,
		theme:     t,
		keys:      keys,
		ctx:       context.Background(),
		header:    headerPane{theme: t},
		roster:    rosterPane{theme: t},
		vitals:    vitalsPane{theme: t},
		chat:      newChatPane(t),
		input:     newInputPane(t),
		status:    newStatusPane(t),
		palette:   palette{theme: t, keys: keys, commands: opts.Commands},
		inspector: inspector{theme: t, keys: keys},
		start:     startDialog{theme: t, keys: keys, shifts: opts.StartShifts},
	}
	if opts.StartShifts != nil {
		m.overlay = overlayStart
	}
	if opts.Notice != "" {
		m.notice = notice{text: opts.Notice, level: noticeWarn}
	}
	m.input.Focus()
	m.applyState(session.ViewState{})
	return m
}

func (m *Model) Init() tea.Cmd {
	return tea.Batch(fetchSnapshot(m.engine), refreshLater(m.engine))
}

func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.relayout()
		return m, nil
	case tea.KeyMsg:
		return m, m.handleKey(msg)
	case snapshotMsg:
		m.applyState(msg.state)
		if msg.periodic {
			return m, refreshLater(m.engine)
		}
		return m, nil
	case turnStartedMsg:
		m.turn.events = msg.events
		return m, readStream(m.engine, msg.events, streamWindow)
	case streamMsg:
		return m, m.handleStream(msg)
	case switchedMsg:
		if msg.err != nil {
			m.notice = notice{text: msg.err.Error(), level: noticeError}
		}
		m.applyState(msg.state)
		return m, nil
	case startedMsg:
		if msg.err != nil {
			m.notice = notice{text: msg.err.Error(), level: noticeError}
			return m, nil
		}
		m.overlay = overlayNone
		m.applyState(msg.state)
		return m, nil
	case traceMsg:
		m.inspector.SetTrace(msg.back, msg.trace, msg.found)
		return m, nil
	case noticeMsg:
		m.notice = notice(msg)
		return m, nil
	}
	return m, nil
}

// applyState shows a new snapshot in every pane.
func (m *Model) applyState(s session.ViewState) {
	newPatient := s.Patient.ID != m.state.Patient.ID
	m.state = s
	m.roster.SetState(s)
	m.chat.hint = firstScreenHint(s)
	m.chat.SetHistory(s.Chat, newPatient)
	m.relayout()
}

func firstScreenHint(s session.ViewState) string {
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
		case session.UpdateDelta:
			m.chat.AppendDelta(ev.MessageID, ev.Agent, ev.Text)
		case session.UpdateNotice:
			m.notice = notice{text: ev.Text, level: noticeWarn}
		case session.UpdateError:
			m.notice = notice{text: ev.Text + " — ctrl+r retries", level: noticeError}
			m.lastErr = true
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
	return nil
}

func (m *Model) handleKey(msg tea.KeyMsg) tea.Cmd {
	if key.Matches(msg, m.keys.Quit) {
		return m.quit()
	}
	if isText(msg) && m.overlay == overlayNone && m.focus == focusInput {
		return m.input.Update(msg)
	}
	switch m.overlay {
	case overlayStart:
		if shift := m.start.Update(msg); shift != nil {
			return startCmd(m.ctx, m.engine, shift.ID)
		}
		return nil
	case overlayHelp:
		if key.Matches(msg, m.keys.Close, m.keys.Help) {
			m.overlay = overlayNone
		}
		return nil
	case overlayPalette:
		return m.paletteKey(msg)
	case overlayInspector:
		return m.inspectorKey(msg)
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
	case key.Matches(msg, k.Patient):
		n := int(msg.Runes[0] - '0')
		return m.switchTo(m.roster.NthByID(n), fmt.Sprintf("there is no patient %d on the roster", n)), true
	case key.Matches(msg, k.NextPat):
		return m.switchTo(m.roster.Neighbour(1), "the roster is empty"), true
	case key.Matches(msg, k.PrevPat):
		return m.switchTo(m.roster.Neighbour(-1), "the roster is empty"), true
	case key.Matches(msg, k.Focus):
		m.setFocus((m.focus + 1) % focusCount)
	case key.Matches(msg, k.FocusBack):
		m.setFocus((m.focus + focusCount - 1) % focusCount)
	case key.Matches(msg, k.PageUp):
		m.chat.PageUp()
		return m.olderAtTop(), true
	case key.Matches(msg, k.PageDown):
		m.chat.PageDown()
	case key.Matches(msg, k.Help) && (m.focus != focusInput || m.input.Empty()):
		m.overlay = overlayHelp
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

func (m *Model) chatKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Scroll) && upward(msg):
		m.chat.ScrollUp(1)
		return m.olderAtTop()
	case key.Matches(msg, k.Scroll):
		m.chat.ScrollDown(1)
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
	case key.Matches(msg, k.RosterOrder):
		m.roster.ToggleOrder()
	case key.Matches(msg, k.RosterSwitch):
		return m.switchTo(m.roster.Selected(), "the roster is empty")
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
	switch m.inspector.Update(msg) {
	case inspectClose:
		m.overlay = overlayNone
	case inspectOlder:
		return m.loadTrace(m.inspector.back + 1)
	case inspectNewer:
		return m.loadTrace(max(m.inspector.back-1, 0))
	case inspectCopy:
		if call, _, ok := m.inspector.Selected(); ok {
			return copyCmd(m.opts.Clipboard, promptText(call))
		}
	case inspectSave:
		if call, n, ok := m.inspector.Selected(); ok {
			return saveCmd(m.opts.SaveDir, m.inspector.trace.Turn, n, promptText(call))
		}
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

// send starts a turn with the input's text.
func (m *Model) send() tea.Cmd {
	text := strings.TrimSpace(m.input.Value())
	switch {
	case text == "":
		return nil
	case m.turn != nil:
		m.notice = notice{text: "a reply is still coming — esc cancels it", level: noticeWarn}
		return nil
	}
	m.input.Sent(text)
	m.chat.End()
	if text == "/inspect" {
		return m.openInspector()
	}
	return m.startTurn(func(ctx context.Context) tea.Cmd { return submitCmd(ctx, m.engine, text) })
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

// switchTo changes the active patient by keyboard. missing explains an
// empty id.
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

func (m *Model) setFocus(f focusArea) {
	m.focus = f
	m.roster.SetFocused(f == focusRoster)
	if f == focusInput {
		m.input.Focus()
	} else {
		m.input.Blur()
	}
}
