package ui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/ward-sim/ward/themes"
)

const (
	minWidth, minHeight = 60, 16
	collapseBelow       = 100 // columns under which the sidebar becomes one line
	sidebarWidth        = 30  // including its separator column
)

// layout is where each region goes for the current size.
type layout struct {
	tooSmall     bool
	collapsed    bool
	mainWidth    int
	bodyHeight   int
	rosterHeight int
	vitalsHeight int
	ecgHeight    int // the monitor's strip, under the vitals
	chatHeight   int
	inputHeight  int
	statusHeight int
}

func computeLayout(width, height, headerHeight, statusHeight int) layout {
	l := layout{tooSmall: width < minWidth || height < minHeight, collapsed: width < collapseBelow}
	l.inputHeight = 3 // rule + two lines
	if height >= 30 {
		l.inputHeight = 4
	}
	l.statusHeight = statusHeight
	l.bodyHeight = max(height-headerHeight-l.inputHeight-statusHeight, 0)
	l.vitalsHeight = 1
	if l.bodyHeight >= 24 {
		l.vitalsHeight = 2
	}
	l.mainWidth = width
	l.rosterHeight = 1
	if !l.collapsed {
		l.mainWidth = width - sidebarWidth // the sidebar's last column is the gutter
		l.rosterHeight = l.bodyHeight
	}
	l.chatHeight = l.bodyHeight - l.vitalsHeight - 1 // 1: the chat rule
	if l.collapsed {
		l.chatHeight -= l.rosterHeight
	}
	l.chatHeight = max(l.chatHeight, 1)
	return l
}

// relayout re-renders the header (its height can change) and sizes every
// pane for the current terminal.
func (m *Model) relayout() {
	if m.width == 0 {
		return
	}
	m.bodyFresh = false
	m.header.SetSize(m.width)
	m.header.Render(m.state)
	m.status.SetSize(m.width)
	m.lay = computeLayout(m.width, m.height, m.header.Height(), m.status.Height(m.notice, m.activity(), m.hints()))
	m.lay.ecgHeight = ecgRows(m.lay.chatHeight, m.state.ECG != nil)
	m.lay.chatHeight = max(m.lay.chatHeight-m.lay.ecgHeight, 1)
	l := m.lay
	m.roster.SetSize(m.rosterWidth(), l.rosterHeight, l.collapsed)
	m.vitals.SetSize(l.mainWidth, l.vitalsHeight)
	m.vitals.Render(m.state)
	m.ecg.SetSize(l.mainWidth, l.ecgHeight)
	m.ecg.Render(m.state.ECG, m.state.Clock)
	m.chat.SetSize(l.mainWidth, l.chatHeight)
	m.input.SetSize(m.width, l.inputHeight)
	m.inspector.SetSize(m.width-4, m.dialogHeight()+1) // its box is one line shorter than its size
}

func (m *Model) rosterWidth() int {
	if m.lay.collapsed {
		return m.width
	}
	return sidebarWidth - 4 // margin, roster, gap, bar, gutter
}

func (m *Model) View() string {
	return m.painter.paint(m.frame())
}

func (m *Model) frame() string {
	switch {
	case m.width == 0:
		return ""
	case m.lay.tooSmall:
		return m.tooSmallView()
	case m.overlay == overlayStart:
		// Nothing behind the start dialog means anything yet: it is drawn on an empty screen.
		return lipgloss.Place(m.width, m.height, lipgloss.Center, lipgloss.Center, m.start.View(m.width))
	}
	// Every pane draws exactly its width, so the screen is joined without
	// measuring lines again: that measuring was most of a frame's cost.
	screen := strings.Join([]string{m.header.View(), m.bodyView(), m.input.View(),
		m.status.View(m.state, m.notice, m.activity(), m.hints())}, "\n")
	top, height := m.header.Height(), m.dialogHeight()
	switch m.overlay {
	case overlayHelp:
		help, _ := helpView(&m.theme, m.keys, m.width-4, height, m.helpOffset)
		screen = overlay(screen, help, m.width, top, height)
	case overlayConfirm:
		screen = overlay(screen, m.confirms[0].View(m.width, !m.input.Empty()), m.width, top, height)
	case overlayPalette:
		screen = overlay(screen, m.palette.View(m.width, height), m.width, top, height)
	case overlayInspector:
		screen = overlay(screen, m.inspector.View(), m.width, top, height)
	}
	return screen
}

// dialogHeight is the room between the header and the status bar.
func (m *Model) dialogHeight() int { return m.height - m.header.Height() - m.lay.statusHeight }

// bodyView is the body as last drawn when nothing it shows has changed since.
func (m *Model) bodyView() string {
	if !m.bodyFresh {
		m.body, m.bodyFresh = m.drawBody(), true
	}
	return m.body
}

