package ui

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"

	"github.com/ward-sim/ward/session/live"
	"github.com/ward-sim/ward/themes"
)

// rosterPane lists every patient. Wide, it is a sidebar; narrow, a single
// line. The alt+N shortcuts follow ID order whatever the display order, so
// a patient's number never moves while their score does.
type rosterPane struct {
	theme     *themes.Theme
	width     int
	height    int
	collapsed bool
	focused   bool
	byID      bool // display order: ID, or acuity (the default)
	entries   []live.RosterEntry
	active    string
	clock     time.Duration
	cursor    int // index into the display order
	view      string

	offset int  // first patient drawn, in display order, when they do not all fit
	manual bool // the wheel moved offset: leave it until the trainee moves or switches
	hits   []rosterHit
	drawn  drawnRoster // what view and hits were drawn from
}

// drawnRoster is everything the roster is drawn from: a snapshot that changes none of it (most of
// a turn's: the same patients, each checked as many minutes ago) leaves it as it was drawn.
type drawnRoster struct {
	key     rosterKey
	entries []live.RosterEntry
	since   []string // each entry's sinceLabel
	offset  int      // where drawing left offset, which it keeps in range
}

type rosterKey struct {
	width, height                    int
	collapsed, focused, byID, manual bool
	active                           string
	cursor, offset                   int
}

// rosterHit is where a patient is drawn, for the mouse: a row of the sidebar, or a span of
// columns of the one-line strip.
type rosterHit struct {
	row, x0, x1 int
	id          string
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
	r.focused, r.manual = focused, false
	r.selectID(r.active)
}

// SetState keeps the cursor on the same patient across reorderings.
func (r *rosterPane) SetState(s live.ViewState) {
	selected := r.Selected()
	if s.Patient.ID != r.active {
		r.manual = false // a switch shows the new active patient
	}
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
	r.manual = false
	r.render()
}

// Scroll moves the patients drawn by delta, as the mouse wheel does, without moving the cursor.
func (r *rosterPane) Scroll(delta int) {
	r.offset = min(max(r.offset+delta, 0), max(len(r.entries)-1, 0))
	r.manual = true
	r.render()
}

// At is the patient drawn at (x, y) of the pane, or "".
func (r *rosterPane) At(x, y int) string {
	for _, h := range r.hits {
		if h.row == y && x >= h.x0 && x < h.x1 {
			return h.id
		}
	}
	return ""
}

// target is the patient that must stay on screen: the cursor's while the roster has focus, the
// active one otherwise.
func (r *rosterPane) target() int {
	order := r.ordered()
	if r.focused {
		return min(r.cursor, len(order)-1)
	}
	for i, e := range order {
		if e.ID == r.active {
			return i
		}
	}
	return -1
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

// ordered returns the display order: the sickest first unless byID. Sickest is what is known: the
// last measured NEWS2's band, raised to the band an alarm or a nurse's call stands for (an
// emergency call or an alarm counts as high, an urgent call as medium); then a patient with an
// alert waiting before one without; then the score.
func (r *rosterPane) ordered() []live.RosterEntry {
	if r.byID {
		return r.entries
	}
	out := append([]live.RosterEntry(nil), r.entries...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := acuity(out[i]), acuity(out[j])
		if a != b {
			return a > b
		}
		if x, y := out[i].Alert.Level, out[j].Alert.Level; x != y {
			return x > y
		}
		return out[i].NEWS2.Value > out[j].NEWS2.Value
	})
	return out
}

// acuity ranks a row: -1 for nothing known, else the band of its score or of its alert.
func acuity(e live.RosterEntry) int {
	rank := -1
	if e.NEWS2.Known {
		rank = int(e.NEWS2.Band)
	}
	switch e.Alert.Level {
	case live.AlertEmergency, live.AlertAlarm:
		rank = max(rank, int(live.BandHigh))
	case live.AlertUrgent:
		rank = max(rank, int(live.BandMedium))
	}
	return rank
}

func (r *rosterPane) orderName() string {
	if r.byID {
		return "by ID"
	}
	return "by acuity"
}

func (r *rosterPane) View() string { return r.view }

