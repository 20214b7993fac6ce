package ui

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/themes"
)

// rosterPane lists every patient. Wide, it is a sidebar; narrow, a single
// line. The alt+N shortcuts follow ID order whatever the display order, so
// a patient's number never moves while their score does.
type rosterPane struct {
	theme     themes.Theme
	width     int
	height    int
	collapsed bool
	focused   bool
	byID      bool // display order: ID, or acuity (the default)
	entries   []session.RosterEntry
	active    string
	clock     time.Duration
	cursor    int // index into the display order
	view      string
}

// SetSize follows SetState on every snapshot, which has already rendered at an unchanged size.
func (r *rosterPane) SetSize(width, height int, collapsed bool) {
	if width == r.width && height == r.height && collapsed == r.collapsed {
		return
	}
	r.width, r.height, r.collapsed = width, height, collapsed
	r.render()
}

func (r *rosterPane) SetFocused(focused bool) {
	r.focused = focused
	r.selectID(r.active)
}

// SetState keeps the cursor on the same patient across reorderings.
func (r *rosterPane) SetState(s session.ViewState) {
	selected := r.Selected()
	r.entries, r.active, r.clock = s.Roster, s.Patient.ID, s.Clock
	if selected == "" {
		selected = r.active
	}
	r.selectID(selected)
}

// selectID puts the cursor on id, or keeps it in range if id is gone.
func (r *rosterPane) selectID(id string) {
	r.cursor = min(r.cursor, max(len(r.entries)-1, 0))
	for i, e := range r.ordered() {
		if e.ID == id {
			r.cursor = i
		}
	}
	r.render()
}

func (r *rosterPane) ToggleOrder() {
	selected := r.Selected()
	r.byID = !r.byID
	r.selectID(selected)
}

func (r *rosterPane) Move(delta int) {
	if n := len(r.entries); n > 0 {
		r.cursor = (r.cursor + delta + n) % n
	}
	r.render()
}

// Selected is the patient under the cursor, or "".
func (r *rosterPane) Selected() string {
	if r.cursor < len(r.entries) {
		return r.ordered()[r.cursor].ID
	}
	return ""
}

// NthByID is the patient alt+n switches to (n from 1), or "".
func (r *rosterPane) NthByID(n int) string {
	if n < 1 || n > len(r.entries) {
		return ""
	}
	return r.entries[n-1].ID
}

// Neighbour is the patient delta places from the active one in display
// order, wrapping around.
func (r *rosterPane) Neighbour(delta int) string {
	order := r.ordered()
	if len(order) == 0 {
		return ""
	}
	at := -1
	for i, e := range order {
		if e.ID == r.active {
			at = i
		}
	}
	if at < 0 && delta < 0 {
		at = 0
	}
	return order[(at+delta+len(order))%len(order)].ID
}

// ordered returns the display order: the sickest first unless byID.
func (r *rosterPane) ordered() []session.RosterEntry {
	if r.byID {
		return r.entries
	}
	out := append([]session.RosterEntry(nil), r.entries...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].NEWS2, out[j].NEWS2
		if a.Known != b.Known {
			return a.Known
		}
		if a.Band != b.Band {
			return a.Band > b.Band
		}
		return a.Value > b.Value
	})
	return out
}

func (r *rosterPane) orderName() string {
	if r.byID {
		return "by ID"
	}
	return "by acuity"
}

func (r *rosterPane) View() string { return r.view }

func (r *rosterPane) render() {
	switch {
	case r.width == 0:
		r.view = ""
	case r.collapsed:
		r.view = r.lineView()
	default:
		r.view = r.sidebarView()
	}
}

func (r *rosterPane) shortcut(id string) string {
	for i, e := range r.entries {
		if e.ID == id && i < 9 {
			return fmt.Sprint(i + 1)
		}
	}
	return " "
}

func (r *rosterPane) sidebarView() string {
	t := r.theme
	title := t.Muted
	if r.focused {
		title = t.Title
	}
	lines := []string{title.Render("PATIENTS") + " " + t.Muted.Render(r.orderName())}
	order := r.ordered()
	twoLine := 1+2*len(order) <= r.height
	for i, e := range order {
		lines = append(lines, r.row(e, i == r.cursor))
		if twoLine && e.Name != "" {
			lines = append(lines, t.Muted.Render(truncate("    "+sanitize(e.Name), r.width)))
		}
	}
	if len(order) == 0 {
		lines = append(lines, t.Muted.Render(truncate("none yet", r.width)))
	}
	if len(lines) > r.height {
		more := fmt.Sprintf("+%d more", len(lines)-r.height+1)
		lines = append(lines[:r.height-1], t.Muted.Render(more))
	}
	return fitLines(lines, r.width, r.height)
}

// row is one sidebar line: marker, shortcut, ID, NEWS2 and trend, time
// since last checked, alert.
func (r *rosterPane) row(e session.RosterEntry, selected bool) string {
	t := r.theme
	marker, idStyle := " ", t.RosterItem
	if e.ID == r.active {
		marker, idStyle = "▸", t.RosterActive
	}
	alert := " "
	if e.Alert {
		alert = t.RosterAlert.Render("!")
	}
	right := scoreCell(t, e.NEWS2) + trendArrow(t, e.Trend) + " " +
		t.Muted.Render(fmt.Sprintf("%4s", sinceLabel(r.clock, e.LastChecked))) + " " + alert
	left := marker + r.shortcut(e.ID) + " "
	idWidth := r.width - lipgloss.Width(left) - lipgloss.Width(right) - 1
	line := left + idStyle.Render(fit(sanitize(e.ID), max(idWidth, 1))) + " " + right
	if selected && r.focused {
		return t.Selected.Render(fit(stripStyles(line), r.width))
	}
	return line
}

// lineView is the collapsed roster: every patient on one line.
func (r *rosterPane) lineView() string {
	t := r.theme
	var parts []string
	for i, e := range r.ordered() {
		item := r.shortcut(e.ID) + " " + sanitize(e.ID) + " " + stripStyles(scoreCell(t, e.NEWS2)) + stripStyles(trendArrow(t, e.Trend))
		if e.Alert {
			item += "!"
		}
		switch {
		case i == r.cursor && r.focused:
			item = t.Selected.Render(item)
		case e.ID == r.active:
			item = t.RosterActive.Render("▸" + item)
		case e.Alert:
			item = t.RosterAlert.Render(item)
		default:
			item = t.RosterItem.Render(item)
		}
		parts = append(parts, item)
	}
	if len(parts) == 0 {
		return fit(t.Muted.Render("no patients yet"), r.width)
	}
	return fit(strings.Join(parts, t.Muted.Render(" │ ")), r.width)
}

func scoreCell(t themes.Theme, s session.Score) string {
	if !s.Known {
		return t.Muted.Render(" —")
	}
	return bandStyle(t, s.Band).UnsetPadding().Render(fmt.Sprintf("%2d", s.Value))
}

func trendArrow(t themes.Theme, tr session.Trend) string {
	switch tr {
	case session.TrendUp:
		return t.Danger.Render("↑")
	case session.TrendDown:
		return t.OK.Render("↓")
	}
	return t.Muted.Render("→")
}

// sinceLabel is how long ago, in sim time, a patient was last checked.
func sinceLabel(clock, checked time.Duration) string {
	if checked < 0 {
		return "—"
	}
	ago := clock - checked
	switch {
	case ago < time.Minute:
		return "now"
	case ago < time.Hour:
		return fmt.Sprintf("%dm", int(ago.Minutes()))
	default:
		return fmt.Sprintf("%dh%02d", int(ago.Hours()), int(ago.Minutes())%60)
	}
}