func (m *Model) drawBody() string {
	parts := []string{m.vitals.View(), m.chatRule(), m.chat.View()}
	if strip := m.ecg.View(); strip != "" {
		parts = slices.Insert(parts, 1, strip)
	}
	main := strings.Join(parts, "\n")
	if m.lay.collapsed {
		return m.roster.View() + "\n" + main
	}
	sep := m.theme.Muted
	if m.focus == focusRoster {
		sep = m.theme.Accent
	}
	bar := " " + sep.Render("│") + " "
	roster := strings.Split(m.roster.View(), "\n")
	var b strings.Builder
	for i, line := range strings.Split(main, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteByte(' ')
		b.WriteString(roster[i])
		b.WriteString(bar)
		b.WriteString(line)
	}
	return b.String()
}

func (m *Model) chatRule() string {
	if m.searching {
		return m.searchBar()
	}
	k := chatRuleKey{width: m.lay.mainWidth, focused: m.focus == focusChat, following: m.chat.Following()}
	if m.rule.view == "" || m.rule.key != k {
		m.rule.key, m.rule.view = k, m.drawChatRule(k)
	}
	return m.rule.view
}

// chatRuleKey is what the chat's rule is drawn from: the body is redrawn at every snapshot of a
// turn, its rule only when one of these changes.
type chatRuleKey struct {
	width              int
	focused, following bool
}

func (m *Model) drawChatRule(k chatRuleKey) string {
	style := m.theme.Muted
	if k.focused {
		style = m.theme.Accent
	}
	label := "─ chat "
	if !k.following {
		label = "─ chat (scrolled; end follows) "
	}
	return style.Render(label + strings.Repeat("─", max(k.width-lipgloss.Width(label), 0)))
}

// searchBar takes the chat rule's place while a search is open: the query, where it is, and
// the keys.
func (m *Model) searchBar() string {
	t := &m.theme
	status := m.chat.search.Status()
	if status != "" {
		status = "  " + status
	}
	left := t.Accent.Render("─ search: ") + t.Text.Render(themes.Printable(m.chat.search.query)) + t.Accent.Render("▏") +
		t.Muted.Render(status)
	right := t.Muted.Render(" ↑ older · ↓ newer · esc ends ─")
	room := m.lay.mainWidth - lipgloss.Width(right)
	if lipgloss.Width(left) > room {
		return fit(left, m.lay.mainWidth)
	}
	return left + t.Accent.Render(strings.Repeat("─", max(room-lipgloss.Width(left), 0))) + right
}

func (m *Model) tooSmallView() string {
	msg := fmt.Sprintf("Terminal too small: ward needs %d×%d, this is %d×%d.\nEnlarge the window, or press ctrl+c to quit.",
		minWidth, minHeight, m.width, m.height)
	lines := strings.Split(wrap(msg, min(m.width, 60)), "\n")
	lines = lines[:min(len(lines), m.height)]
	for i, l := range lines {
		lines[i] = m.theme.Warn.Render(l)
	}
	return lipgloss.Place(m.width, m.height, lipgloss.Center, lipgloss.Center, strings.Join(lines, "\n"))
}

// hints are the status-bar key hints for what the user is doing now.
func (m *Model) hints() hintSet {
	h := &m.hintSets
	switch {
	case m.overlay == overlayConfirm:
		return h.confirm
	case m.overlay != overlayNone:
		return h.dialog
	case m.searching:
		return h.search
	case m.turn != nil || len(m.queue) > 0:
		return h.busy
	case len(m.held) > 0:
		return h.held
	case m.lastErr:
		return h.retry
	}
	if len(m.state.Alerts) > 0 {
		return h.alert
	}
	switch m.focus {
	case focusChat:
		return h.chat
	case focusRoster:
		return h.roster
	}
	return h.input
}

// hintSets are the status bar's key hints for each thing the user may be doing, made once from
// the keys.
type hintSets struct {
	confirm, dialog, search, busy, held, retry, alert, chat, roster, input hintSet
}

func newHintSets(k keyMap) hintSets {
	return hintSets{
		confirm: newHintSet(k.Yes, k.No),
		dialog:  newHintSet(k.Close),
		search:  newHintSet(k.SearchPrev, k.SearchNext, k.Close),
		busy:    newHintSet(k.Cancel, k.Quit),
		held:    newHintSet(k.Release, k.Cancel),
		retry:   newHintSet(k.Retry, k.Help),
		alert:   newHintSet(k.AlarmGo, k.AlarmAck, k.Send, k.Help),
		chat:    newHintSet(k.SelectMessage, k.CopyMessage, k.CopyChat, k.Search, k.Focus),
		roster:  newHintSet(k.RosterSwitch, k.RosterOrder, k.Patient, k.Focus),
		input:   newHintSet(k.Send, k.Patient, k.Search, k.Palette, k.Help),
	}
}
