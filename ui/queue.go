package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/ward-sim/ward/session"
)

// request is one thing the trainee asked for while ward was busy: a line to send, or a switch to
// a patient (alt+N, ctrl+n/p, alt+a, a roster row). Requests run one at a time, in the order
// asked, so each line reaches the patient that the lines and switches before it made active:
// "review patient_2", a question, alt+3, another question puts the first question to patient_2
// and the second to patient_3, however fast they were typed.
type request struct {
	line    string // the line as typed; "" for a switch
	patient string // the patient to switch to
	key     string // what asked for the switch, for the chat and the status bar ("alt+3")
	// confirmed: the trainee said yes to this line in a question, so it is not asked about again.
	confirmed bool
}

// busy reports whether a request would have to wait: a turn runs, a switch or a clear's count
// is on its way, or a question waits for its answer. Only one thing talks to the session at a
// time, so nothing overtakes what was asked before it.
func (m *Model) busy() bool {
	return m.turn != nil || m.switching || m.counting || m.overlay == overlayConfirm
}

// send takes the input's line: it clears at once and the line runs now, or after what runs now.
// Enter on an empty input sends held lines on.
func (m *Model) send() tea.Cmd {
	text := strings.TrimSpace(m.input.Value())
	if text == "" {
		return m.release()
	}
	m.input.Sent(text)
	m.chat.End()
	if !m.failedAt.IsZero() { // typed before the trainee can have read why the line before failed
		m.held = append(m.held, request{line: text})
		m.showHeld()
		return nil
	}
	return m.enqueue(request{line: text})
}

// enqueue adds r behind what waits, and starts it when nothing does.
func (m *Model) enqueue(r request) tea.Cmd {
	m.queue = append(m.queue, r)
	m.showQueue()
	return m.next()
}

// next starts the oldest request when ward is free. Every path that ends a busy state calls it.
func (m *Model) next() tea.Cmd {
	if m.busy() {
		return nil
	}
	if m.notice.untilIdle {
		m.notice = notice{} // it spoke of what was running, which has ended
	}
	if len(m.queue) == 0 || m.quitting {
		return nil
	}
	r := m.queue[0]
	m.queue = m.queue[1:]
	m.showQueue()
	if r.line == "" {
		return m.switchNow(r.patient)
	}
	return m.run(r)
}

// run does what a line asks: a clear is counted and asked about first; /inspect and /export are
// the screen's own; anything else is a turn.
func (m *Model) run(r request) tea.Cmd {
	line := r.line
	if !r.confirmed && session.IsClearRequest(line) {
		m.counting = true
		return clearPreviewCmd(m.ctx, m.shift, line)
	}
	name, arg, _ := strings.Cut(line, " ")
	switch name { // the commands the screen answers itself (session.Command.Screen)
	case session.CmdInspect:
		return tea.Batch(m.openInspector(), m.next())
	case session.CmdExport:
		return tea.Batch(exportCmd(m.ctx, m.shift, m.opts, strings.TrimSpace(arg)), m.next())
	}
	return m.startTurn(func(ctx context.Context) tea.Cmd { return submitCmd(ctx, m.shift, line) })
}

// hold stops the lines queued after one that did not go as typed (its turn failed, or the
// trainee said no to the patient it would have admitted): they may have been meant for what did
// not happen. Lines typed now run ahead of them; enter on an empty input sends them on, esc takes
// them back; a line the trainee has said yes to is not held. why is what went wrong, which the
// notice keeps.
func (m *Model) hold(why notice) {
	m.heldWhy = why
	var kept []request // lines the trainee said yes to go on
	for _, r := range m.queue {
		if r.confirmed {
			kept = append(kept, r)
		} else {
			m.held = append(m.held, r)
		}
	}
	m.queue = kept
	m.showHeld()
}

// failed holds what was queued after a line whose turn failed, and the lines sent before the
// trainee can have read why: until the keyboard has been quiet for answerGuard, as for a question.
func (m *Model) failed(why notice) {
	m.failedAt = m.now()
	m.hold(why)
}

// readSince forgets a failure once the keyboard has been quiet for answerGuard after it: a key
// pressed after such a pause was pressed by a trainee who has read why. Until then, lines sent
// were typed ahead of the failure and are held with what was queued. It runs on every key.
func (m *Model) readSince(now time.Time) {
	quiet := m.failedAt
	if m.lastKey.After(quiet) {
		quiet = m.lastKey
	}
	if now.Sub(quiet) >= answerGuard {
		m.failedAt = time.Time{}
	}
}