func (r *rosterPane) render() {
	drawn := drawnRoster{
		key: rosterKey{width: r.width, height: r.height, collapsed: r.collapsed, focused: r.focused, byID: r.byID,
			manual: r.manual, active: r.active, cursor: r.cursor, offset: r.offset},
		entries: r.entries,
		since:   make([]string, len(r.entries)),
	}
	for i, e := range r.entries {
		drawn.since[i] = sinceLabel(r.clock, e.LastChecked)
	}
	if r.view != "" && drawn.key == r.drawn.key && slices.Equal(drawn.since, r.drawn.since) &&
		reflect.DeepEqual(drawn.entries, r.drawn.entries) {
		r.offset = r.drawn.offset
		return
	}
	switch {
	case r.width == 0:
		r.view = ""
	case r.collapsed:
		r.view = r.lineView()
	default:
		r.view = r.sidebarView()
	}
	drawn.offset = r.offset
	r.drawn = drawn
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
	r.hits = r.hits[:0]
	order := r.ordered()
	if len(order) == 0 {
		lines = append(lines, t.Muted.Render(truncate("none yet", r.width)))
		return fitLines(lines, r.width, r.height)
	}
	rows := r.height - 1
	if 2*len(order) <= rows { // everyone fits, with their names
		r.offset = 0
		for i, e := range order {
			r.hits = append(r.hits, rosterHit{row: len(lines), x1: r.width, id: e.ID})
			lines = append(lines, r.row(e, i == r.cursor))
			if e.Name != "" {
				lines = append(lines, t.Muted.Render(truncate("    "+themes.Printable(e.Name), r.width)))
			}
		}
		return fitLines(lines, r.width, r.height)
	}
	// One line each; when they still do not fit, a line above and one below say how many more.
	shown := rows
	if len(order) > rows {
		shown = max(rows-2, 1)
	}
	r.offset = r.window(r.offset, shown, len(order))
	if len(order) > rows {
		lines = append(lines, t.Muted.Render(moreLabel("↑", r.offset)))
	}
	for i := r.offset; i < min(r.offset+shown, len(order)); i++ {
		r.hits = append(r.hits, rosterHit{row: len(lines), x1: r.width, id: order[i].ID})
		lines = append(lines, r.row(order[i], i == r.cursor))
	}
	if len(order) > rows {
		lines = append(lines, t.Muted.Render(moreLabel("↓", len(order)-r.offset-shown)))
	}
	return fitLines(lines, r.width, r.height)
}

// window keeps offset in range and, unless the wheel placed it, moves it so the target patient
// is among the shown drawn from it.
func (r *rosterPane) window(offset, shown, n int) int {
	offset = min(max(offset, 0), max(n-shown, 0))
	if target := r.target(); !r.manual && target >= 0 {
		if target < offset {
			offset = target
		}
		if target >= offset+shown {
			offset = target - shown + 1
		}
	}
	return offset
}

func moreLabel(arrow string, n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf("%s %d more", arrow, n)
}

// row is one sidebar line: marker, shortcut, ID, NEWS2 and trend, time since the last reading
// (in the warning colour when it is older than its NEWS2 calls for), and "!" for an alarm or
// escalation waiting; or, once the case has ended, where the patient went.
func (r *rosterPane) row(e live.RosterEntry, selected bool) string {
	t := r.theme
	marker, idStyle := " ", t.RosterItem
	if e.ID == r.active {
		marker, idStyle = "▸", t.RosterActive
	}
	age := t.Muted
	if e.Overdue {
		age = t.Warn
	}
	right := scoreCell(t, e.NEWS2) + trendArrow(t, e.Trend) + " " +
		age.Render(fmt.Sprintf("%4s", sinceLabel(r.clock, e.LastChecked))) + " " + alertMark(t, e.Alert.Level)
	if e.Disposition != "" { // the case has ended: where the patient went is all there is to know
		right = t.Muted.Render("→ " + themes.Printable(e.Disposition))
	}
	left := marker + r.shortcut(e.ID) + " "
	idWidth := r.width - lipgloss.Width(left) - lipgloss.Width(right) - 1
	line := left + idStyle.Render(fit(themes.Printable(e.ID), max(idWidth, 1))) + " " + right
	if selected && r.focused {
		return t.Selected.Render(fit(stripStyles(line), r.width))
	}
	return line
}

