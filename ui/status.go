package ui

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/ward-sim/ward/session/live"
	"github.com/ward-sim/ward/themes"
)

type noticeLevel int

const (
	noticeInfo noticeLevel = iota
	noticeWarn
	noticeError
)

// notice is a one-line message for the status bar.
type notice struct {
	text  string
	level noticeLevel
	// untilIdle: the notice speaks of what is running or queued, and goes when nothing is.
	untilIdle bool
}

// statusPane is the bottom line: backend, last turn, speed or a notice on
// the left, key hints for the current focus on the right.
type statusPane struct {
	theme *themes.Theme
	width int
	help  help.Model
	hints map[hintsKey]string // the hints as drawn, by what they were drawn from
	drawn struct {            // the whole bar as last drawn, and what it was drawn from
		key  statusKey
		view string
	}
}

// statusKey is everything the status bar is drawn from.
type statusKey struct {
	width          int
	notice         notice
	activity       string
	hints          string // the hints' words
	backend, model string
	last           live.TurnStats
	paused         bool
	speed          float64
	alert          live.Alert // the most urgent waiting, if any
	alerts         int
}

// hintsKey is what the key hints are drawn from: the bindings' keys and words, and the width.
type hintsKey struct {
	words string
	width int
}

// maxHintViews bounds the hints kept drawn: a few sets of hints at a few widths are all a screen
// shows.
const maxHintViews = 64

func newStatusPane(t *themes.Theme) statusPane {
	h := help.New()
	h.Styles = help.Styles{
		ShortKey:       t.StatusKey,
		ShortDesc:      t.StatusDesc,
		ShortSeparator: t.StatusDesc,
		Ellipsis:       t.StatusDesc,
		FullKey:        t.Accent,
		FullDesc:       t.Muted,
		FullSeparator:  t.Muted,
	}
	return statusPane{theme: t, help: h, hints: map[hintsKey]string{}}
}

// hintsView is the key hints drawn within width (0: all), drawn once for each set and width: the
// help draws every hint through lipgloss, which was most of the status bar's cost a frame.
func (s *statusPane) hintsView(hints hintSet, width int) string {
	k := hintsKey{hints.words, width}
	if v, ok := s.hints[k]; ok {
		return v
	}
	if len(s.hints) >= maxHintViews {
		clear(s.hints)
	}
	s.help.Width = width
	s.hints[k] = s.help.ShortHelpView(hints.keys)
	return s.hints[k]
}

func (s *statusPane) SetSize(width int) { s.width = width }

// maxNoticeLines bounds a long notice; the chat gives up that many lines while it shows.
const maxNoticeLines = 3

// hintSet is a set of key hints for the status bar and what its enabled hints say (their keys
// and words), which is what the bar is drawn from: worked out once for each set, not at every
// frame.
type hintSet struct {
	keys  []key.Binding
	words string
}

func newHintSet(keys ...key.Binding) hintSet {
	var words strings.Builder
	for _, h := range keys {
		if h.Enabled() {
			words.WriteString(h.Help().Key + "\x00" + h.Help().Desc + "\x00")
		}
	}
	return hintSet{keys: keys, words: words.String()}
}

// View draws the status bar, or gives it as last drawn when nothing it shows has changed: most
// frames of a class are keystrokes, which leave it as it was.
func (s *statusPane) View(vs live.ViewState, n notice, activity string, hints hintSet) string {
	k := statusKey{width: s.width, notice: n, activity: activity, hints: hints.words, backend: vs.Backend, model: vs.Model,
		last: vs.Last, paused: vs.Paused, speed: vs.Speed, alerts: len(vs.Alerts)}
	if len(vs.Alerts) > 0 {
		k.alert = vs.Alerts[0]
	}
	if s.drawn.view == "" || s.drawn.key != k {
		s.drawn.key, s.drawn.view = k, s.draw(vs, n, activity, hints)
	}
	return s.drawn.view
}

// draw draws the status bar. A notice that does not fit beside what runs and the key hints is
// never cut: it wraps on lines of its own above the usual line. Either way what runs and what
// waits stays on the status line.
func (s *statusPane) draw(vs live.ViewState, n notice, activity string, hints hintSet) string {
	t := s.theme
	var lines []string
	left := s.summary(vs, activity)
	if n.text != "" {
		note := " " + themes.Printable(n.text) + " "
		if s.fitsBeside(n, activity, hints) {
			left = s.activityLabel(activity) + s.noticeStyle(n.level).Render(note)
		} else {
			for _, l := range s.noticeLines(n) {
				lines = append(lines, s.noticeStyle(n.level).Render(fit(" "+l, s.width)))
			}
		}
	}
	left = truncate(left, s.leftWidth())
	right := s.hintsView(hints, max(s.width-lipgloss.Width(left)-2, 0))
	gap := max(s.width-lipgloss.Width(left)-lipgloss.Width(right), 0)
	// the help keeps its first hint even when it does not fit; the line never outgrows the screen
	return strings.Join(append(lines, fit(left+t.StatusBar.Render(strings.Repeat(" ", gap))+right, s.width)), "\n")
}

