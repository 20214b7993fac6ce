package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
	"github.com/ward-sim/ward/session"
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
}

// statusPane is the bottom line: backend, last turn, speed or a notice on
// the left, key hints for the current focus on the right.
type statusPane struct {
	theme themes.Theme
	width int
	help  help.Model
}

func newStatusPane(t themes.Theme) statusPane {
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
	return statusPane{theme: t, help: h}
}

func (s *statusPane) SetSize(width int) { s.width = width }

func (s *statusPane) View(vs session.ViewState, n notice, generating bool, hints []key.Binding) string {
	t := s.theme
	left := s.summary(vs, generating)
	if n.text != "" {
		style := t.StatusBar
		switch n.level {
		case noticeWarn:
			style = t.StatusBar.Foreground(t.Warn.GetForeground())
		case noticeError:
			style = t.StatusBar.Foreground(t.Danger.GetForeground()).Bold(true)
		}
		left = style.Render(" " + sanitize(n.text) + " ")
	}
	left = truncate(left, s.width*2/3)
	s.help.Width = max(s.width-lipgloss.Width(left)-2, 0)
	right := s.help.ShortHelpView(hints)
	gap := max(s.width-lipgloss.Width(left)-lipgloss.Width(right), 0)
	return left + t.StatusBar.Render(strings.Repeat(" ", gap)) + right
}

func (s *statusPane) summary(vs session.ViewState, generating bool) string {
	t := s.theme
	var parts []string
	if generating {
		parts = append(parts, "generating…")
	}
	parts = append(parts, backendLabel(vs))
	if vs.Last.Latency > 0 {
		parts = append(parts, fmt.Sprintf("%s · %d→%d tok", vs.Last.Latency.Round(10*time.Millisecond),
			vs.Last.PromptTokens, vs.Last.OutputTokens))
	}
	parts = append(parts, speedLabel(vs))
	return t.StatusBar.Render(" " + strings.Join(parts, " · ") + " ")
}

func backendLabel(vs session.ViewState) string {
	if vs.Backend == "" || vs.Backend == "offline" {
		return "offline"
	}
	if vs.Model == "" {
		return sanitize(vs.Backend)
	}
	return sanitize(vs.Backend) + " " + sanitize(vs.Model)
}

func speedLabel(vs session.ViewState) string {
	if vs.Paused {
		return "paused"
	}
	if vs.Speed == 0 {
		return "×1"
	}
	return "×" + formatValue(vs.Speed)
}
