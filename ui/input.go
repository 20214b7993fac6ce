package ui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/themes"
)

// pasteInlineLimit is the largest paste typed into the textarea. A larger
// one is held aside and sent after the typed text: the textarea re-wraps
// its whole content on every keystroke and caps the number of lines, so a
// 100 KB paste would freeze it or be cut.
const pasteInlineLimit = 4096

// An input is bounded, as a turn is (session.MaxInputBytes): what is typed holds up to
// maxTyped characters, which no one types by hand, and a held paste up to a turn's bytes. A paste
// past that is refused whole with a word, never cut silently; a screen over SSH cannot be made
// to hold more.
const maxTyped = 64 << 10

// lineEnds turns the CR or CRLF a terminal sends for a line end into the newline ward stores.
var lineEnds = strings.NewReplacer("\r\n", "\n", "\r", "\n")

// inputPane is the multi-line input with a history of sent turns.
type inputPane struct {
	theme   *themes.Theme
	ta      textarea.Model
	width   int
	height  int
	focused bool
	history []string
	recall  int    // position in history while browsing; len(history) when not
	held    string // a large paste, sent with the typed text
	rule    drawnRule
	line    drawnLine
	typed   typedLine
}

// typedLine is what is typed, and the cursor's column in it, as last read from the textarea or
// since kept up by typing on a line (typesOnALine): reading them from the textarea copies its
// whole model and converts, wraps and hashes its text, at every keystroke. known is false once
// anything else may have changed the textarea.
type typedLine struct {
	known bool
	text  string
	at    int // the cursor's column, when single
	// single: text is one line of printable ASCII narrower than the textarea, which it shows
	// as it is, the cursor at column at.
	single bool
}

// drawnRule is the rule above the input as last drawn, for a width and a focus: drawn again
// only when either changes, not at every keystroke.
type drawnRule struct {
	width   int
	focused bool
	view    string
}

// drawnLine is what a single typed line is drawn from, as the textarea draws it, for the
// textarea's width, height and focus: the prompt, the lines under the typed one and the
// placeholder. Typing a line of text then costs a few string joins instead of the textarea's
// drawing, which was most of the server's CPU per keystroke under a class. A change of size or
// focus forgets it (the zero drawnLine): it is drawn again for the new ones.
type drawnLine struct {
	width       int                   // the textarea's
	prompt      string                // "" until drawn
	below       string                // the lines under the typed one, each starting with a newline
	placeholder string                // the whole view while nothing is typed, "" until drawn
	cursors     ['~' - ' ' + 1]string // the cursor on each printable character, "" until drawn
	// checked is true once a line drawn from these parts was the textarea's own view: the
	// textarea shows its first line at the top, and goes on doing so while its text is one
	// line (typing, deleting, moving and clearing all keep the first line in view).
	checked bool
}

func newInputPane(theme *themes.Theme) inputPane {
	ta := textarea.New()
	ta.Placeholder = "Say what you do or ask — enter sends, ctrl+j adds a line"
	ta.ShowLineNumbers = false
	ta.Prompt = "│ "
	ta.CharLimit = maxTyped
	ta.MaxHeight = 0
	ta.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("ctrl+j"))
	ta.KeyMap.DeleteAfterCursor = key.NewBinding(key.WithKeys("ctrl+delete"))
	ta.Cursor.SetMode(cursor.CursorStatic) // calm, and stable in golden files
	focused := textarea.Style{
		Base:        lipgloss.NewStyle(),
		Text:        theme.Text,
		Placeholder: theme.Muted,
		Prompt:      theme.Accent,
		EndOfBuffer: theme.Muted,
		CursorLine:  lipgloss.NewStyle(),
	}
	blurred := focused
	blurred.Prompt = theme.Muted
	blurred.Text = theme.Muted
	ta.FocusedStyle, ta.BlurredStyle = focused, blurred
	return inputPane{theme: theme, ta: ta}
}

