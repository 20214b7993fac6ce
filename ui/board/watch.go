package board

import (
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// Watching shows the chosen trainee's screen as they last drew it, read-only: the board reads
// their frame from the class and forwards no key, so nothing the instructor types reaches them.

// watchEvery is how often the watched frame is read again: fast enough that typing and streamed
// replies look live, slow enough to cost nothing beside the trainee's own program.
const watchEvery = 150 * time.Millisecond

// watchTickMsg asks for the watched frame again; gen drops the ticks of an earlier watch.
type watchTickMsg struct{ gen int }

// watch is the trainee being watched and their frame as last read.
type watch struct {
	trainee string
	frame   string
	gone    bool // the trainee disconnected while watched
	gen     int
}

func (m *model) startWatch(trainee string) tea.Cmd {
	m.mode = modeWatch
	m.watch = watch{trainee: trainee, gen: m.watch.gen + 1}
	m.readFrame()
	return watchTick(m.watch.gen)
}

func watchTick(gen int) tea.Cmd {
	return tea.Tick(watchEvery, func(time.Time) tea.Msg { return watchTickMsg{gen} })
}

func (m *model) watchTick(msg watchTickMsg) tea.Cmd {
	if m.mode != modeWatch || msg.gen != m.watch.gen {
		return nil
	}
	m.readFrame()
	return watchTick(msg.gen)
}

func (m *model) readFrame() {
	frame, ok := m.class.Frame(m.watch.trainee)
	m.watch.gone = !ok
	if ok {
		m.watch.frame = frame
	}
}

// watchKey: esc goes back to the board; every other key stays here, never sent anywhere.
func (m *model) watchKey(msg tea.KeyMsg) tea.Cmd {
	if msg.String() == "esc" {
		m.mode = modeBoard
	}
	return nil
}

// watchView is a banner line, then the trainee's frame cut to the instructor's terminal.
func (m *model) watchView() string {
	t := m.theme
	banner := t.Accent.Render("Watching "+m.watch.trainee+"'s screen · read-only: nothing you type reaches them") +
		"  " + m.keys([][2]string{{"esc", "back to the board"}})
	if m.watch.gone {
		banner = t.Warn.Render(m.watch.trainee+" is not connected; the last frame they drew") + "  " + m.keys([][2]string{{"esc", "back"}})
	}
	lines := strings.Split(m.watch.frame, "\n")
	if keep := max(m.height-1, 0); len(lines) > keep {
		lines = lines[:keep]
	}
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, m.width, "") + ansi.ResetStyle
	}
	return m.fit([]string{banner}) + "\n" + strings.Join(lines, "\n")
}
