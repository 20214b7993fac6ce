package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/themes"
)

// ShiftChoice is a choice in the start dialog.
type ShiftChoice struct {
	ID      string // what Shift.Start receives
	Title   string
	Summary string // e.g. "2 patients"
	// Reasons say why each of its patients was chosen (the suggested next shift), one line each.
	Reasons []string
	// Trainee: the choice is this trainee's own (their suggested next shift), offered while the
	// dialog names them; "" for anyone.
	Trainee string
	// Stay closes the dialog on the shift behind it (one that is over, still to review) and
	// starts nothing.
	Stay bool
}

// helpView is the `?` overlay, generated from the key bindings, in two balanced columns when
// they fit. It tightens its spacing to stay within height; when it still does not fit, it shows
// the lines from offset on and scrolls. It returns the largest useful offset.
func helpView(t *themes.Theme, keys keyMap, width, height, offset int) (view string, maxOffset int) {
	mouse := t.Title.Render("Mouse") + "\n" + t.Text.Render(wrap(strings.Join(mouseHelp, " "), min(width-4, 64)))
	var body string
	for _, gap := range []string{"\n\n", "\n"} {
		body = helpColumns(t, keys, width-4, gap) + gap + mouse
		if lipgloss.Height(body)+4 <= height { // the border, a gap and the footer
			return t.Dialog.Render(body + gap + t.Muted.Render("esc or ? closes")), 0
		}
	}
	lines := strings.Split(body, "\n")
	room := max(height-3, 1) // the border and the footer
	maxOffset = max(len(lines)-room, 0)
	offset = min(max(offset, 0), maxOffset)
	footer := fmt.Sprintf("↑/↓ scroll (%d–%d of %d) · esc or ? closes", offset+1, min(offset+room, len(lines)), len(lines))
	// Every line at the width of the widest, so the box keeps its size as it scrolls.
	shown := fitLines(lines[offset:min(offset+room, len(lines))], lipgloss.Width(body), room)
	return t.Dialog.Render(shown + "\n" + t.Muted.Render(footer)), maxOffset
}

func helpColumns(t *themes.Theme, keys keyMap, width int, gap string) string {
	var blocks []string
	total, colWidth := 0, 0
	for _, g := range keys.helpGroups() {
		lines := []string{t.Title.Render(g.Title)}
		for _, b := range g.Bindings {
			h := b.Help()
			lines = append(lines, t.Accent.Render(fit(h.Key, 10))+" "+t.Text.Render(h.Desc))
		}
		block := strings.Join(lines, "\n")
		blocks = append(blocks, block)
		total += len(lines)
		colWidth = max(colWidth, lipgloss.Width(block))
	}
	if width < 2*colWidth+3 {
		return strings.Join(blocks, gap)
	}
	// The first column takes groups until it holds about half the lines.
	split, lines := 0, 0
	for split < len(blocks) && lines < total/2 {
		lines += lipgloss.Height(blocks[split])
		split++
	}
	left := lipgloss.NewStyle().Width(colWidth + 3).Render(strings.Join(blocks[:split], gap))
	return lipgloss.JoinHorizontal(lipgloss.Top, left, strings.Join(blocks[split:], gap))
}

// palette is the ctrl+k command list: type to filter, enter to choose.
type palette struct {
	theme    *themes.Theme
	keys     keyMap
	commands []session.Command
	filter   string
	cursor   int
}

func (p *palette) Open() { p.filter, p.cursor = "", 0 }

func (p *palette) matches() []session.Command {
	if p.filter == "" {
		return p.commands
	}
	want := strings.ToLower(p.filter)
	var out []session.Command
	for _, c := range p.commands {
		if strings.Contains(strings.ToLower(c.Name+" "+c.Help), want) {
			out = append(out, c)
		}
	}
	return out
}

// Move moves the cursor delta commands, within the matches.
func (p *palette) Move(delta int) {
	p.cursor = min(max(p.cursor+delta, 0), max(len(p.matches())-1, 0))
}

// Update returns the chosen command, or done when the palette should close.
func (p *palette) Update(msg tea.KeyMsg) (chosen *session.Command, done bool) {
	matches := p.matches()
	switch {
	case key.Matches(msg, p.keys.Close):
		return nil, true
	case key.Matches(msg, p.keys.Choose):
		if p.cursor < len(matches) {
			return &matches[p.cursor], true
		}
		return nil, true
	case key.Matches(msg, p.keys.Up):
		p.Move(-1)
	case key.Matches(msg, p.keys.Down):
		p.Move(1)
	case msg.Type == tea.KeyBackspace:
		if p.filter != "" {
			p.filter = string([]rune(p.filter)[:len([]rune(p.filter))-1])
			p.cursor = 0
		}
	case msg.Type == tea.KeyRunes || msg.Type == tea.KeySpace:
		p.filter += string(msg.Runes)
		p.cursor = 0
	}
	return nil, false
}

