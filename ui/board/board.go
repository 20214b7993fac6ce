// Package board is the instructor's views of a class: the board of every connected trainee (their
// patients, NEWS2, alarms and score so far), watching a trainee's screen read-only, injecting an
// event into a trainee's shift and ending a shift for debrief. ui/lab serves it to the
// instructor's SSH connection; it reads the class through Class.
package board

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/ward-sim/ward/session/live"
	"github.com/ward-sim/ward/themes"
)

// Class is the server's class as the board reads it: who is connected now, and what their
// screen shows. ui/lab implements it.
type Class interface {
	Trainees() []Trainee                 // connected now, sorted by name
	Frame(trainee string) (string, bool) // the trainee's screen as last drawn (their View()), false if not connected
}

// Trainee is one connected trainee.
type Trainee struct {
	Name  string
	Since time.Time  // connected at
	Live  *live.Live // their running shift: Snapshot, and the board's methods (Inject, End, ...)
}

// boardEvery is how often the board re-reads the class: alarms wait in whole seconds.
const boardEvery = time.Second

// tickMsg asks the board to re-read the class.
type tickMsg struct{}

func tick() tea.Cmd {
	return tea.Tick(boardEvery, func(time.Time) tea.Msg { return tickMsg{} })
}

// model is the instructor's program.
type model struct {
	class         Class
	theme         themes.Theme
	width, height int
	rows          []row  // the class as last read, one per connected trainee
	chosen        string // the trainee the cursor is on, by name, so it stays put as others come and go
}

// row is one trainee as the board shows them.
type row struct {
	name  string
	since time.Time
	view  live.ViewState
}

// New is the instructor's program model. theme is the server's theme.
func New(class Class, theme themes.Theme) tea.Model {
	m := &model{class: class, theme: theme, width: 80, height: 24}
	m.read()
	return m
}

func (m *model) Init() tea.Cmd { return tick() }

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tickMsg:
		m.read()
		return m, tick()
	case tea.KeyMsg:
		return m, m.key(msg)
	}
	return m, nil
}

func (m *model) key(msg tea.KeyMsg) tea.Cmd {
	switch msg.String() {
	case "q", "ctrl+c":
		return tea.Quit
	case "up", "k":
		m.move(-1)
	case "down", "j":
		m.move(1)
	}
	return nil
}

// read takes every connected trainee's latest view. Snapshot never waits for a running turn.
func (m *model) read() {
	trainees := m.class.Trainees()
	m.rows = m.rows[:0]
	for _, t := range trainees {
		r := row{name: t.Name, since: t.Since}
		if t.Live != nil {
			r.view = t.Live.Snapshot()
		}
		m.rows = append(m.rows, r)
	}
	if m.cursor() < 0 && len(m.rows) > 0 {
		m.chosen = m.rows[0].name
	}
}

// cursor is the chosen trainee's row, -1 when they are gone.
func (m *model) cursor() int {
	for i, r := range m.rows {
		if r.name == m.chosen {
			return i
		}
	}
	return -1
}

func (m *model) move(by int) {
	if len(m.rows) == 0 {
		return
	}
	i := min(max(m.cursor()+by, 0), len(m.rows)-1)
	m.chosen = m.rows[i].name
}

func (m *model) View() string { return m.boardView() }