// lineView is the collapsed roster: the patients on one line, from offset on; markers at either
// end say how many are off the line.
func (r *rosterPane) lineView() string {
	t := r.theme
	order := r.ordered()
	r.hits = r.hits[:0]
	if len(order) == 0 {
		return fit(t.Muted.Render("no patients yet"), r.width)
	}
	items := make([]string, len(order))
	for i, e := range order {
		items[i] = r.stripItem(e, i)
	}
	r.offset = r.stripStart(items)
	sep := t.Muted.Render(" │ ")
	var b strings.Builder
	x := 0
	if r.offset > 0 {
		marker := t.Muted.Render(fmt.Sprintf("‹%d ", r.offset))
		b.WriteString(marker)
		x += lipgloss.Width(marker)
	}
	for i := r.offset; i < len(items); i++ {
		w, gap := lipgloss.Width(items[i]), 0
		if i > r.offset {
			gap = 3
		}
		need := x + gap + w // and room for the marker of those after it, if any
		if i+1 < len(items) {
			need += lipgloss.Width(moreMarker(len(items) - i - 1))
		}
		if need > r.width && i > r.offset {
			b.WriteString(t.Muted.Render(moreMarker(len(items) - i)))
			break
		}
		if gap > 0 {
			b.WriteString(sep)
		}
		x += gap
		r.hits = append(r.hits, rosterHit{row: 0, x0: x, x1: x + w, id: order[i].ID})
		b.WriteString(items[i])
		x += w
	}
	return fit(b.String(), r.width)
}

func moreMarker(n int) string { return fmt.Sprintf(" +%d›", n) }

func (r *rosterPane) stripItem(e live.RosterEntry, i int) string {
	t := r.theme
	item := r.shortcut(e.ID) + " " + themes.Printable(e.ID) + " " + stripStyles(scoreCell(t, e.NEWS2)) + stripStyles(trendArrow(t, e.Trend))
	if e.Disposition != "" {
		item = r.shortcut(e.ID) + " " + themes.Printable(e.ID) + " → " + themes.Printable(e.Disposition)
	}
	if e.Alert.Level != live.AlertNone {
		item += "!"
	}
	switch {
	case i == r.cursor && r.focused:
		return t.Selected.Render(item)
	case e.ID == r.active:
		return t.RosterActive.Render("▸" + item)
	case e.Alert.Level != live.AlertNone:
		return t.RosterAlert.Render(item)
	}
	return t.RosterItem.Render(item)
}

// stripStart is the first patient the strip draws: offset, moved (unless the wheel placed it) so
// that the target patient fits on the line with room for the markers.
func (r *rosterPane) stripStart(items []string) int {
	start := min(max(r.offset, 0), len(items)-1)
	target := r.target()
	if r.manual || target < 0 {
		return start
	}
	if target < start {
		return target
	}
	const markers = 10 // "‹N " and " +N›"
	for ; start < target; start++ {
		w := markers
		for i := start; i <= target; i++ {
			w += lipgloss.Width(items[i]) + 3
		}
		if w <= r.width {
			break
		}
	}
	return start
}

// alertMark is the roster's marker for an alarm or escalation waiting: "!" in the colour of how
// soon to go, a space for none.
func alertMark(t *themes.Theme, level live.AlertLevel) string {
	switch level {
	case live.AlertNone:
		return " "
	case live.AlertUrgent:
		return t.Warn.Render("!")
	}
	return t.RosterAlert.Render("!")
}

func scoreCell(t *themes.Theme, s live.Score) string {
	if !s.Known {
		return t.Muted.Render(" —")
	}
	cell := fmt.Sprintf("%2d", s.Value)
	if s.Scale == 2 { // Scale 1 is the rule; the exception is marked where the score is shown
		cell += "²"
	}
	return bandStyle(t, s.Band).UnsetPadding().Render(cell)
}

func trendArrow(t *themes.Theme, tr live.Trend) string {
	switch tr {
	case live.TrendUp:
		return t.Danger.Render("↑")
	case live.TrendDown:
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
