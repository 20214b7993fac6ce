package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/ward-sim/ward/themes"
)

// Command is a slash command, as the palette lists it.
type Command struct {
	Name    string // with the slash: "/switch"
	Args    string // argument synopsis, e.g. "ID"; empty when it takes none
	Summary string
}

// Shift is a choice in the start dialog.
type Shift struct {
	ID      string // what Engine.Start receives
	Title   string
	Summary string // e.g. "2 patients"
}

// helpView is the `?` overlay, generated from the key bindings, in two
// balanced columns when they fit. It tightens its spacing, then cuts, to
// stay within height.
func helpView(t themes.Theme, keys keyMap, width, height int) string {
	footer := t.Muted.Render("esc or ? closes")
	var body string
	for _, gap := range []string{"\n\n", "\n"} {
		body = helpColumns(t, keys, width-4, gap) + gap + footer
		if lipgloss.Height(body)+2 <= height { // 2: the border
			return t.Dialog.Render(body)
		}
	}
	lines := strings.Split(body, "\n")
	lines = append(lines[:max(height-4, 1)], t.Muted.Render("… enlarge the terminal to see every key"), footer)
	return t.Dialog.Render(strings.Join(lines, "\n"))
}

func helpColumns(t themes.Theme, keys keyMap, width int, gap string) string {
	var blocks []string
	total, colWidth := 0, 0
	for _, g := range keys.helpGroups() {
		lines := []string{t.Title.Render(g.title)}
		for _, b := range g.bindings {
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
	theme    themes.Theme
	keys     keyMap
	commands []Command
	filter   string
	cursor   int
}

func (p *palette) Open() { p.filter, p.cursor = "", 0 }

func (p *palette) matches() []Command {
	if p.filter == "" {
		return p.commands
	}
	want := strings.ToLower(p.filter)
	var out []Command
	for _, c := range p.commands {
		if strings.Contains(strings.ToLower(c.Name+" "+c.Summary), want) {
			out = append(out, c)
		}
	}
	return out
}

// Update returns the chosen command, or done when the palette should close.
func (p *palette) Update(msg tea.KeyMsg) (chosen *Command, done bool) {
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
		p.cursor = max(p.cursor-1, 0)
	case key.Matches(msg, p.keys.Down):
		p.cursor = min(p.cursor+1, max(len(matches)-1, 0))
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

func (p *palette) View(width, height int) string {
	t := p.theme
	inner := min(width-6, 64)
	lines := []string{t.Title.Render("Commands") + "  " + t.Text.Render("› "+p.filter) + t.Accent.Render("▏")}
	matches := p.matches()
	shown := max(height-6, 1)
	first := max(p.cursor-shown+1, 0)
	for i := first; i < len(matches) && i < first+shown; i++ {
		c := matches[i]
		name := c.Name
		if c.Args != "" {
			name += " " + c.Args
		}
		row := fit(sanitize(name), 22) + " " + sanitize(c.Summary)
		if i == p.cursor {
			lines = append(lines, t.Selected.Render(fit(row, inner)))
		} else {
			lines = append(lines, t.Text.Render(truncate(row, inner)))
		}
	}
	if len(matches) == 0 {
		lines = append(lines, t.Muted.Render("no command matches"))
	}
	lines = append(lines, "", t.Muted.Render("enter runs · esc closes"))
	return t.Dialog.Width(inner + 4).Render(strings.Join(lines, "\n"))
}

// startDialog offers the built-in shifts or an empty roster when there is
// no session to resume.
type startDialog struct {
	theme  themes.Theme
	keys   keyMap
	shifts []Shift
	cursor int
}

func (d *startDialog) choices() []Shift {
	return append(append([]Shift(nil), d.shifts...), Shift{ID: "", Title: "Empty roster", Summary: "admit patients as you go"})
}

// Update returns the chosen shift once the user picks one.
func (d *startDialog) Update(msg tea.KeyMsg) (chosen *Shift) {
	choices := d.choices()
	switch {
	case key.Matches(msg, d.keys.Up):
		d.cursor = max(d.cursor-1, 0)
	case key.Matches(msg, d.keys.Down):
		d.cursor = min(d.cursor+1, len(choices)-1)
	case key.Matches(msg, d.keys.Choose):
		return &choices[d.cursor]
	}
	return nil
}

func (d *startDialog) View(width int) string {
	t := d.theme
	inner := min(width-6, 60)
	lines := []string{t.Title.Render("Start a shift"), ""}
	choices := d.choices()
	summaryWidth := 0
	for _, s := range choices {
		summaryWidth = max(summaryWidth, lipgloss.Width(sanitize(s.Summary)))
	}
	titleWidth := max(inner-summaryWidth-1, 12) // titles get what the summaries leave
	for i, s := range choices {
		row := fit(sanitize(s.Title), titleWidth) + " " + sanitize(s.Summary)
		if i == d.cursor {
			lines = append(lines, t.Selected.Render(fit(row, inner)))
		} else {
			lines = append(lines, t.Text.Render(truncate(row, inner)))
		}
	}
	lines = append(lines, "", t.Muted.Render("↑/↓ choose · enter starts · ctrl+c quits"))
	return t.Dialog.Width(inner + 4).Render(strings.Join(lines, "\n"))
}
