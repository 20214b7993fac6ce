package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/themes"
)

// answerGuard is how long a question must have been on screen, with no key pressed, before a key
// answers it. Keys typed before the question was drawn were meant for the input (the trainee
// typing ahead of a slow reply has not seen it), so until then they go there.
const answerGuard = 600 * time.Millisecond

// confirmDialog asks a yes/no question before something that cannot be undone.
type confirmDialog struct {
	theme    *themes.Theme
	title    string
	body     []string // paragraphs
	yesLabel string
	yes      string // the line a yes sends
	// holdOnNo: the lines queued after the question wait when the answer is no, as they may have
	// been meant for the patient a yes would have admitted.
	holdOnNo bool
	opened   time.Time // when it was put on screen
}

// answerable reports whether a key pressed at now may answer: the question has been on screen
// and the keyboard quiet for answerGuard, and the input is empty (a trainee who is typing is not
// answering).
func (c *confirmDialog) answerable(now, lastKey time.Time, inputEmpty bool) bool {
	quiet := c.opened
	if lastKey.After(quiet) {
		quiet = lastKey
	}
	return inputEmpty && now.Sub(quiet) >= answerGuard
}

// View draws the question; typing says the input holds text, which must be sent or emptied
// before a key answers.
func (c *confirmDialog) View(width int, typing bool) string {
	t := c.theme
	inner := min(width-8, 70)
	lines := []string{t.Warn.Bold(true).Render(c.title), ""}
	for _, p := range c.body {
		for _, l := range strings.Split(wrap(themes.Printable(p), inner), "\n") {
			lines = append(lines, t.Text.Render(l))
		}
		lines = append(lines, "")
	}
	note := "Keys typed before this question was drawn go to the input."
	if typing {
		note = "Your text stays in the input: send it (enter) or empty it, then answer."
	}
	lines = append(lines, t.Accent.Render("y")+t.Muted.Render(": "+c.yesLabel+" · ")+
		t.Accent.Render("n")+t.Muted.Render(" or esc: keep everything as it is"),
		t.Muted.Render(wrap(note, inner)))
	return t.Dialog.Width(inner + 4).Render(strings.Join(lines, "\n"))
}

// ask opens a question, or puts it behind the one open now: no question replaces another.
func (m *Model) ask(c confirmDialog) {
	c.theme = &m.theme
	if len(m.confirms) == 0 {
		c.opened = m.now()
	}
	m.confirms = append(m.confirms, c)
	m.overlay = overlayConfirm
}

// answered closes the open question; the next one waiting opens in its place.
func (m *Model) answered() {
	m.confirms = m.confirms[1:]
	if len(m.confirms) == 0 {
		m.overlay = overlayNone
		return
	}
	m.confirms[0].opened = m.now()
}

// confirmClear asks before a clear, saying what it archives and how to get it back. A shift
// with nothing in it is cleared without asking.
func (m *Model) confirmClear(msg clearPreviewMsg) tea.Cmd {
	m.counting = false
	if msg.err != nil {
		m.notice = notice{text: "could not count what a clear would archive: " + msg.err.Error(), level: noticeError}
		return m.next()
	}
	p := msg.preview
	if p.Patients == 0 && p.Messages == 0 {
		return m.sendConfirmed(msg.text)
	}
	m.ask(confirmDialog{title: "Clear the whole shift?", yesLabel: "archive and clear", yes: msg.text,
		body: []string{
			fmt.Sprintf("%d patient%s and %d message%s will be archived as archive %d, and the shift goes on with no patient.",
				p.Patients, plural(p.Patients), p.Messages, plural(p.Messages), p.Archive),
			fmt.Sprintf("To bring them back, quit ward and run: ward archive restore %d", p.Archive),
		}})
	return nil
}

// confirmLine asks the trainee the session's question; yes sends line as a turn of its own.
func (m *Model) confirmLine(question, line string) {
	m.ask(confirmDialog{title: "Are you sure?", body: []string{question}, yesLabel: "yes: " + line, yes: line,
		holdOnNo: strings.HasPrefix(line, session.CmdAdmit+" ")})
}

// confirmKey answers the open question with y or n (esc is no). Enter is not an answer: it sends
// what is typed. ok is false for a key that is not an answer, which then does what it always does.
func (m *Model) confirmKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	switch {
	case key.Matches(msg, m.keys.Yes):
		line := m.confirms[0].yes
		m.answered()
		return m.sendConfirmed(line), true
	case key.Matches(msg, m.keys.No):
		hold := m.confirms[0].holdOnNo
		m.answered()
		m.notice = notice{text: "nothing was changed"}
		if hold {
			m.hold(m.notice)
		}
		return m.next(), true
	}
	return nil, false
}

// sendConfirmed runs a line the trainee has said yes to before anything typed after it.
func (m *Model) sendConfirmed(line string) tea.Cmd {
	m.queue = append([]request{{line: line, confirmed: true}}, m.queue...)
	m.showQueue()
	return m.next()
}