func (in *inputPane) SetSize(width, height int) {
	if width != in.width || height != in.height {
		in.line, in.typed.known = drawnLine{}, false
	}
	in.width, in.height = width, height
	in.ta.SetWidth(width)
	in.ta.SetHeight(max(in.textHeight(), 1))
}

// textHeight is what is left for the textarea under the rule and the
// held-paste line.
func (in *inputPane) textHeight() int {
	h := in.height - 1
	if in.held != "" {
		h--
	}
	return h
}

func (in *inputPane) Focus() tea.Cmd {
	if !in.focused {
		in.line = drawnLine{}
	}
	in.focused = true
	return in.ta.Focus()
}

func (in *inputPane) Blur() {
	if in.focused {
		in.line = drawnLine{}
	}
	in.focused = false
	in.ta.Blur()
}

// Value is everything that would be sent.
func (in *inputPane) Value() string {
	typed := in.ta.Value()
	switch {
	case in.held == "":
		return typed
	case strings.TrimSpace(typed) == "":
		return in.held
	}
	return typed + "\n" + in.held
}

func (in *inputPane) Empty() bool { return in.ta.Value() == "" && in.held == "" }

// Sent clears the input and remembers text for recall.
func (in *inputPane) Sent(text string) {
	if n := len(in.history); n == 0 || in.history[n-1] != text {
		in.history = append(in.history, text)
	}
	in.clear()
	in.typed.known = false
	in.setHeld("")
	in.recall = len(in.history)
}

// clearByKeys is the most lines clear empties by deleting them.
const clearByKeys = 16

// clear empties the textarea, leaving it as its Reset does. Reset makes a new buffer for 10,000
// lines (240 KB) each time, which under a class was the most the screens allocated: each sent
// line's text is deleted instead, as ctrl+u deletes it, line by line from the end. A long text,
// or a textarea without focus (which takes no keys), is Reset.
func (in *inputPane) clear() {
	if !in.focused || in.ta.LineCount() > clearByKeys {
		in.ta.Reset()
		return
	}
	if in.ta.LineCount() == 1 {
		in.ta.CursorEnd() // as ctrl+end does, without an Update's copying and wrapping
	} else {
		in.ta, _ = in.ta.Update(tea.KeyMsg{Type: tea.KeyCtrlEnd})
	}
	// Each ctrl+u deletes what is before the cursor on its line, or, at the line's start, joins
	// the line to the one above: two a line at most.
	for range 2*clearByKeys + 1 {
		if in.ta.LineCount() == 1 && in.ta.Length() == 0 {
			return
		}
		in.ta, _ = in.ta.Update(tea.KeyMsg{Type: tea.KeyCtrlU})
	}
	in.ta.Reset() // the keys are bound otherwise
}

// SetValue replaces the typed text, e.g. with a palette command.
func (in *inputPane) SetValue(s string) {
	in.ta.SetValue(s)
	in.typed.known = false
	in.recall = len(in.history)
}

// CanRecall reports whether up/down browse the history rather than move
// the cursor: the input is empty or still shows an unedited recalled entry.
func (in *inputPane) CanRecall() bool {
	if in.held != "" {
		return false
	}
	v := in.ta.Value()
	return v == "" || (in.recall < len(in.history) && v == in.history[in.recall])
}

// Recall steps through earlier inputs; past the newest, the input empties.
func (in *inputPane) Recall(delta int) {
	in.recall = min(max(in.recall+delta, 0), len(in.history))
	in.typed.known = false
	if in.recall == len(in.history) {
		in.ta.Reset()
		return
	}
	in.ta.SetValue(in.history[in.recall])
}

