package board

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/ward-sim/ward/session/live"
)

// boardView is every connected trainee, one block each: a line for the trainee and their score
// so far, then a line per patient with NEWS2, the alarm waiting and for how long, and the case's
// state and score. The chosen trainee's block is kept in sight; the help line is always last.
func (m *model) boardView() string {
	t := &m.theme
	title := fmt.Sprintf("ward · the class · %d connected · alarms: time waited, in sim time", len(m.rows))
	top := []string{t.Title.Render(title)}
	var body []string
	chosenAt, chosenLen := 0, 0
	for i, r := range m.rows {
		block := m.traineeLines(r, i == m.cursor())
		if i == m.cursor() {
			chosenAt, chosenLen = len(body), len(block)
		}
		body = append(body, block...)
	}
	if len(m.rows) == 0 {
		body = []string{"", t.Muted.Render("No trainee is connected. The board fills in as trainees sign in.")}
	}
	bottom := []string{m.statusLine(), m.help()}
	body = scrolled(body, chosenAt, chosenLen, max(m.height-len(top)-len(bottom), 1))
	return m.fit(append(append(top, body...), bottom...))
}

// scrolled is the part of lines that fits in height, from the top if the block at [at, at+n)
// fits there, else ending with it (or starting with it when it is taller than height).
func scrolled(lines []string, at, n, height int) []string {
	if len(lines) <= height {
		return lines
	}
	start := 0
	if at+n > height {
		start = min(at, at+n-height)
	}
	return lines[start:min(start+height, len(lines))]
}

// fit cuts every line to the terminal's width, ANSI-aware.
func (m *model) fit(lines []string) string {
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, m.width, "…")
	}
	return strings.Join(lines, "\n")
}

func (m *model) traineeLines(r row, chosen bool) []string {
	t := &m.theme
	mark, name := "  ", t.Text.Bold(true).Render(r.name)
	if chosen {
		mark, name = t.Accent.Render("▸ "), t.Selected.Render(r.name)
	}
	v, st := r.view, r.standing
	head := fmt.Sprintf("%s%s  %s  sim %s", mark, name, t.Muted.Render("since "+r.since.Format("15:04")), clock(v.Clock))
	switch {
	case r.live == nil:
		return []string{head + t.Muted.Render("  no shift running")}
	case st.Ended:
		head += "  " + t.Warn.Render("ended for debrief")
	case v.Paused:
		head += t.Muted.Render("  (paused)")
	}
	if st.Max > 0 {
		head += "  " + fmt.Sprintf("score so far %d/%d", st.Score, st.Max)
	}
	if n := criticalErrors(st); n > 0 {
		head += "  " + t.Danger.Render(fmt.Sprintf("%d critical error%s", n, plural(n)))
	}
	lines := []string{head}
	if len(v.Roster) == 0 {
		lines = append(lines, "    "+t.Muted.Render("no patients yet"))
	}
	for _, p := range v.Roster {
		lines = append(lines, "    "+m.patientLine(p, standingOf(st, p.ID), v.Clock))
	}
	return lines
}

func criticalErrors(st live.Standing) int {
	n := 0
	for _, p := range st.Patients {
		n += p.CriticalErrors
	}
	return n
}

func standingOf(st live.Standing, id string) live.PatientStanding {
	for _, p := range st.Patients {
		if p.ID == id {
			return p
		}
	}
	return live.PatientStanding{}
}

// patientLine is one patient: ID, name, NEWS2, the alarm waiting and how long it has waited in
// sim time (or where they went), then the engine's state and the case's score, which only the
// instructor sees.
func (m *model) patientLine(p live.RosterEntry, ps live.PatientStanding, now time.Duration) string {
	t := &m.theme
	news := t.Muted.Render(fmt.Sprintf("%-19s", "NEWS2 –"))
	if p.NEWS2.Known {
		news = m.bandStyle(p.NEWS2.Band).Render(fmt.Sprintf("%-19s", fmt.Sprintf("NEWS2 %d %s", p.NEWS2.Value, bandName(p.NEWS2.Band))))
	}
	line := fmt.Sprintf("%-10s %-13s %s", p.ID, ansi.Truncate(p.Name, 13, "…"), news)
	switch {
	case p.Disposition != "":
		line += "  " + t.Muted.Render(p.Disposition)
	case p.Alert.Level != live.AlertNone:
		line += "  " + m.alertStyle(p.Alert.Level).Render(fmt.Sprintf("%s %s", alertName(p.Alert.Level), clock(now-p.Alert.Raised)))
	}
	if ps.Max > 0 {
		line += t.Muted.Render(fmt.Sprintf("  %s · %d/%d", ps.State, ps.Score, ps.Max))
	}
	return line
}

// statusLine is the question being asked, or what the last action did.
func (m *model) statusLine() string {
	if m.mode == modeEnd {
		r, _ := m.current()
		return m.theme.Warn.Render(fmt.Sprintf("End %s's shift for debrief (every open case closes)? y: end it · other: no", r.name))
	}
	return m.theme.Muted.Render(m.status)
}

func (m *model) help() string {
	return m.keys([][2]string{{"↑/↓ j/k", "choose"}, {"enter", "watch"}, {"i", "inject"}, {"e", "end shift"}, {"t", "form team"}, {"q", "quit"}})
}

// keys is a help line: each key and what it does.
func (m *model) keys(keys [][2]string) string {
	t := &m.theme
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = t.StatusKey.Render(k[0]) + " " + t.StatusDesc.Render(k[1])
	}
	return strings.Join(parts, "  ")
}

// bandStyle is the theme's colour for a NEWS2 band, without the badge's padding: the board
// lines its columns up.
func (m *model) bandStyle(b live.Band) lipgloss.Style {
	style := m.theme.News2Low
	switch b {
	case live.BandLowMedium:
		style = m.theme.News2Single3
	case live.BandMedium:
		style = m.theme.News2Medium
	case live.BandHigh:
		style = m.theme.News2High
	}
	return style.UnsetPadding()
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

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// clock writes a sim duration as h:mm:ss, or m:ss under an hour.
func clock(d time.Duration) string {
	s := int(max(d, 0) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
