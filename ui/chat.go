package ui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"

	"github.com/ward-sim/ward/session/live"
	"github.com/ward-sim/ward/themes"
)

const (
	bodyIndent     = 2    // message bodies sit under their speaker's name
	maxCachedItems = 4096 // rendered messages kept before old widths are dropped
)

// chatPane shows a history that may hold thousands of messages. It never
// lays out the whole history: positions are (message, line) pairs, and
// only the messages that reach the screen are rendered, once each per
// width and theme.
type chatPane struct {
	theme   *themes.Theme
	md      *markdown
	cache   map[renderKey][]string
	width   int
	height  int
	history []live.ChatMessage
	live    []*liveMessage // messages still streaming, drawn after the history
	queued  []queuedItem   // what waits to be sent, drawn last
	follow  bool           // stick to the newest line
	top     linePos        // first visible line while not following
	unseen  bool           // something arrived below while not following
	hint    string         // shown when there is nothing to show

	selected int  // index into history of the selected message; -1 when none
	showSel  bool // the chat has focus, so the selection is drawn
	search   chatSearch
}

type renderKey struct {
	id      string
	version int
	width   int
	theme   string
}

// padAll pads every line to width, once, when a message is rendered, so
// drawing a frame never has to measure a line again.
func padAll(lines []string, width int) []string {
	for i, l := range lines {
		lines[i] = fit(l, width)
	}
	return lines
}

// linePos addresses a line: line 0 of every message but the first is the
// blank line that separates it from the one above.
type linePos struct{ item, line int }

func (p linePos) before(q linePos) bool {
	return p.item < q.item || (p.item == q.item && p.line < q.line)
}

func newChatPane(theme *themes.Theme) chatPane {
	return chatPane{
		theme:    theme,
		md:       newMarkdown(theme.Markdown, theme.NoColor),
		cache:    map[renderKey][]string{},
		follow:   true,
		selected: -1,
		search:   chatSearch{current: -1},
	}
}

func (c *chatPane) SetSize(width, height int) {
	resized := width != c.width
	c.width, c.height = width, height
	if !c.follow {
		c.top = c.clamp(c.top)
	}
	if resized {
		c.refind() // lines wrap elsewhere at a new width
	}
}

// SetHistory shows msgs. newPatient starts over at the newest line;
// otherwise msgs is the same history, possibly grown.
func (c *chatPane) SetHistory(msgs []live.ChatMessage, newPatient bool) {
	if newPatient {
		c.follow, c.top, c.unseen, c.live, c.selected = true, linePos{}, false, nil, -1
	} else {
		c.keepPlace(msgs)
	}
	c.history = msgs
	c.selected = min(c.selected, len(msgs)-1)
	c.dropFinishedLive()
	c.refind()
}

// keepPlace holds the view on the same message when msgs grows: older messages put before the
// first one shift every index, and newer ones after the view are unseen until the trainee looks.
func (c *chatPane) keepPlace(msgs []live.ChatMessage) {
	if len(c.history) > 0 && len(msgs) > 0 && msgs[0].ID != c.history[0].ID {
		first := c.history[0].ID
		for i, m := range msgs {
			if m.ID == first {
				c.top.item += i
				if c.selected >= 0 {
					c.selected += i
				}
				break
			}
		}
	}
	if !c.follow && len(msgs) > len(c.history) && msgs[len(msgs)-1].ID != c.history[len(c.history)-1].ID {
		c.unseen = true
	}
}

// AtTop reports whether the view shows the first line of the oldest message held.
func (c *chatPane) AtTop() bool { return c.count() > 0 && c.topLine() == linePos{} }

// AppendDelta adds streamed text to message id, creating it on first use.
func (c *chatPane) AppendDelta(id, agent, text string) {
	lm := c.liveMessage(id, agent)
	lm.text.WriteString(text)
	lm.dirty = true
	if !c.follow {
		c.unseen = true
	}
}

