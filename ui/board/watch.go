package board

import (
	"fmt"
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

// watchView is a banner line, then the trainee's frame cut to the instructor's terminal: each
// line to its width, ANSI-aware, and a taller frame as cut keeps it.
func (m *model) watchView() string {
	t := &m.theme
	banner := t.Accent.Render("Watching "+m.watch.trainee+"'s screen, read-only: your keys never reach it") +
		"  " + m.keys([][2]string{{"esc", "back"}})
	if m.watch.gone {
		banner = t.Warn.Render(m.watch.trainee+" is not connected; the last frame they drew") + "  " + m.keys([][2]string{{"esc", "back"}})
	}
	lines := cut(strings.Split(m.watch.frame, "\n"), max(m.height-1, 0), func(n int) string {
		return t.Muted.Render(fmt.Sprintf("┄ %d lines of %s's screen left out: a taller terminal shows them ┄", n, m.watch.trainee))
	})
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, m.width, "") + ansi.ResetStyle
	}
	return m.fit([]string{banner}) + "\n" + strings.Join(lines, "\n")
}

// watchHead is how many of a frame's first lines a cut keeps: the trainee's header, which names
// the patient and their NEWS2.
const watchHead = 3

// cut fits a frame into rows: whole when it fits, else its first watchHead lines and its last
// (the newest chat, what the trainee is typing, their status bar), with a line between saying how
// many were left out.
func cut(lines []string, rows int, leftOut func(n int) string) []string {
	if len(lines) <= rows {
		return lines
	}
	if rows <= watchHead+1 {
		return lines[len(lines)-rows:]
	}
	tail := rows - watchHead - 1
	out := append(lines[:watchHead:watchHead], leftOut(len(lines)-watchHead-tail))
	return append(out, lines[len(lines)-tail:]...)
}
