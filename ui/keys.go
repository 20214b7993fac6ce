package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// keyMap is every binding the UI answers to. The help overlay and the
// status-bar hints are generated from it, so a binding's help text is the
// only place its description lives.
//
// Outside the input only keys that type nothing are bound: a letter typed
// while the chat or the roster has focus goes to the input.
type keyMap struct {
	Send, Newline, Release      key.Binding
	History                     key.Binding
	Patient, NextPat, PrevPat   key.Binding
	AlarmGo, AlarmAck           key.Binding
	Focus, FocusBack            key.Binding
	RosterMove                  key.Binding
	RosterSwitch, RosterOrder   key.Binding
	SelectMessage, CopyMessage  key.Binding
	CopyChat                    key.Binding
	Search, SearchNext          key.Binding
	SearchPrev                  key.Binding
	PageUp, PageDown, Top, End  key.Binding
	Cancel, Retry               key.Binding
	Inspector, Palette, Help    key.Binding
	Quit                        key.Binding
	Fold, Copy, Save            key.Binding
	OlderTurn, NewerTurn, Close key.Binding
	Choose, Up, Down            key.Binding
	Yes, No                     key.Binding
}

func newKeyMap() keyMap {
	return keyMap{
		Send:          bind("enter", "send", "enter"),
		Newline:       bind("ctrl+j", "newline", "ctrl+j"),
		Release:       bind("enter", "send held lines on (empty input)", "enter"),
		History:       bind("↑/↓", "earlier/later input", "up", "down"),
		Patient:       bind("alt+1…9", "patient N", "alt+1", "alt+2", "alt+3", "alt+4", "alt+5", "alt+6", "alt+7", "alt+8", "alt+9"),
		NextPat:       bind("ctrl+n", "next patient", "ctrl+n"),
		PrevPat:       bind("ctrl+p", "previous patient", "ctrl+p"),
		AlarmGo:       bind("alt+a", "go to alarm", "alt+a"),
		AlarmAck:      bind("alt+k", "acknowledge", "alt+k"),
		Focus:         bind("tab", "focus input/chat/roster", "tab"),
		FocusBack:     bind("shift+tab", "focus back", "shift+tab"),
		RosterMove:    bind("↑/↓", "select patient", "up", "down"),
		RosterSwitch:  bind("enter", "switch to selected", "enter"),
		RosterOrder:   bind("alt+o", "order roster by acuity/ID", "alt+o"),
		SelectMessage: bind("↑/↓", "select message", "up", "down"),
		CopyMessage:   bind("enter", "copy message", "enter"),
		CopyChat:      bind("ctrl+y", "copy chat as markdown", "ctrl+y"),
		Search:        bind("ctrl+f", "search chat", "ctrl+f"),
		SearchNext:    bind("↓/enter", "next (newer) match", "down", "enter", "ctrl+n"),
		SearchPrev:    bind("↑", "previous (older) match", "up", "ctrl+p"),
		PageUp:        bind("pgup", "page up", "pgup"),
		PageDown:      bind("pgdn", "page down", "pgdown"),
		Top:           bind("home", "oldest", "home"),
		End:           bind("end", "newest, follow", "end"),
		Cancel:        bind("esc", "take back queued line / cancel reply", "esc"),
		Retry:         bind("ctrl+r", "retry last turn", "ctrl+r"),
		Inspector:     bind("ctrl+o", "prompt inspector", "ctrl+o"),
		Palette:       bind("ctrl+k", "commands", "ctrl+k"),
		Help:          bind("?", "help", "?"),
		Quit:          bind("ctrl+c", "quit (twice: force)", "ctrl+c"),
		Fold:          bind("enter", "fold/unfold", "enter", " "),
		Copy:          bind("c", "copy prompt (OSC 52)", "c"),
		Save:          bind("s", "save prompt to file", "s"),
		OlderTurn:     bind("[/←", "older turn", "[", "left"),
		NewerTurn:     bind("]/→", "newer turn", "]", "right"),
		Close:         bind("esc", "close", "esc"),
		Choose:        bind("enter", "choose", "enter"),
		Up:            bind("↑", "up", "up", "ctrl+p"),
		Down:          bind("↓", "down", "down", "ctrl+n"),
		Yes:           bind("y", "yes", "y", "Y"),
		No:            bind("n/esc", "no", "n", "N", "esc"),
	}
}

func bind(helpKey, desc string, keys ...string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(helpKey, desc))
}

// HelpGroup is one titled block of the help overlay.
type HelpGroup struct {
	Title    string
	Bindings []key.Binding
}

// KeyHelp is the help overlay's keys, group by group: docs/reference.md lists them from here.
func KeyHelp() []HelpGroup { return newKeyMap().helpGroups() }

func (k keyMap) helpGroups() []HelpGroup {
	return []HelpGroup{
		{"Patients", []key.Binding{k.Patient, k.NextPat, k.PrevPat, k.RosterMove, k.RosterSwitch, k.RosterOrder}},
		{"Alarms", []key.Binding{k.AlarmGo, k.AlarmAck}},
		{"Input", []key.Binding{k.Send, k.Release, k.Newline, k.History}},
		{"Chat", []key.Binding{k.PageUp, k.PageDown, k.Top, k.End, k.SelectMessage, k.CopyMessage, k.CopyChat}},
		{"Search", []key.Binding{k.Search, k.SearchNext, k.SearchPrev, k.Close}},
		{"Turn", []key.Binding{k.Cancel, k.Retry}},
		{"Inspector", []key.Binding{k.Inspector, k.Fold, k.Copy, k.Save, k.OlderTurn, k.NewerTurn}},
		{"App", []key.Binding{k.Focus, k.FocusBack, k.Palette, k.Help, k.Quit}},
	}
}

// mouseHelp is what the help overlay says about the mouse, after the keys.
var mouseHelp = []string{
	"wheel scrolls the chat or the roster under the pointer; a click focuses a pane,",
	"a click on a roster row switches to that patient, one on a message selects it.",
	"To select text with the terminal instead, hold shift while dragging (option in iTerm2).",
}

// upward tells which way an up/down binding goes.
func upward(msg tea.KeyMsg) bool {
	return msg.Type == tea.KeyUp || msg.Type == tea.KeyCtrlP
}

// step is -1 for up and +1 for down.
func step(msg tea.KeyMsg) int {
	if upward(msg) {
		return -1
	}
	return 1
}