// ShowWriting shows the replies another screen's turn is streaming (a team's), as far as they
// have come; a reply that is no longer streaming goes, for the history holds it.
func (c *chatPane) ShowWriting(ws []live.Writing) {
	var shown []*liveMessage
	for _, w := range ws {
		lm := c.liveMessage(w.ID, w.Agent)
		if lm.text.Len() != len(w.Text) {
			lm.text.Reset()
			lm.text.WriteString(w.Text)
			lm.dirty = true
			c.unseen = c.unseen || !c.follow
		}
		shown = append(shown, lm)
	}
	c.live = shown
}

// EndTurn forgets streamed messages; the history now holds whatever the
// engine kept of them.
func (c *chatPane) EndTurn() { c.live = nil }

func (c *chatPane) liveMessage(id, agent string) *liveMessage {
	for _, lm := range c.live {
		if lm.id == id {
			return lm
		}
	}
	lm := &liveMessage{id: id, agent: agent}
	c.live = append(c.live, lm)
	return lm
}

// dropFinishedLive removes streamed messages that the history now holds.
// They are the newest messages, so only the tail is searched.
func (c *chatPane) dropFinishedLive() {
	if len(c.live) == 0 {
		return
	}
	recent := map[string]bool{}
	for i := len(c.history) - 1; i >= 0 && i >= len(c.history)-len(c.live)-8; i-- {
		recent[c.history[i].ID] = true
	}
	kept := c.live[:0]
	for _, lm := range c.live {
		if !recent[lm.id] {
			kept = append(kept, lm)
		}
	}
	c.live = kept
}

func (c *chatPane) count() int { return len(c.history) + len(c.live) + len(c.queued) }

// queuedItem is a line, or a switch of patient, waiting for what runs now to end.
type queuedItem struct {
	line     string
	isSwitch bool
	held     bool // held after a line that did not go as typed, until enter sends it on
}

// SetQueued shows what waits to be sent, below everything else.
func (c *chatPane) SetQueued(items []queuedItem) { c.queued = items }

// queuedLines draws a waiting line as the trainee's, marked as queued, in the muted style: it is
// not in the conversation yet.
func (c *chatPane) queuedLines(q queuedItem) []string {
	text, state := themes.Printable(q.line), "queued"
	if q.held {
		state = "held"
	}
	if q.isSwitch {
		return padAll(c.styledLines(c.theme.Muted, "· "+state+" — "+text, c.width), c.width)
	}
	label := c.theme.UserLabel.Render("You") + c.theme.Muted.Render(" · "+state)
	return padAll(c.withLabel(label, c.styledLines(c.theme.Muted, text, c.width-bodyIndent)), c.width)
}

// body returns the rendered lines of item i, without its separator.
func (c *chatPane) body(i int) []string {
	if i >= len(c.history)+len(c.live) {
		return c.queuedLines(c.queued[i-len(c.history)-len(c.live)])
	}
	if i >= len(c.history) {
		return c.live[i-len(c.history)].lines(c)
	}
	msg := c.history[i]
	key := renderKey{msg.ID, msg.Version, c.width, c.theme.Name}
	if lines, ok := c.cache[key]; ok {
		return lines
	}
	if len(c.cache) >= maxCachedItems {
		c.pruneCache()
	}
	lines := padAll(c.renderMessage(msg), c.width)
	c.cache[key] = lines
	return lines
}

// pruneCache drops renderings for other widths or themes; if the current
// width alone fills the cache, it starts over.
func (c *chatPane) pruneCache() {
	for k := range c.cache {
		if k.width != c.width || k.theme != c.theme.Name {
			delete(c.cache, k)
		}
	}
	if len(c.cache) >= maxCachedItems {
		clear(c.cache)
	}
}

func (c *chatPane) separator(i int) int {
	if i == 0 {
		return 0
	}
	return 1
}

func (c *chatPane) itemHeight(i int) int { return c.separator(i) + len(c.body(i)) }