// View lists the matches, each name beside its summary; a summary too long for the line wraps
// under itself rather than being cut.
func (p *palette) View(width, height int) string {
	t := p.theme
	inner := min(width-6, 96)
	const nameWidth = 22
	lines := []string{t.Title.Render("Commands") + "  " + t.Text.Render("› "+p.filter) + t.Accent.Render("▏")}
	matches := p.matches()
	room := max(height-6, 1)
	rows := make([][]string, len(matches))
	for i, c := range matches {
		name := c.Name
		if c.Args != "" {
			name += " " + c.Args
		}
		summary := strings.Split(wrap(themes.Printable(c.Help), max(inner-nameWidth-1, 10)), "\n")
		for j, l := range summary {
			label := ""
			if j == 0 {
				label = themes.Printable(name)
			}
			rows[i] = append(rows[i], fit(label, nameWidth)+" "+l)
		}
	}
	// The first entry drawn: back from the cursor while whole entries still fit above it.
	first := 0
	if len(rows) > 0 {
		first = p.cursor
		for used := len(rows[first]); first > 0 && used+len(rows[first-1]) <= room; first-- {
			used += len(rows[first-1])
		}
	}
	used := 0
	for i := first; i < len(rows) && used+len(rows[i]) <= room; i++ {
		for _, row := range rows[i] {
			if i == p.cursor {
				lines = append(lines, t.Selected.Render(fit(row, inner)))
			} else {
				lines = append(lines, t.Text.Render(fit(row, inner)))
			}
		}
		used += len(rows[i])
	}
	if len(matches) == 0 {
		lines = append(lines, t.Muted.Render("no command matches"))
	}
	lines = append(lines, "", t.Muted.Render("enter runs · esc closes"))
	return t.Dialog.Width(inner + 4).Render(strings.Join(lines, "\n"))
}

// startDialog offers the built-in shifts or an empty roster when there is no session to
// resume, for the trainee it names: typing changes the name, unless the database was opened
// with that trainee's passphrase.
type startDialog struct {
	theme   *themes.Theme
	keys    keyMap
	shifts  []ShiftChoice
	cursor  int
	trainee string
	fixed   bool   // the trainee cannot change here
	err     string // why the last start failed
}

// choices are the shifts offered to the trainee the dialog names now, then an empty roster.
func (d *startDialog) choices() []ShiftChoice {
	var out []ShiftChoice
	for _, s := range d.shifts {
		if s.Trainee == "" || s.Trainee == d.trainee {
			out = append(out, s)
		}
	}
	return append(out, ShiftChoice{ID: "", Title: "Empty roster", Summary: "admit patients as you go"})
}

// Update returns the chosen shift once the user picks one.
func (d *startDialog) Update(msg tea.KeyMsg) (chosen *ShiftChoice) {
	switch {
	case key.Matches(msg, d.keys.Up):
		d.Move(-1)
	case key.Matches(msg, d.keys.Down):
		d.Move(1)
	case key.Matches(msg, d.keys.Choose):
		return &d.choices()[d.cursor]
	case d.fixed:
	case msg.Type == tea.KeyBackspace:
		if r := []rune(d.trainee); len(r) > 0 {
			d.trainee = string(r[:len(r)-1])
		}
	case msg.Type == tea.KeyRunes && !msg.Alt && !msg.Paste, msg.Type == tea.KeySpace:
		d.trainee += string(msg.Runes)
	}
	d.Move(0) // another trainee may have fewer choices
	return nil
}

// offer puts the trainee's next shift first. A cursor the trainee moved stays on their choice;
// one they left on the first is on the offer.
func (d *startDialog) offer(next ShiftChoice) {
	d.shifts = append([]ShiftChoice{next}, d.shifts...)
	if d.cursor > 0 && (next.Trainee == "" || next.Trainee == d.trainee) {
		d.cursor++
	}
}

// Move moves the cursor delta choices.
func (d *startDialog) Move(delta int) {
	d.cursor = min(max(d.cursor+delta, 0), len(d.choices())-1)
}

// View sizes the dialog to its longest choice, up to the screen, so no title is cut while there
// is room for it.
func (d *startDialog) View(width int) string {
	t := d.theme
	footer := "type the trainee's name · ↑/↓ choose · enter starts · ctrl+c quits"
	trainee := t.Muted.Render("Trainee: ") + t.Text.Render(themes.Printable(d.trainee)) + t.Accent.Render("▏")
	if d.fixed {
		footer = "↑/↓ choose · enter starts · ctrl+c quits"
		trainee = t.Muted.Render("Trainee: ") + t.Text.Render(themes.Printable(d.trainee)) + t.Muted.Render(" (signed in: their passphrase or key opened ward)")
	}
	choices := d.choices()
	titleWidth, summaryWidth := 0, 0
	for _, s := range choices {
		titleWidth = max(titleWidth, lipgloss.Width(themes.Printable(s.Title)))
		summaryWidth = max(summaryWidth, lipgloss.Width(themes.Printable(s.Summary)))
	}
	inner := min(max(titleWidth+2+summaryWidth, lipgloss.Width(footer), lipgloss.Width(trainee)), width-6)
	titleWidth = max(inner-summaryWidth-2, 12) // a title gets what the summaries leave
	lines := []string{t.Title.Render("Start a shift"), "", truncate(trainee, inner), ""}
	for i, s := range choices {
		row := fit(themes.Printable(s.Title), titleWidth) + "  " + themes.Printable(s.Summary)
		if i == d.cursor {
			lines = append(lines, t.Selected.Render(fit(row, inner)))
		} else {
			lines = append(lines, t.Text.Render(fit(row, inner)))
		}
		for n, why := range s.Reasons { // under their shift, each hanging from its number
			wrapped := strings.Split(wrap(themes.Printable(why), max(inner-5, 1)), "\n")
			for k, line := range wrapped {
				lead := "     "
				if k == 0 {
					lead = fmt.Sprintf("  %d. ", n+1)
				}
				lines = append(lines, t.Muted.Render(lead+line))
			}
		}
	}
	if d.err != "" {
		lines = append(lines, "", t.Danger.Render(wrap(themes.Printable(d.err), inner)))
	}
	lines = append(lines, "", t.Muted.Render(truncate(footer, inner)))
	return t.Dialog.Width(inner + 4).Render(strings.Join(lines, "\n"))
}