// Update handles a key the model did not claim.
func (in *inputPane) Update(msg tea.KeyMsg) tea.Cmd {
	if msg.Paste && len(msg.Runes) > pasteInlineLimit {
		// Terminals paste line ends as CR; the textarea would turn them
		// into newlines, and so must the held text.
		held := in.held + lineEnds.Replace(string(msg.Runes))
		if len(held) > session.MaxInputBytes {
			return func() tea.Msg {
				return NoticeMsg(fmt.Sprintf("that paste would make your message over %d KiB and was not added; send it in parts",
					session.MaxInputBytes>>10))
			}
		}
		in.setHeld(held)
		return nil
	}
	if msg.Type == tea.KeyBackspace && in.ta.Value() == "" && in.held != "" {
		in.setHeld("")
		return nil
	}
	if in.typesOnALine(msg) {
		c := string(msg.Runes)
		in.ta.InsertString(c)
		in.typed.text = in.typed.text[:in.typed.at] + c + in.typed.text[in.typed.at:]
		in.typed.at++
		return nil
	}
	in.typed.known = false // whatever follows may change the text or move the cursor
	if isText(msg) {
		// Bubble Tea reports runes typed in one burst as a single key whose name is the text,
		// so "right" typed fast would match the cursor-right binding. Text is inserted as text.
		in.ta.InsertString(lineEnds.Replace(string(msg.Runes)))
		return nil
	}
	if key.Matches(msg, in.ta.KeyMap.WordBackward) && in.onlySpacesBeforeTheCursor() {
		// The textarea's word left looks for a word before the cursor until it finds one, for
		// ever when there is none: alt+b on an empty input hung the program (under ward serve,
		// spinning a core of the server's for good). With no word before it, a word left goes
		// to the start, as ctrl+home does.
		msg = tea.KeyMsg{Type: tea.KeyCtrlHome}
	}
	// The textarea cleans a key's runes in place, and Bubble Tea hands every program the same
	// runes for a key such as space: under ward serve, programs typing at once would race.
	msg.Runes = slices.Clone(msg.Runes)
	var cmd tea.Cmd
	in.ta, cmd = in.ta.Update(msg)
	return cmd
}

// typesOnALine reports whether msg is a printable ASCII character typed into a single line of
// such characters, which stays one line narrower than the textarea with it: the textarea would
// only insert it, and then find its view need not scroll, at the cost of matching every key
// binding and wrapping the text twice. (That the view is at its top is what line.checked says.)
func (in *inputPane) typesOnALine(msg tea.KeyMsg) bool {
	typing := msg.Type == tea.KeyRunes || msg.Type == tea.KeySpace
	if !typing || msg.Alt || len(msg.Runes) != 1 || msg.Runes[0] < ' ' || msg.Runes[0] > '~' ||
		!in.focused || !in.line.checked {
		return false
	}
	typed := in.readTyped()
	return typed.single && len(typed.text)+1 < in.line.width
}

// readTyped is what is typed and where the cursor is, read from the textarea unless known.
func (in *inputPane) readTyped() typedLine {
	if !in.typed.known {
		text := in.ta.Value()
		in.typed = typedLine{known: true, text: text, single: len(text) < in.ta.Width() && printableASCII(text)}
		if in.typed.single {
			in.typed.at = in.ta.LineInfo().ColumnOffset
		}
	}
	return in.typed
}

// onlySpacesBeforeTheCursor reports whether everything typed before the cursor is white space.
func (in *inputPane) onlySpacesBeforeTheCursor() bool {
	lines, row, at := strings.Split(in.ta.Value(), "\n"), in.ta.Line(), in.ta.LineInfo()
	current := []rune(lines[row])
	before := strings.Join(lines[:row], "\n") + string(current[:min(at.StartColumn+at.ColumnOffset, len(current))])
	return strings.TrimSpace(before) == ""
}

func (in *inputPane) setHeld(s string) {
	in.held = s
	height := in.ta.Height()
	in.ta.SetHeight(max(in.textHeight(), 1))
	if in.ta.Height() != height {
		in.line = drawnLine{}
	}
	in.typed.known = false
}

// ruleView is the rule above the input: accented while the input has focus.
func (in *inputPane) ruleView() string {
	if in.rule.view == "" || in.rule.width != in.width || in.rule.focused != in.focused {
		style := in.theme.Muted
		if in.focused {
			style = in.theme.Accent
		}
		in.rule = drawnRule{in.width, in.focused, style.Render(strings.Repeat("─", in.width))}
	}
	return in.rule.view
}

