package board

import (
	"context"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/live"
)

// The inject dialog builds one session.Injection a step at a time: what kind of event, then the
// patient (and for a deterioration the state of their case, for an admission the scenario from
// the library), then the words of a result or a call. Enter takes a step, esc cancels. The
// injection runs on its own goroutine, since it waits for a turn the trainee has running.

// step is what the dialog asks for now.
type step int

const (
	stepKind step = iota
	stepPatient
	stepState
	stepScenario
	stepText
)

// option is one line a step offers: the value it sets and how the instructor reads it.
type option struct{ value, label string }

// dialog is the inject dialog for one trainee's shift.
type dialog struct {
	trainee string
	live    *live.Live
	view    live.ViewState
	st      live.Standing
	in      session.Injection
	step    step
	options []option
	cursor  int
	text    textinput.Model
}

var kinds = []option{
	{session.InjectDeterioration, "a deterioration of a patient to a state of their case"},
	{session.InjectAdmission, "a new admission, with a case from the library"},
	{session.InjectResult, "a result arriving for a patient"},
	{session.InjectCall, "a relative's phone call about a patient"},
}

func newDialog(r row) *dialog {
	d := &dialog{trainee: r.name, live: r.live, view: r.view, st: r.standing, step: stepKind, options: kinds}
	d.text = textinput.New()
	d.text.CharLimit = 300
	d.text.Cursor.SetMode(cursor.CursorStatic) // the board passes the text input only keys
	return d
}

// prompt is what the step asks.
func (d *dialog) prompt() string {
	switch d.step {
	case stepPatient:
		return "Which patient?"
	case stepState:
		return "Move " + d.in.PatientID + " to which state of their case? (the trainee is not told its name)"
	case stepScenario:
		return "Which case does the new patient have?"
	case stepText:
		if d.in.Kind == session.InjectResult {
			return "The result, as the lab reports it (e.g. K+ 6.8 mmol/L):"
		}
		return "What the relative says on the phone:"
	}
	return "Inject what?"
}

// patients are the patients whose cases are open, as the roster names them, with their state.
func (d *dialog) patients() []option {
	var out []option
	for _, p := range d.view.Roster {
		if _, open := d.st.Choices.States[p.ID]; open {
			out = append(out, option{p.ID, fmt.Sprintf("%s  %s  (state %s)", p.ID, p.Name, standingOf(d.st, p.ID).State)})
		}
	}
	return out
}

func (d *dialog) states() []option {
	var out []option
	now := standingOf(d.st, d.in.PatientID).State
	for _, s := range d.st.Choices.States[d.in.PatientID] {
		label := s
		if s == now {
			label += "  (now)"
		}
		out = append(out, option{s, label})
	}
	return out
}

func (d *dialog) scenarios() []option {
	out := make([]option, len(d.st.Choices.Scenarios))
	for i, id := range d.st.Choices.Scenarios {
		out[i] = option{id, id}
	}
	return out
}

// choose takes the option under the cursor and moves on; it returns the injection's command when
// the dialog is complete.
func (d *dialog) choose() tea.Cmd {
	if len(d.options) == 0 {
		return nil
	}
	v := d.options[d.cursor].value
	switch d.step {
	case stepKind:
		d.in.Kind = v
		if v == session.InjectAdmission {
			d.ask(stepScenario, d.scenarios())
		} else {
			d.ask(stepPatient, d.patients())
		}
	case stepPatient:
		d.in.PatientID = v
		if d.in.Kind == session.InjectDeterioration {
			d.ask(stepState, d.states())
		} else {
			d.ask(stepText, nil)
			return d.text.Focus()
		}
	case stepState:
		d.in.State = v
		return d.apply()
	case stepScenario:
		d.in.Scenario = v
		return d.apply()
	}
	return nil
}

func (d *dialog) ask(s step, options []option) {
	d.step, d.options, d.cursor = s, options, 0
}

// apply runs the injection on its own goroutine: it waits for any turn the trainee has running.
func (d *dialog) apply() tea.Cmd {
	in, l, name := d.in, d.live, d.trainee
	return func() tea.Msg {
		return doneMsg{trainee: name, what: "injected " + describe(in), err: l.Inject(context.Background(), in)}
	}
}

// describe is an injection in the status line's words.
func describe(in session.Injection) string {
	switch in.Kind {
	case session.InjectDeterioration:
		return fmt.Sprintf("a deterioration of %s to %s", in.PatientID, in.State)
	case session.InjectAdmission:
		return "an admission with " + in.Scenario
	case session.InjectResult:
		return fmt.Sprintf("a result for %s: %s", in.PatientID, in.Text)
	}
	return fmt.Sprintf("a relative's call about %s: %q", in.PatientID, in.Text)
}

func (m *model) injectKey(msg tea.KeyMsg) tea.Cmd {
	d := m.inject
	switch msg.String() {
	case "esc":
		m.mode, m.inject = modeBoard, nil
		return nil
	case "enter":
		if d.step == stepText {
			if d.in.Text = strings.TrimSpace(d.text.Value()); d.in.Text == "" {
				return nil
			}
			return m.injecting(d.apply())
		}
		cmd := d.choose()
		if d.step == stepText || cmd == nil {
			return cmd
		}
		return m.injecting(cmd)
	}
	if d.step == stepText {
		var cmd tea.Cmd
		d.text, cmd = d.text.Update(msg)
		return cmd
	}
	switch msg.String() {
	case "up", "k":
		d.cursor = max(d.cursor-1, 0)
	case "down", "j":
		d.cursor = min(d.cursor+1, max(len(d.options)-1, 0))
	}
	return nil
}

// injecting closes the dialog while the injection runs; the status line says how it came out.
func (m *model) injecting(cmd tea.Cmd) tea.Cmd {
	m.status = "injecting into " + m.inject.trainee + "'s shift…"
	m.mode, m.inject = modeBoard, nil
	return cmd
}

// injectView is the dialog: its title, the question, the options or the text, and its keys.
func (m *model) injectView() string {
	d, t := m.inject, m.theme
	lines := []string{t.Title.Render("Inject into " + d.trainee + "'s shift"), "", d.prompt()}
	help := [][2]string{{"↑/↓", "choose"}, {"enter", "next"}, {"esc", "cancel"}}
	if d.step == stepText {
		lines = append(lines, d.text.View())
		help = [][2]string{{"enter", "inject"}, {"esc", "cancel"}}
	} else {
		if len(d.options) == 0 {
			lines = append(lines, t.Muted.Render("(nothing to choose: no open case, or every scenario is on the roster)"))
		}
		var opts []string
		for i, o := range d.options {
			if i == d.cursor {
				opts = append(opts, t.Selected.Render("▸ "+o.label))
			} else {
				opts = append(opts, "  "+o.label)
			}
		}
		lines = append(lines, scrolled(opts, d.cursor, 1, max(m.height-len(lines)-1, 1))...)
	}
	return m.fit(append(lines, m.keys(help)))
}
