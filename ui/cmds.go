package ui

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/aymanbagabas/go-osc52/v2"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ward-sim/ward/session/live"
	"github.com/ward-sim/ward/themes"
)

// Messages from tea.Cmds. Every engine call and every write happens in a
// Cmd; Update only ever sees their results.
type (
	snapshotMsg struct {
		state    live.ViewState
		periodic bool // from the once-a-second refresh, which reschedules itself
	}
	turnStartedMsg struct{ events <-chan live.Update }
	streamMsg      struct {
		events []live.Update
		state  *live.ViewState // a fresh snapshot when the batch changed the session
		done   bool            // the engine closed the channel: the turn is over
	}
	switchedMsg struct {
		state live.ViewState
		err   error
	}
	startedMsg struct {
		state    live.ViewState
		err      error
		theme    themes.Theme // the started trainee's, when Options.StartedTheme is set
		themeErr error
	}
	traceMsg struct {
		back  int
		trace live.TurnTrace
		found bool
	}
	noticeMsg       notice
	clearPreviewMsg struct {
		text    string // the clear as typed, sent if the trainee confirms
		preview live.ClearPreview
		err     error
	}
)

const (
	streamWindow  = 30 * time.Millisecond // deltas arriving this close together are drawn once
	refreshPeriod = time.Second           // the sim clock and vitals move on their own
)

func fetchSnapshot(e Shift) tea.Cmd {
	return func() tea.Msg { return snapshotMsg{state: e.Snapshot()} }
}

func refreshLater(e Shift) tea.Cmd {
	return tea.Tick(refreshPeriod, func(time.Time) tea.Msg {
		return snapshotMsg{state: e.Snapshot(), periodic: true}
	})
}

func submitCmd(ctx context.Context, e Shift, text string) tea.Cmd {
	return func() tea.Msg { return turnStartedMsg{events: e.Submit(ctx, text)} }
}

func retryCmd(ctx context.Context, e Shift) tea.Cmd {
	return func() tea.Msg { return turnStartedMsg{events: e.Retry(ctx)} }
}

// readStream delivers the next batch of a turn's events: the first event
// and everything that follows within window. One batch is one re-render,
// so however fast tokens come, the screen repaints at most once per window.
func readStream(e Shift, events <-chan live.Update, window time.Duration) tea.Cmd {
	return func() tea.Msg {
		batch, done := collect(events, window)
		msg := streamMsg{events: batch, done: done}
		if done || changesSession(batch) {
			s := e.Snapshot()
			msg.state = &s
		}
		return msg
	}
}

func collect(events <-chan live.Update, window time.Duration) (batch []live.Update, done bool) {
	first, ok := <-events
	if !ok {
		return nil, true
	}
	batch = append(batch, first)
	timer := time.NewTimer(window)
	defer timer.Stop()
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return batch, true
			}
			batch = append(batch, ev)
		case <-timer.C:
			return batch, false
		}
	}
}

func changesSession(batch []live.Update) bool {
	for _, ev := range batch {
		if ev.Kind == live.UpdateChanged || ev.Kind == live.UpdateError {
			return true
		}
	}
	return false
}

func switchCmd(ctx context.Context, e Shift, id string) tea.Cmd {
	return func() tea.Msg {
		err := e.Switch(ctx, id)
		return switchedMsg{state: e.Snapshot(), err: err}
	}
}

func loadOlderCmd(ctx context.Context, e Shift) tea.Cmd {
	return func() tea.Msg {
		if err := e.LoadOlder(ctx); err != nil {
			return noticeMsg{text: "could not load older messages: " + err.Error(), level: noticeError}
		}
		return snapshotMsg{state: e.Snapshot()}
	}
}

// startCmd starts the shift, then asks themeOf (when set) for the started trainee's theme.
func startCmd(ctx context.Context, e Shift, shift, trainee string, themeOf func() (themes.Theme, error)) tea.Cmd {
	return func() tea.Msg {
		msg := startedMsg{err: e.Start(ctx, shift, trainee)}
		if msg.err == nil && themeOf != nil {
			msg.theme, msg.themeErr = themeOf()
		}
		msg.state = e.Snapshot()
		return msg
	}
}

