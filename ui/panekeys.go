package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/ward-sim/ward/themes"
)

// The keys of each pane and dialog, once the model has routed a key to it: the chat, the roster,
// the search, the palette and the inspector.

// chatKey moves the message selection and copies the selected message.
func (m *Model) chatKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.SelectMessage) && upward(msg):
		if m.chat.selected <= 0 && m.state.ChatMore {
			return loadOlderCmd(m.ctx, m.shift) // the selection stays on its message as they arrive
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
	return loadOlderCmd(m.ctx, m.shift)
}

func (m *Model) rosterKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.RosterMove):
		m.roster.Move(step(msg))
	case key.Matches(msg, k.RosterSwitch):
		id := m.roster.Selected()
		m.setFocus(focusInput) // the next thing is to talk to them
		return m.switchTo(id, "the roster is empty", "roster")
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
		return loadOlderCmd(m.ctx, m.shift)
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
	return traceCmd(m.shift, back)
}

// scrollHelp moves the help overlay delta lines, within what it has to show.
func (m *Model) scrollHelp(delta int) {
	_, most := helpView(&m.theme, m.keys, m.width-4, m.dialogHeight(), 0)
	m.helpOffset = min(max(m.helpOffset+delta, 0), most)
}

// setFocus moves the keyboard to pane f: the roster shows it is focused, the chat its selection.
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
