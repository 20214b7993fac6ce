package ui

import (
	"context"
	"errors"
	"os"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/ward-sim/ward/session/live"
	"github.com/ward-sim/ward/themes"
)

// Traces is what the inspector reads: turns counted back from the latest. A running session
// (Shift) and a recorded trace (live.Recorded) both have them.
type Traces interface {
	Trace(back int) (trace live.TurnTrace, ok bool)
}

// Recorded are turns read from a trace: all of them at hand, so the inspector knows where they end.
type Recorded interface {
	Traces
	Len() int
}

// RunInspector shows the prompt inspector alone, over recorded turns, with the TUI's inspector
// keys, until the user closes it or ctx ends. It opens on the latest turn.
func RunInspector(ctx context.Context, traces Recorded, opts Options) error {
	themes.Use(opts.Theme)
	_, err := tea.NewProgram(newTraceView(traces, opts), tea.WithAltScreen(), tea.WithMouseCellMotion(), tea.WithContext(ctx)).Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// traceView is the inspector as a program of its own: the dialog fills the screen, a notice
// line below it says what a copy or a save did.
type traceView struct {
	traces    Recorded
	opts      Options
	keys      keyMap
	inspector inspector
	notice    notice
}

func newTraceView(traces Recorded, opts Options) *traceView {
	if opts.Theme.Name == "" {
		opts.Theme, _ = themes.New("", false)
	}
	if opts.Clipboard == nil {
		opts.Clipboard = os.Stderr
	}
	keys := newKeyMap()
	return &traceView{traces: traces, opts: opts, keys: keys, inspector: inspector{theme: &opts.Theme, keys: keys}}
}

func (v *traceView) Init() tea.Cmd { return v.load(0) }

func (v *traceView) load(back int) tea.Cmd {
	v.inspector.Loading(back)
	return traceCmd(v.traces, back)
}

func (v *traceView) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		v.inspector.SetSize(msg.Width, msg.Height) // the box is one line shorter: the notice's
	case traceMsg:
		v.inspector.SetTrace(msg.back, msg.trace, msg.found)
	case noticeMsg:
		v.notice = notice(msg)
	case tea.MouseMsg:
		switch msg.Button {
		case tea.MouseButtonWheelUp:
			v.inspector.Scroll(-wheelLines)
		case tea.MouseButtonWheelDown:
			v.inspector.Scroll(wheelLines)
		}
	case tea.KeyMsg:
		return v, v.key(msg)
	}
	return v, nil
}

func (v *traceView) key(msg tea.KeyMsg) tea.Cmd {
	if key.Matches(msg, v.keys.Quit) {
		return tea.Quit
	}
	v.notice = notice{}
	switch action := v.inspector.Update(msg); action {
	case inspectClose:
		return tea.Quit
	case inspectOlder:
		if v.inspector.back+1 >= v.traces.Len() {
			v.notice = notice{text: "this is the trace's first turn"}
			return nil
		}
		return v.load(v.inspector.back + 1)
	case inspectNewer:
		return v.load(max(v.inspector.back-1, 0))
	case inspectCopy, inspectSave:
		return v.inspector.export(action, v.opts)
	}
	return nil
}

func (v *traceView) View() string {
	if v.inspector.width == 0 {
		return "" // the terminal's size is not known yet
	}
	line := v.opts.Theme.Muted.Render(truncate(themes.Printable(v.notice.text), v.inspector.width))
	return v.inspector.View() + "\n" + line
}