// renderMessage lays out one message: the speaker, then the body, then the sources it cites.
func (c *chatPane) renderMessage(msg live.ChatMessage) []string {
	text := themes.Printable(msg.Content)
	switch msg.Role {
	case "assistant":
		body := c.md.lines(text, c.width-bodyIndent)
		for _, src := range msg.Sources {
			body = append(body, c.styledLines(c.theme.Muted, themes.Printable(src), c.width-bodyIndent)...)
		}
		return c.withLabel(c.agentLabel(msg.Agent), body)
	case "user":
		who := "You"
		if msg.Speaker != "" {
			who = truncate(themes.Printable(msg.Speaker), c.width)
		}
		return c.withLabel(c.theme.UserLabel.Render(who), c.styledLines(c.theme.Text, text, c.width-bodyIndent))
	default:
		return c.styledLines(c.theme.SystemText, "· "+text, c.width)
	}
}

func (c *chatPane) agentLabel(agent string) string {
	if agent = themes.Printable(agent); agent == "" {
		agent = "assistant"
	}
	return c.theme.AgentLabel.Render(truncate(agent, c.width))
}

func (c *chatPane) withLabel(label string, body []string) []string {
	return append([]string{label}, c.indented(body)...)
}

// indented puts body lines under the speaker's name, padded to the width.
func (c *chatPane) indented(body []string) []string {
	pad := strings.Repeat(" ", bodyIndent)
	for i, l := range body {
		body[i] = fit(pad+l, c.width)
	}
	return body
}

func (c *chatPane) styledLines(style lipgloss.Style, text string, width int) []string {
	lines := strings.Split(wrap(strings.ReplaceAll(text, "\t", "    "), width), "\n")
	for i, l := range lines {
		lines[i] = style.Render(l)
	}
	return lines
}

// bottomTop is the first visible line when the newest line is at the bottom.
func (c *chatPane) bottomTop() linePos {
	need := c.height
	for i := c.count() - 1; i >= 0; i-- {
		h := c.itemHeight(i)
		if h >= need {
			return linePos{i, h - need}
		}
		need -= h
	}
	return linePos{}
}

func (c *chatPane) topLine() linePos {
	if c.follow {
		return c.bottomTop()
	}
	return c.top
}

func (c *chatPane) ScrollUp(n int) { c.scrollTo(c.back(c.topLine(), n)) }

func (c *chatPane) ScrollDown(n int) {
	if !c.follow {
		c.scrollTo(c.forward(c.top, n))
	}
}

// back is the line n lines above pos, or the first line.
func (c *chatPane) back(pos linePos, n int) linePos {
	for n > 0 {
		if pos.line >= n {
			pos.line -= n
			break
		}
		n -= pos.line + 1
		if pos.item == 0 {
			pos.line = 0
			break
		}
		pos.item--
		pos.line = c.itemHeight(pos.item) - 1
	}
	return pos
}

// forward is the line n lines below pos; past the last line it is the position after it.
func (c *chatPane) forward(pos linePos, n int) linePos {
	for n > 0 && pos.item < c.count() {
		h := c.itemHeight(pos.item)
		if pos.line+n < h {
			pos.line += n
			break
		}
		n -= h - pos.line
		pos = linePos{pos.item + 1, 0}
	}
	return pos
}

// visible reports whether line pos is on screen.
func (c *chatPane) visible(pos linePos) bool {
	top := c.topLine()
	return !pos.before(top) && pos.before(c.forward(top, c.height))
}

// reveal brings the lines from first to last on screen, showing first when they do not fit.
func (c *chatPane) reveal(first, last linePos) {
	switch {
	case first.before(c.topLine()):
		c.scrollTo(first)
	case !c.visible(last):
		top := c.back(last, c.height-1)
		if first.before(top) {
			top = first
		}
		c.scrollTo(top)
	}
}

func (c *chatPane) PageUp()   { c.ScrollUp(max(c.height-1, 1)) }
func (c *chatPane) PageDown() { c.ScrollDown(max(c.height-1, 1)) }
func (c *chatPane) Top()      { c.scrollTo(linePos{}) }
func (c *chatPane) End()      { c.follow, c.unseen = true, false }

