package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/ward-sim/ward/themes"
)

// match is one occurrence of the search query on screen: a line of a message (counting its
// separator, as linePos does) and the cells it covers.
type match struct {
	item, line int
	col, width int
}

func (m match) pos() linePos { return linePos{m.item, m.line} }

// chatSearch finds the query in the rendered lines of the messages held, so a match is
// highlighted exactly where it is drawn. Case is ignored.
type chatSearch struct {
	query   string
	matches []match
	current int    // index into matches; -1 when there is none
	at      string // ID of the current match's message, to keep it when the history changes
}

// markupless drops the markdown characters a rendering hides, for the cheap test of which
// messages can hold the query at all.
var markupless = strings.NewReplacer("*", "", "_", "", "`", "", "~", "")

// refind searches again after the query, the history or the width changed, staying on the same
// match when it is still there.
func (c *chatPane) refind() {
	s := &c.search
	if s.query == "" {
		s.matches, s.current = nil, -1
		return
	}
	var keep match
	if s.current >= 0 {
		keep = s.matches[s.current]
	}
	s.matches, s.current = nil, -1
	want := strings.ToLower(s.query)
	cheap := markupless.Replace(want)
	for i, msg := range c.history {
		if !strings.Contains(strings.ToLower(markupless.Replace(msg.Content)), cheap) {
			continue
		}
		sep := c.separator(i)
		for l, line := range c.body(i) {
			s.matches = append(s.matches, findIn(stripStyles(line), want, i, l+sep)...)
		}
		if msg.ID == s.at {
			for j := range s.matches {
				if m := s.matches[j]; m.item == i && m.line == keep.line && m.col == keep.col {
					s.current = j
				}
			}
		}
	}
}

// findIn lists the occurrences of want (lower case) in one plain line.
func findIn(line, want string, item, lineNo int) []match {
	var out []match
	lower := strings.ToLower(line)
	for from := 0; ; {
		i := strings.Index(lower[from:], want)
		if i < 0 {
			return out
		}
		start := from + i
		out = append(out, match{item: item, line: lineNo, col: ansi.StringWidth(lower[:start]),
			width: ansi.StringWidth(lower[start : start+len(want)])})
		from = start + len(want)
	}
}

// SetQuery searches for q. It stays on the match it was on when that still matches, and
// otherwise moves to the nearest match above it (or above the bottom of the view), so typing
// narrows the search where the trainee is looking.
func (c *chatPane) SetQuery(q string) {
	s := &c.search
	anchor := c.forward(c.topLine(), c.height-1)
	if s.current >= 0 {
		anchor = s.matches[s.current].pos()
	}
	s.query = q
	c.refind()
	if s.current < 0 && len(s.matches) > 0 {
		s.current = 0 // every match is below the anchor: the first of them
		for j, m := range s.matches {
			if !anchor.before(m.pos()) {
				s.current = j
			}
		}
	}
	c.showMatch()
}

// NextMatch moves delta matches on, +1 newer and -1 older, wrapping around at either end; it
// reports whether it wrapped.
func (c *chatPane) NextMatch(delta int) (wrapped bool) {
	s := &c.search
	n := len(s.matches)
	if n == 0 {
		return false
	}
	next := s.current + delta
	wrapped = next < 0 || next >= n
	s.current = (next + n) % n
	c.showMatch()
	return wrapped
}

// AtFirstMatch reports whether the search is on the oldest match held.
func (c *chatPane) AtFirstMatch() bool { return c.search.current <= 0 }

// EndSearch forgets the query and the highlights; the view stays where the search left it.
func (c *chatPane) EndSearch() { c.search = chatSearch{current: -1} }

func (c *chatPane) showMatch() {
	s := &c.search
	if s.current < 0 {
		s.at = ""
		return
	}
	m := s.matches[s.current]
	s.at = c.history[m.item].ID
	if !c.visible(m.pos()) {
		c.scrollTo(c.back(m.pos(), c.height/2))
	}
}

// highlight marks the matches on one drawn line.
func (s *chatSearch) highlight(t *themes.Theme, item, line int, text string) string {
	if len(s.matches) == 0 {
		return text
	}
	var out strings.Builder
	at := 0
	for j, m := range s.matches {
		if m.item != item || m.line != line {
			continue
		}
		style := t.Match
		if j == s.current {
			style = t.MatchCurrent
		}
		out.WriteString(ansi.Cut(text, at, m.col))
		out.WriteString(ansi.ResetStyle)
		out.WriteString(style.Render(stripStyles(ansi.Cut(text, m.col, m.col+m.width))))
		at = m.col + m.width
	}
	if at == 0 {
		return text
	}
	// TruncateLeft keeps the escape sequences of what it drops, so the rest keeps its style.
	out.WriteString(ansi.TruncateLeft(text, at, ""))
	return out.String()
}

// Status is the search's one-line summary: which match of how many.
func (s *chatSearch) Status() string {
	switch {
	case s.query == "":
		return ""
	case len(s.matches) == 0:
		return "no match"
	}
	return fmt.Sprintf("%d/%d", s.current+1, len(s.matches))
}
