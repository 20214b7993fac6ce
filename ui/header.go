package ui

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"

	"github.com/ward-sim/ward/session/live"
	"github.com/ward-sim/ward/themes"
)

// headerPane shows who the active patient is and how sick they are. The
// allergy badge is laid out first and wraps rather than being cut: it is
// the one thing on screen that must never disappear.
type headerPane struct {
	theme  *themes.Theme
	width  int
	view   string
	height int       // the view's lines
	drawn  headerKey // what the view was drawn from
}

// headerKey is everything the header is drawn from: a snapshot that changes none of it (most of
// a turn's, within a second of sim time) leaves the header as it was drawn.
type headerKey struct {
	width   int
	clock   string // clockLabel's
	roster  int
	patient live.Patient
}

func (h *headerPane) SetSize(width int) { h.width = width }

// Height is the number of lines the last render took.
func (h *headerPane) Height() int { return max(h.height, 1) }

func (h *headerPane) View() string { return h.view }

func (h *headerPane) Render(s live.ViewState) {
	t := h.theme
	p := s.Patient
	clock := clockLabel(t, s)
	k := headerKey{width: h.width, clock: clock, roster: len(s.Roster), patient: p}
	if h.view != "" && reflect.DeepEqual(h.drawn, k) {
		return
	}
	h.drawn = k
	var who, vitals string
	if p.ID == "" {
		who = t.Muted.Render("No active patient")
		vitals = t.Muted.Render(fmt.Sprintf("%d on the roster", len(s.Roster)))
	} else {
		who = t.Title.Render(themes.Printable(p.ID)) + "  " + t.Text.Render(describe(p))
		vitals = h.vitalsLine(p)
	}
	line1 := spread(who, clock, h.width)
	rule := t.Muted.Render(strings.Repeat("─", h.width))
	h.view = lipgloss.JoinVertical(lipgloss.Left, line1, vitals, rule)
	h.height = lipgloss.Height(h.view)
}

// vitalsLine holds NEWS2, the allergy badge and what the trainee has found, in that order of
// importance; the findings are what gets cut when space runs out.
func (h *headerPane) vitalsLine(p live.Patient) string {
	t := h.theme
	news := news2Badge(t, p.NEWS2)
	badge := allergyBadge(t, p.Allergies, h.width-lipgloss.Width(news)-1)
	line := lipgloss.JoinHorizontal(lipgloss.Top, news, " ", badge)
	if lipgloss.Height(line) > 1 {
		return line
	}
	if len(p.Found) > 0 {
		found := make([]string, len(p.Found))
		for i, f := range p.Found {
			found[i] = themes.Printable(f)
		}
		room := h.width - lipgloss.Width(line) - 2
		line += "  " + t.Muted.Render(truncate("found: "+strings.Join(found, " · "), room))
	}
	return line
}

func describe(p live.Patient) string {
	var parts []string
	if p.Name != "" {
		parts = append(parts, themes.Printable(p.Name))
	}
	if p.Age > 0 || p.Sex != "" {
		parts = append(parts, strings.TrimSpace(fmt.Sprintf("%s %s", ageLabel(p.Age), themes.Printable(p.Sex))))
	}
	if p.Bed != "" {
		parts = append(parts, "bed "+themes.Printable(p.Bed))
	}
	if p.Presentation != "" {
		parts = append(parts, themes.Printable(p.Presentation))
	}
	return strings.Join(parts, " · ")
}

func ageLabel(age int) string {
	if age <= 0 {
		return ""
	}
	return fmt.Sprint(age)
}

// allergyBadge wraps within width instead of truncating.
func allergyBadge(t *themes.Theme, allergies []string, width int) string {
	if len(allergies) == 0 {
		return t.NoAllergyBadge.Render("no allergies recorded")
	}
	clean := make([]string, len(allergies))
	for i, a := range allergies {
		clean[i] = themes.Printable(a)
	}
	text := "ALLERGY " + strings.Join(clean, ", ")
	if lipgloss.Width(text)+2 > width {
		return t.AllergyBadge.Width(max(width, 12)).Render(text)
	}
	return t.AllergyBadge.Render(text)
}

func bandStyle(t *themes.Theme, b live.Band) lipgloss.Style {
	switch b {
	case live.BandLowMedium:
		return t.News2Single3
	case live.BandMedium:
		return t.News2Medium
	case live.BandHigh:
		return t.News2High
	}
	return t.News2Low
}

// news2Badge names the band in words as well as colour, so it reads the
// same without colour, and in the words every other view uses.
func news2Badge(t *themes.Theme, s live.Score) string {
	if !s.Known {
		return t.Muted.Render("NEWS2 —")
	}
	return bandStyle(t, s.Band).Render(s.Text)
}

// clockLabel is the sim clock, and why it stands still when it does: a shift the instructor
// ended says so on every screen, so the trainee knows the debrief is what is left.
func clockLabel(t *themes.Theme, s live.ViewState) string {
	label := t.Muted.Render("sim ") + t.Text.Render(formatClock(s.Clock))
	switch {
	case s.Ended:
		label += " " + t.Warn.Bold(true).Render("ENDED · /aar")
	case s.Paused:
		label += " " + t.Warn.Bold(true).Render("PAUSED")
	}
	return label
}

func formatClock(d time.Duration) string {
	d = d.Truncate(time.Second)
	return fmt.Sprintf("%02d:%02d:%02d", int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60)
}

// spread puts left and right on one line of width cells, cutting left.
func spread(left, right string, width int) string {
	room := width - lipgloss.Width(right) - 1
	left = truncate(left, room)
	gap := max(width-lipgloss.Width(left)-lipgloss.Width(right), 1)
	return left + strings.Repeat(" ", gap) + right
}
