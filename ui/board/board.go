// Package board is the instructor's views of a class: the board of every connected trainee (their
// patients, NEWS2, alarms and score so far), watching a trainee's screen read-only, injecting an
// event into a trainee's shift and ending a shift for debrief. ui/lab serves it to the
// instructor's SSH connection; it reads the class through Class.
package board

import (
	"context"
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

// doneMsg is how an injection or an end came out: what the status line says.
type doneMsg struct {
	trainee, what string
	err           error
}

// mode is what the instructor is doing.
type mode int

const (
	modeBoard  mode = iota
	modeWatch       // watching the chosen trainee's screen (watch.go)
	modeInject      // the inject dialog (inject.go)
	modeEnd         // asking before ending the chosen trainee's shift
	modeTeam        // the team dialog (team.go)
)

// model is the instructor's program.
type model struct {
	class         Class
	teams         Teams
	theme         themes.Theme
	width, height int
	mode          mode
	rows          []row  // the class as last read, one per connected trainee
	chosen        string // the trainee the cursor is on, by name, so it stays put as others come and go
	status        string // what the last injection or end did, or why it did not
	watch         watch
	inject        *dialog
	team          *teamDialog
}

// row is one trainee as the board shows them.
type row struct {
	name     string
	since    time.Time
	live     *live.Live
	view     live.ViewState
	standing live.Standing
}

// New is the instructor's program model: the board of class, forming teams through teams. theme
// is the server's theme.
func New(class Class, teams Teams, theme themes.Theme) tea.Model {
	m := &model{class: class, teams: teams, theme: theme, width: 80, height: 24}
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
	case watchTickMsg:
		return m, m.watchTick(msg)
	case doneMsg:
		m.status = msg.report()
		m.read()
	case tea.KeyMsg:
		if msg.String() == "ctrl+c" {
			return m, tea.Quit
		}
		switch m.mode {
		case modeWatch:
			return m, m.watchKey(msg)
		case modeInject:
			return m, m.injectKey(msg)
		case modeEnd:
			return m, m.endKey(msg)
		case modeTeam:
			return m, m.teamKey(msg)
		}
		return m, m.boardKey(msg)
	}
	return m, nil
}

func (m *model) boardKey(msg tea.KeyMsg) tea.Cmd {
	r, ok := m.current()
	switch msg.String() {
	case "q":
		return tea.Quit
	case "up", "k":
		m.move(-1)
	case "down", "j":
		m.move(1)
	case "enter":
		if ok {
			return m.startWatch(r.name)
		}
	case "t":
		m.startTeam()
	case "i", "e":
		switch {
		case !ok:
		case r.live == nil || r.standing.Ended:
			m.status = r.name + "'s shift is not running: nothing to inject or end"
		case msg.String() == "i":
			m.mode, m.inject = modeInject, newDialog(r)
		default:
			m.mode = modeEnd
		}
	}
	return nil
}

// endKey asks before ending the chosen trainee's shift: y ends it, anything else does not.
func (m *model) endKey(msg tea.KeyMsg) tea.Cmd {
	m.mode = modeBoard
	r, ok := m.current()
	if msg.String() != "y" || !ok {
		return nil
	}
	m.status = "ending " + r.name + "'s shift…"
	return func() tea.Msg {
		return doneMsg{trainee: r.name, what: "ended the shift for debrief", err: r.live.End(context.Background())}
	}
}

func (d doneMsg) report() string {
	if d.err != nil {
		return d.trainee + ": not done — " + d.err.Error()
	}
	return d.trainee + ": " + d.what
}

// read takes every connected trainee's latest view and standing; neither waits for a running turn.
func (m *model) read() {
	trainees := m.class.Trainees()
	m.rows = m.rows[:0]
	for _, t := range trainees {
		r := row{name: t.Name, since: t.Since, live: t.Live}
		if t.Live != nil {
			r.view, r.standing = t.Live.Snapshot(), t.Live.Standing()
		}
		m.rows = append(m.rows, r)
	}
	if _, ok := m.current(); !ok && len(m.rows) > 0 {
		m.chosen = m.rows[0].name
	}
}

// current is the chosen trainee's row; false when nobody is connected.
func (m *model) current() (row, bool) {
	if i := m.cursor(); i >= 0 {
		return m.rows[i], true
	}
	return row{}, false
}

// cursor is the chosen trainee's index, -1 when they are gone.
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

func (m *model) View() string {
	switch m.mode {
	case modeWatch:
		return m.watchView()
	case modeInject:
		return m.injectView()
	case modeTeam:
		return m.teamView()
	}
	return m.boardView()
}
