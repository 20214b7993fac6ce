package ui

import (
	tea "github.com/charmbracelet/bubbletea"
)

// area is a part of the screen the mouse can point at.
type area int

const (
	areaNone area = iota
	areaRoster
	areaChatHead // the vitals and the chat rule above the messages
	areaChat
	areaInput
)

// wheelLines is how far one wheel step scrolls the chat.
const wheelLines = 3

// handleMouse scrolls the pane under the pointer with the wheel; a left click focuses the pane
// it lands on, switches to the patient of a roster row and selects the message it lands on.
func (m *Model) handleMouse(msg tea.MouseMsg) tea.Cmd {
	wheel := 0
	switch {
	case msg.Button == tea.MouseButtonWheelUp:
		wheel = -1
	case msg.Button == tea.MouseButtonWheelDown:
		wheel = 1
	case msg.Button != tea.MouseButtonLeft || msg.Action != tea.MouseActionPress:
		return nil
	}
	if m.width == 0 || m.lay.tooSmall {
		return nil
	}
	if m.overlay != overlayNone {
		m.overlayWheel(wheel)
		return nil
	}
	where, x, y := m.areaAt(msg.X, msg.Y)
	switch {
	case where == areaChat && wheel < 0:
		m.chat.ScrollUp(wheelLines)
		return m.olderAtTop()
	case where == areaChat && wheel > 0:
		m.chat.ScrollDown(wheelLines)
	case where == areaRoster && wheel != 0:
		m.roster.Scroll(wheel)
	case wheel != 0:
	case where == areaChat:
		m.setFocus(focusChat)
		if i := m.chat.ItemAt(y); i >= 0 && i < len(m.chat.history) {
			m.chat.Select(i)
		}
	case where == areaChatHead:
		m.setFocus(focusChat)
	case where == areaRoster:
		m.setFocus(focusRoster)
		if id := m.roster.At(x, y); id != "" {
			m.roster.selectID(id)
			return m.switchTo(id, "", "click")
		}
	case where == areaInput:
		m.setFocus(focusInput)
	}
	return nil
}

// overlayWheel scrolls the dialog that is open; clicks in dialogs do nothing, so a stray click
// never chooses for the trainee.
func (m *Model) overlayWheel(wheel int) {
	switch {
	case wheel == 0:
	case m.overlay == overlayHelp:
		m.scrollHelp(wheel * wheelLines)
	case m.overlay == overlayInspector:
		m.inspector.Scroll(wheel * wheelLines)
	case m.overlay == overlayPalette:
		m.palette.Move(wheel)
	case m.overlay == overlayStart:
		m.start.Move(wheel)
	}
}

// areaAt finds what is drawn at screen cell (x, y), and the cell's position inside that pane.
func (m *Model) areaAt(x, y int) (area, int, int) {
	l := m.lay
	top := m.header.Height()
	row := y - top
	switch {
	case row < 0:
		return areaNone, 0, 0
	case row >= l.bodyHeight+l.inputHeight:
		return areaNone, 0, 0
	case row >= l.bodyHeight:
		return areaInput, x, row - l.bodyHeight
	}
	mainX := 0
	if l.collapsed {
		if row < l.rosterHeight {
			return areaRoster, x, row
		}
		row -= l.rosterHeight
	} else {
		mainX = sidebarWidth
		if x < mainX-1 { // the roster, its margin and the bar
			return areaRoster, x - 1, row
		}
	}
	if row < l.vitalsHeight+1 {
		return areaChatHead, x - mainX, row
	}
	return areaChat, x - mainX, row - l.vitalsHeight - 1
}
