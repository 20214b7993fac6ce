package board

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/ward-sim/ward/session/live"
)

// boardView is every connected trainee, one block each: a line for the trainee, then one line
// per patient with NEWS2 and the alarm waiting, if any.
func (m *model) boardView() string {
	t := m.theme
	var b strings.Builder
	b.WriteString(t.Title.Render(fmt.Sprintf("ward · the class · %d connected", len(m.rows))) + "\n")
	if len(m.rows) == 0 {
		b.WriteString("\n" + t.Muted.Render("No trainee is connected. The board fills in as trainees sign in.") + "\n")
	}
	for i, r := range m.rows {
		b.WriteString(m.traineeLines(r, i == m.cursor()))
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if keep := m.height - 1; keep > 0 && len(lines) > keep {
		lines = lines[:keep]
	}
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, m.width, "…")
	}
	return strings.Join(lines, "\n") + "\n" + m.help()
}

func (m *model) traineeLines(r row, chosen bool) string {
	t := m.theme
	mark, name := "  ", t.Text.Render(r.name)
	if chosen {
		mark, name = t.Accent.Render("▸ "), t.Selected.Render(r.name)
	}
	v := r.view
	head := fmt.Sprintf("%s%s  %s  sim %s", mark, name, t.Muted.Render("since "+r.since.Format("15:04")), clock(v.Clock))
	if v.Paused {
		head += t.Muted.Render(" (paused)")
	}
	lines := []string{head}
	if len(v.Roster) == 0 {
		lines = append(lines, "    "+t.Muted.Render("no patients yet"))
	}
	for _, p := range v.Roster {
		lines = append(lines, "    "+m.patientLine(p, v.Clock))
	}
	return strings.Join(lines, "\n") + "\n"
}

func (m *model) patientLine(p live.RosterEntry, now time.Duration) string {
	t := m.theme
	news := t.Muted.Render("NEWS2 –")
	if p.NEWS2.Known {
		news = m.bandStyle(p.NEWS2.Band).Render(fmt.Sprintf("NEWS2 %d %s", p.NEWS2.Value, bandName(p.NEWS2.Band)))
	}
	line := fmt.Sprintf("%-11s %-18s %s", p.ID, ansi.Truncate(p.Name, 18, "…"), news)
	if p.Disposition != "" {
		return line + "  " + t.Muted.Render(p.Disposition)
	}
	if p.Alert.Level != live.AlertNone {
		line += "  " + m.alertStyle(p.Alert.Level).Render(fmt.Sprintf("%s waiting %s", alertName(p.Alert.Level), clock(now-p.Alert.Raised)))
	}
	return line
}

func (m *model) help() string {
	t := m.theme
	keys := [][2]string{{"↑/↓", "choose"}, {"q", "quit"}}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = t.StatusKey.Render(k[0]) + " " + t.StatusDesc.Render(k[1])
	}
	return ansi.Truncate(strings.Join(parts, "  "), m.width, "…")
}

func (m *model) bandStyle(b live.Band) lipgloss.Style {
	switch b {
	case live.BandLowMedium:
		return m.theme.News2Single3
	case live.BandMedium:
		return m.theme.News2Medium
	case live.BandHigh:
		return m.theme.News2High
	}
	return m.theme.News2Low
}

func bandName(b live.Band) string {
	return [...]string{"low", "low-medium", "medium", "high"}[b]
}

func (m *model) alertStyle(l live.AlertLevel) lipgloss.Style {
	if l == live.AlertUrgent {
		return m.theme.Warn
	}
	return m.theme.Danger
}

func alertName(l live.AlertLevel) string {
	return [...]string{"", "urgent review", "alarm", "emergency"}[l]
}

// clock writes a sim duration as h:mm:ss, or m:ss under an hour.
func clock(d time.Duration) string {
	s := int(max(d, 0) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