func (in *inputPane) View() string {
	t := in.theme
	lines := []string{in.ruleView()}
	if in.held != "" {
		note := fmt.Sprintf("pasted %s, %d lines — sent after your text · backspace on an empty input drops it",
			sizeLabel(len(in.held)), strings.Count(in.held, "\n")+1)
		lines = append(lines, t.Warn.Render(fit(note, in.width)))
	}
	lines = append(lines, in.textView())
	return strings.Join(lines, "\n")
}

// textView is the textarea's view. A single line of printable ASCII narrower than the textarea
// is drawn from parts kept for its size and focus (drawnLine), once checked against the
// textarea's own drawing; anything else (several lines, wrapping, wide characters) is the
// textarea's to draw.
func (in *inputPane) textView() string {
	line := in.readTyped()
	if !line.single {
		in.line.checked = false // the textarea may scroll such text: check again when it holds one line
		return in.ta.View()
	}
	typed := line.text
	if in.line.prompt == "" {
		in.line = in.drawLineParts()
	}
	switch {
	case typed == "" && in.line.checked:
		if in.line.placeholder == "" {
			in.line.placeholder = in.ta.View()
		}
		return in.line.placeholder
	case typed == "":
		return in.ta.View()
	case in.line.checked:
		return in.drawLine(typed, line.at)
	}
	view := in.ta.View()
	in.line.checked = view == in.drawLine(typed, line.at)
	return view
}

// drawLine draws typed, a single line of printable ASCII narrower than the textarea, from the
// kept parts, the cursor at column at: the textarea draws it with one space after it, where the
// cursor stands at its end, and pads it to its width.
func (in *inputPane) drawLine(typed string, at int) string {
	shown := typed + " "
	var b strings.Builder
	b.Grow(len(in.line.prompt) + in.line.width + len(in.line.below) + 16)
	b.WriteString(in.line.prompt)
	b.WriteString(shown[:at])
	b.WriteString(in.cursorOn(shown[at]))
	b.WriteString(shown[at+1:])
	b.WriteString(strings.Repeat(" ", in.line.width-len(shown)))
	b.WriteString(in.line.below)
	return b.String()
}

// cursorOn is the cursor drawn on the printable character c.
func (in *inputPane) cursorOn(c byte) string {
	drawn := &in.line.cursors[c-' ']
	if *drawn == "" {
		cursor := in.ta.Cursor
		cursor.TextStyle = in.textStyle().CursorLine
		cursor.SetChar(string(c))
		*drawn = cursor.View()
	}
	return *drawn
}

// drawLineParts draws the parts of a single typed line's view for the textarea's present size
// and focus.
func (in *inputPane) drawLineParts() drawnLine {
	style := in.textStyle()
	eob := style.EndOfBuffer.Render(string(in.ta.EndOfBufferCharacter) + strings.Repeat(" ", max(in.ta.Width()-1, 0)))
	prompt := style.Prompt.Render(in.ta.Prompt)
	return drawnLine{
		width:  in.ta.Width(),
		prompt: prompt,
		below:  strings.Repeat("\n"+prompt+eob, in.ta.Height()-1),
	}
}

// textStyle is the textarea's style for its focus.
func (in *inputPane) textStyle() *textarea.Style {
	if in.ta.Focused() {
		return &in.ta.FocusedStyle
	}
	return &in.ta.BlurredStyle
}

// printableASCII reports whether s holds only printable ASCII: one column a byte, no tabs, no
// line ends.
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

func sizeLabel(bytes int) string {
	if bytes < 1024 {
		return fmt.Sprintf("%d B", bytes)
	}
	return fmt.Sprintf("%.1f KB", float64(bytes)/1024)
}

// isText reports whether a key message carries several runes at once: fast typing, or a paste
// from a terminal without bracketed paste. Such a message is text, never a key binding.
func isText(msg tea.KeyMsg) bool {
	return msg.Type == tea.KeyRunes && !msg.Alt && len(msg.Runes) > 1
}