// showHeld shows the waiting lines, and says why some are held and what sends them on.
func (m *Model) showHeld() {
	m.showQueue()
	n := len(m.held)
	if n == 0 {
		return
	}
	them := "them"
	if n == 1 {
		them = "it"
	}
	text := strings.TrimPrefix(fmt.Sprintf("%s — held %d line%s typed after it: enter on an empty input sends %s on",
		m.heldWhy.text, n, plural(n), them), " — ")
	m.notice = notice{text: text, level: max(m.heldWhy.level, noticeWarn)}
}

// release sends the held lines on, after anything typed since they were held.
func (m *Model) release() tea.Cmd {
	if len(m.held) == 0 {
		return nil
	}
	m.queue, m.held = append(m.queue, m.held...), nil
	m.notice, m.failedAt = notice{}, time.Time{}
	m.showQueue()
	return m.next()
}

// takeBack undoes the newest request still waiting, queued or held: a line comes back into the
// input to be edited or dropped, a switch is forgotten. It reports whether there was one.
func (m *Model) takeBack() bool {
	from := &m.queue
	if len(m.queue) == 0 {
		from = &m.held
	}
	n := len(*from)
	if n == 0 {
		return false
	}
	last := (*from)[n-1]
	if last.line != "" && !m.input.Empty() {
		m.notice = notice{text: "esc takes a queued line back into an empty input — send or clear what you are typing first", level: noticeWarn, untilIdle: true}
		return true
	}
	*from = (*from)[:n-1]
	m.showQueue()
	if last.line == "" {
		m.notice = notice{text: last.key + " to " + last.patient + " taken back", untilIdle: true}
		return true
	}
	m.input.SetValue(last.line)
	m.notice = notice{text: "took the queued line back — enter queues it again", untilIdle: true}
	return true
}

// switchTo changes the active patient by keyboard or mouse, now or after what runs now. missing
// explains an empty id; how names the key, for the queue.
func (m *Model) switchTo(id, missing, how string) tea.Cmd {
	if id == "" {
		m.notice = notice{text: missing, level: noticeWarn}
		return nil
	}
	if !m.busy() && len(m.queue) == 0 && id == m.state.Patient.ID {
		return nil
	}
	return m.enqueue(request{patient: id, key: how})
}

func (m *Model) switchNow(id string) tea.Cmd {
	if id == m.state.Patient.ID {
		return m.next()
	}
	m.switching = true
	return switchCmd(m.ctx, m.shift, id)
}

// acknowledge acknowledges the alerts waiting on the active patient, as /ack does.
func (m *Model) acknowledge() tea.Cmd {
	if m.state.Patient.ID == "" && len(m.queue) == 0 {
		m.notice = notice{text: "no patient is active — alt+a goes to the alarm first", level: noticeWarn}
		return nil
	}
	return m.enqueue(request{line: session.CmdAck})
}

func (m *Model) retry() tea.Cmd {
	if m.busy() {
		m.notice = notice{text: "ctrl+r retries once nothing is running or queued — esc takes back or cancels", level: noticeWarn, untilIdle: true}
		return nil
	}
	m.chat.End()
	return m.startTurn(func(ctx context.Context) tea.Cmd { return retryCmd(ctx, m.shift) })
}

func (m *Model) startTurn(run func(context.Context) tea.Cmd) tea.Cmd {
	ctx, cancel := context.WithCancel(m.ctx)
	m.turn = &turn{cancel: cancel}
	m.notice, m.lastErr = notice{}, false
	return run(ctx)
}

// showQueue puts the waiting requests at the foot of the chat, in the order they will run: those
// queued, then the held ones.
func (m *Model) showQueue() {
	var shown []queuedItem
	for _, r := range append(slices.Clip(m.queue), m.held...) {
		item := queuedItem{line: r.line, held: len(shown) >= len(m.queue)}
		if r.line == "" {
			item.line = fmt.Sprintf("%s: switch to %s", r.key, r.patient)
			item.isSwitch = true
		}
		shown = append(shown, item)
	}
	m.chat.SetQueued(shown)
}

// activity says in the status bar what runs and what waits, so it never speaks of a reply that
// has ended.
func (m *Model) activity() string {
	var now string
	switch {
	case m.turn != nil && m.turn.cancelled:
		now = "cancelling…"
	case m.turn != nil && m.turn.ahead > 0:
		now = fmt.Sprintf("waiting for the model · %d ahead", m.turn.ahead)
	case m.turn != nil:
		now = "generating…"
	case m.switching:
		now = "switching…"
	case m.counting:
		now = "counting what a clear archives…"
	case m.overlay == overlayConfirm:
		now = "waiting for your answer"
	}
	if n := len(m.queue); n > 0 {
		now = strings.TrimPrefix(fmt.Sprintf("%s · %d queued", now, n), " · ")
	}
	if n := len(m.held); n > 0 {
		now = strings.TrimPrefix(fmt.Sprintf("%s · %d held", now, n), " · ")
	}
	return now
}