// scrollTo moves the view; reaching the newest line resumes following.
func (c *chatPane) scrollTo(pos linePos) {
	if !pos.before(c.bottomTop()) {
		c.End()
		return
	}
	c.follow, c.top = false, pos
}

func (c *chatPane) clamp(pos linePos) linePos {
	if pos.item >= c.count() {
		return c.bottomTop()
	}
	pos.line = min(pos.line, max(c.itemHeight(pos.item)-1, 0))
	return pos
}

// Following reports whether the view sticks to the newest line.
func (c *chatPane) Following() bool { return c.follow }

func (c *chatPane) View() string {
	if c.count() == 0 {
		lines := strings.Split(c.hint, "\n")
		for i, l := range lines {
			lines[i] = truncate(l, c.width)
		}
		hint := c.theme.Muted.Render(strings.Join(lines, "\n"))
		return lipgloss.Place(c.width, c.height, lipgloss.Center, lipgloss.Center, hint)
	}
	blank := strings.Repeat(" ", c.width)
	lines := make([]string, 0, c.height)
	pos := c.topLine()
	for i := pos.item; i < c.count() && len(lines) < c.height; i++ {
		first := 0
		if i == pos.item {
			first = pos.line
		}
		sep := c.separator(i)
		for l := first; l < sep && len(lines) < c.height; l++ {
			lines = append(lines, blank)
		}
		body := c.body(i)
		for l := max(first-sep, 0); l < len(body) && len(lines) < c.height; l++ {
			lines = append(lines, c.decorate(i, l, body[l]))
		}
	}
	for len(lines) < c.height {
		lines = append(lines, blank)
	}
	if !c.follow && c.unseen && c.height > 0 {
		lines[c.height-1] = c.newMessagesMarker()
	}
	return strings.Join(lines, "\n")
}

func (c *chatPane) newMessagesMarker() string {
	marker := c.theme.NewMessages.Render("new messages ↓ end")
	return lipgloss.PlaceHorizontal(c.width, lipgloss.Right, marker)
}

// decorate draws the selection bar on the first line of the selected message, and marks search
// matches on line l of item i's body.
func (c *chatPane) decorate(i, l int, line string) string {
	if c.showSel && i == c.selected && l == 0 {
		return c.theme.Selected.Render(fit(stripStyles(line), c.width))
	}
	return c.search.highlight(c.theme, i, l+c.separator(i), line)
}

// ItemAt is the message drawn on row y of the pane, or -1 for a blank row.
func (c *chatPane) ItemAt(y int) int {
	if y < 0 || y >= c.height {
		return -1
	}
	pos := c.forward(c.topLine(), y)
	if pos.item >= c.count() || pos.line < c.separator(pos.item) {
		return -1
	}
	return pos.item
}

// Select moves the selection to message i of the history and brings it on screen.
func (c *chatPane) Select(i int) {
	if len(c.history) == 0 {
		c.selected = -1
		return
	}
	c.selected = min(max(i, 0), len(c.history)-1)
	c.reveal(linePos{c.selected, 0}, linePos{c.selected, c.itemHeight(c.selected) - 1})
}

// SelectVisible selects the newest message on screen, unless the selection already is on screen.
func (c *chatPane) SelectVisible() {
	if c.selected >= 0 && c.visible(linePos{c.selected, c.separator(c.selected)}) {
		return
	}
	last := c.ItemAt(c.height - 1)
	for y := c.height - 1; last < 0 && y >= 0; y-- {
		last = c.ItemAt(y)
	}
	c.selected = min(last, len(c.history)-1)
}

// Selected is the selected message, if there is one.
func (c *chatPane) Selected() (live.ChatMessage, bool) {
	if c.selected < 0 || c.selected >= len(c.history) {
		return live.ChatMessage{}, false
	}
	return c.history[c.selected], true
}