func traceCmd(e Traces, back int) tea.Cmd {
	return func() tea.Msg {
		tr, ok := e.Trace(back)
		return traceMsg{back: back, trace: tr, found: ok}
	}
}

// copyCmd puts text on the clipboard with OSC 52 and says what was copied. The payload is
// base64, so this is the one escape sequence ward writes that carries model text, and it cannot
// be abused.
func copyCmd(w io.Writer, what, text string) tea.Cmd {
	return func() tea.Msg { return copied(w, what, text) }
}

func copied(w io.Writer, what, text string) noticeMsg {
	if _, err := osc52.New(text).WriteTo(w); err != nil {
		return noticeMsg{text: "copy failed: " + err.Error(), level: noticeError}
	}
	return noticeMsg{text: fmt.Sprintf("%s copied (%s) — needs a terminal with OSC 52", what, sizeLabel(len(text)))}
}

// copyChatCmd copies the whole active conversation, older pages included, as markdown.
func copyChatCmd(ctx context.Context, e Shift, w io.Writer) tea.Cmd {
	return func() tea.Msg {
		c, err := e.Transcript(ctx)
		if err != nil {
			return noticeMsg{text: "could not read the chat: " + err.Error(), level: noticeError}
		}
		return copied(w, fmt.Sprintf("chat as markdown, %d message%s,", len(c.Messages), plural(len(c.Messages))), c.Markdown())
	}
}

// exportCmd writes the whole active conversation as markdown to the file arg names, or to a
// file named after the patient and the time in opts.SaveDir; a file that exists is replaced only
// when arg ends in --force. A confined screen writes only into opts.SaveDir.
func exportCmd(ctx context.Context, e Shift, opts Options, arg string) tea.Cmd {
	file, force, dir := strings.TrimSpace(arg), false, opts.SaveDir
	if rest, ok := strings.CutSuffix(file, "--force"); ok && (rest == "" || strings.HasSuffix(rest, " ")) {
		file, force = strings.TrimSpace(rest), true
	}
	if opts.Confined && file != "" {
		if filepath.Base(file) != file || file == "." || file == ".." {
			return func() tea.Msg {
				return noticeMsg{text: "on the class server /export takes a file name only: it is saved in your folder there", level: noticeError}
			}
		}
		file = filepath.Join(dir, file)
	}
	return func() tea.Msg {
		c, err := e.Transcript(ctx)
		if err != nil {
			return noticeMsg{text: "could not read the chat: " + err.Error(), level: noticeError}
		}
		if file == "" {
			who := c.PatientID
			if who == "" {
				who = "shift"
			}
			file = filepath.Join(dir, fmt.Sprintf("ward-%s-%s.md", who, time.Now().Format("20060102-150405")))
		}
		if err := live.SaveText(file, force, c.Markdown()); err != nil {
			return noticeMsg{text: "could not export the chat: " + err.Error(), level: noticeError}
		}
		return noticeMsg{text: fmt.Sprintf("chat exported to %s (%d message%s)", file, len(c.Messages), plural(len(c.Messages)))}
	}
}

func clearPreviewCmd(ctx context.Context, e Shift, text string) tea.Cmd {
	return func() tea.Msg {
		p, err := e.ClearPreview(ctx)
		return clearPreviewMsg{text: text, preview: p, err: err}
	}
}

func saveCmd(dir string, turn, call int, text string) tea.Cmd {
	return func() tea.Msg {
		path := filepath.Join(dir, fmt.Sprintf("ward-prompt-turn%d-call%d.txt", turn, call))
		if err := live.SaveText(path, false, text); err != nil {
			return noticeMsg{text: "could not save the prompt: " + err.Error(), level: noticeError}
		}
		return noticeMsg{text: "prompt saved to " + path}
	}
}