// leftWidth is the most the left part may take: the key hints keep the rest.
func (s *statusPane) leftWidth() int { return s.width * 2 / 3 }

// Height is how many lines View takes for this notice beside this activity.
func (s *statusPane) Height(n notice, activity string, hints hintSet) int {
	if n.text == "" || s.fitsBeside(n, activity, hints) {
		return 1
	}
	return 1 + len(s.noticeLines(n))
}

// fitsBeside reports whether the notice fits whole on the status line between what runs and the
// hints, within the left's share of it.
func (s *statusPane) fitsBeside(n notice, activity string, hints hintSet) bool {
	left := lipgloss.Width(s.activityLabel(activity)) + lipgloss.Width(themes.Printable(n.text)) + 2
	return left <= s.leftWidth() && left+lipgloss.Width(s.hintsView(hints, 0)) <= s.width
}

func (s *statusPane) noticeLines(n notice) []string {
	lines := strings.Split(wrap(themes.Printable(n.text), s.width-2), "\n")
	if len(lines) > maxNoticeLines {
		lines = append(lines[:maxNoticeLines-1], truncate(strings.Join(lines[maxNoticeLines-1:], " "), s.width-2))
	}
	return lines
}

func (s *statusPane) noticeStyle(level noticeLevel) lipgloss.Style {
	t := s.theme
	switch level {
	case noticeWarn:
		return t.StatusBar.Foreground(t.Warn.GetForeground())
	case noticeError:
		return t.StatusBar.Foreground(t.Danger.GetForeground()).Bold(true)
	}
	return t.StatusBar
}

// summary is the left of the status bar: what runs and what is queued (activity), the backend,
// the last turn's figures and the clock's speed.
func (s *statusPane) summary(vs live.ViewState, activity string) string {
	t := s.theme
	head := s.activityLabel(activity)
	parts := []string{backendLabel(vs)}
	if vs.Last.Latency > 0 && len(vs.Alerts) == 0 { // an alert takes the turn's figures' room
		parts = append(parts, fmt.Sprintf("%s · %d→%d tok", vs.Last.Latency.Round(10*time.Millisecond),
			vs.Last.PromptTokens, vs.Last.OutputTokens))
	}
	parts = append(parts, speedLabel(vs))
	rest := t.StatusBar.Render(" " + strings.Join(parts, " · ") + " ")
	if len(vs.Alerts) == 0 {
		return head + rest
	}
	return head + s.alertLabel(vs.Alerts, s.leftWidth()-lipgloss.Width(head+rest)) + rest
}

// activityLabel is what runs and what waits, as the status line starts with it ("" when nothing
// does): a narrow terminal cuts the figures after it, and a notice goes beside it, never over it.
func (s *statusPane) activityLabel(activity string) string {
	if activity == "" {
		return ""
	}
	return s.theme.StatusBar.Bold(true).Render(" " + activity + " ")
}

// minAlertTextWidth is what the status bar quotes of an alert at least, however narrow the
// terminal: the chat holds all of it, but a cut shorter than this says nothing.
const minAlertTextWidth = 32

// alertLabel names the most urgent alert waiting, and how many more: "ALARM patient_2: SpO2 84
// (below 90). +1", in room columns when it fits. It comes first on the line, so a narrow
// terminal cuts the rest instead.
func (s *statusPane) alertLabel(alerts []live.Alert, room int) string {
	a := alerts[0]
	words := map[live.AlertLevel]string{live.AlertUrgent: "URGENT", live.AlertAlarm: "ALARM",
		live.AlertEmergency: "EMERGENCY"}
	head := fmt.Sprintf(" %s %s: ", words[a.Level], themes.Printable(a.PatientID))
	more := ""
	if n := len(alerts) - 1; n > 0 {
		more = fmt.Sprintf(" +%d", n)
	}
	width := max(room-lipgloss.Width(head+more)-1, minAlertTextWidth)
	text := head + truncate(themes.Printable(a.Text), width) + more
	style := s.noticeStyle(noticeError)
	if a.Level == live.AlertUrgent {
		style = s.noticeStyle(noticeWarn).Bold(true)
	}
	return style.Render(text + " ")
}

// bellCmd rings the terminal bell on w: one BEL byte, which every terminal sounds or flashes as
// its user set it. A nil writer rings nothing.
func bellCmd(w io.Writer) tea.Cmd {
	if w == nil {
		return nil
	}
	return func() tea.Msg {
		_, _ = w.Write([]byte{'\a'}) // a bell that cannot be written is only silent
		return nil
	}
}

func backendLabel(vs live.ViewState) string {
	if vs.Backend == "" || vs.Backend == "offline" {
		return "offline"
	}
	if vs.Model == "" {
		return themes.Printable(vs.Backend)
	}
	return themes.Printable(vs.Backend) + " " + themes.Printable(vs.Model)
}

func speedLabel(vs live.ViewState) string {
	if vs.Paused {
		return "paused"
	}
	if vs.Speed == 0 {
		return "×1"
	}
	return "×" + formatValue(vs.Speed)
}
