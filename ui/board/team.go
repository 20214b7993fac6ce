package board

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/ward-sim/ward/session"
)

// The team dialog forms a resuscitation team from enrolled trainees, as `ward team` does: the
// team's name, then the case its shift starts with, then each member's role. Its members join
// the team's shift at their next connection. Enter takes a step, esc cancels.

// Teams is how the board forms a team: ui/lab implements it with what `ward team` runs.
type Teams interface {
	Enrolled() ([]Enrolled, error)                              // the enrolled trainees, by name
	Cases() []string                                            // the scenario IDs a team's shift may start with
	Roles(scenario string) ([]string, error)                    // the roles a member may have in the case's team, the leader first
	Form(name, scenario string, members []session.Member) error // checks the team and forms it
}

// Enrolled is an enrolled trainee, and the team they are in now ("" for none): forming another
// takes them from it.
type Enrolled struct{ Name, Team string }

// serversShift is the case option that starts the team's shift as ward serve's --shift.
const serversShift = "(ward serve's --shift)"

// teamStep is what the team dialog asks for now.
type teamStep int

const (
	teamName teamStep = iota
	teamCase
	teamRoles
)

// teamDialog is the team being formed.
type teamDialog struct {
	step     teamStep
	name     textinput.Model
	scenario string
	cases    []string
	trainees []Enrolled
	roles    []string       // the roles the case allows
	role     map[string]int // each trainee's role, an index into roles; absent: not a member
	cursor   int
	err      string // why the last step was not taken
}

func (m *model) startTeam() {
	d := &teamDialog{name: textinput.New(), role: map[string]int{}}
	d.name.CharLimit = 64
	d.name.Cursor.SetMode(cursor.CursorStatic)
	d.name.Focus()
	m.mode, m.team = modeTeam, d
}

func (m *model) teamKey(msg tea.KeyMsg) tea.Cmd {
	d := m.team
	switch msg.String() {
	case "esc":
		m.mode, m.team = modeBoard, nil
		return nil
	case "enter":
		return m.teamNext()
	}
	if d.step == teamName {
		d.name, _ = d.name.Update(msg)
		return nil
	}
	n := len(d.cases)
	if d.step == teamRoles {
		n = len(d.trainees)
	}
	switch msg.String() {
	case "up", "k":
		d.cursor = max(d.cursor-1, 0)
	case "down", "j":
		d.cursor = min(d.cursor+1, max(n-1, 0))
	case "right", "l", " ":
		d.cycle(1)
	case "left", "h":
		d.cycle(-1)
	}
	return nil
}

// cycle moves the chosen trainee's role on through the case's roles and none.
func (d *teamDialog) cycle(by int) {
	if d.step != teamRoles || len(d.trainees) == 0 {
		return
	}
	who := d.trainees[d.cursor].Name
	i, ok := d.role[who]
	if !ok {
		i = -1
	}
	n := len(d.roles) + 1 // the roles, and none
	if i = (i+1+by+n)%n - 1; i < 0 {
		delete(d.role, who)
	} else {
		d.role[who] = i
	}
}

// teamNext takes the step: the name, the case (and its roles and the trainees to choose from),
// then the team formed on its own goroutine.
func (m *model) teamNext() tea.Cmd {
	d := m.team
	d.err = ""
	switch d.step {
	case teamName:
		if strings.TrimSpace(d.name.Value()) == "" {
			return nil
		}
		d.cases = append([]string{serversShift}, m.teams.Cases()...)
		d.step, d.cursor = teamCase, 0
	case teamCase:
		if d.scenario = d.cases[d.cursor]; d.scenario == serversShift {
			d.scenario = ""
		}
		roles, err := m.teams.Roles(d.scenario)
		if err != nil {
			d.err = err.Error()
			return nil
		}
		trainees, err := m.teams.Enrolled()
		if err != nil {
			d.err = err.Error()
			return nil
		}
		d.roles, d.trainees = roles, trainees
		d.step, d.cursor = teamRoles, 0
	case teamRoles:
		members := d.members()
		if len(members) == 0 {
			d.err = "give at least one trainee a role (→)"
			return nil
		}
		name, scenario := strings.TrimSpace(d.name.Value()), d.scenario
		m.status = "forming team " + name + "…"
		m.mode, m.team = modeBoard, nil
		return func() tea.Msg {
			return doneMsg{trainee: "team " + name, what: "formed: " + describeMembers(members) + "; they join at their next connection",
				err: m.teams.Form(name, scenario, members)}
		}
	}
	return nil
}

// members are the trainees given a role, in the roles' order.
func (d *teamDialog) members() []session.Member {
	var out []session.Member
	for _, e := range d.trainees {
		if i, ok := d.role[e.Name]; ok {
			out = append(out, session.Member{Name: e.Name, Role: d.roles[i]})
		}
	}
	slices.SortStableFunc(out, func(a, b session.Member) int {
		return slices.Index(d.roles, a.Role) - slices.Index(d.roles, b.Role)
	})
	return out
}

func describeMembers(members []session.Member) string {
	parts := make([]string, len(members))
	for i, mb := range members {
		parts[i] = mb.String()
	}
	return strings.Join(parts, ", ")
}

// teamView is the dialog: its title, the question, the name, the cases or the trainees and
// their roles, why a step was not taken, and its keys.
func (m *model) teamView() string {
	d, t := m.team, m.theme
	lines := []string{t.Title.Render("Form a resuscitation team"), ""}
	help := [][2]string{{"enter", "next"}, {"esc", "cancel"}}
	var opts []string
	switch d.step {
	case teamName:
		lines = append(lines, "The team's name (its members see it; its shift is stored as team-NAME):", d.name.View())
	case teamCase:
		lines = append(lines, "Team "+d.name.Value()+": which case does its shift start with?")
		opts = slices.Clone(d.cases)
		help = [][2]string{{"↑/↓", "choose"}, {"enter", "next"}, {"esc", "cancel"}}
	case teamRoles:
		lines = append(lines, fmt.Sprintf("Team %s, %s: give each member a role.", d.name.Value(), cmp.Or(d.scenario, serversShift)),
			t.Muted.Render("roles: "+strings.Join(d.roles, ", ")))
		for _, e := range d.trainees {
			role := "–"
			if i, ok := d.role[e.Name]; ok {
				role = d.roles[i]
			}
			line := fmt.Sprintf("%-20s %-12s", e.Name, role)
			if e.Team != "" {
				line += t.Muted.Render(" now in team " + e.Team)
			}
			opts = append(opts, line)
		}
		if len(d.trainees) == 0 {
			lines = append(lines, t.Muted.Render("(no trainee is enrolled: ward enrol NAME --key FILE)"))
		}
		help = [][2]string{{"↑/↓", "choose"}, {"←/→", "role"}, {"enter", "form the team"}, {"esc", "cancel"}}
	}
	for i, o := range opts {
		if i == d.cursor {
			opts[i] = t.Selected.Render("▸ " + o)
		} else {
			opts[i] = "  " + o
		}
	}
	tail := []string{m.keys(help)}
	if d.err != "" {
		tail = append([]string{t.Danger.Render(d.err)}, tail...)
	}
	lines = append(lines, scrolled(opts, d.cursor, 1, max(m.height-len(lines)-len(tail), 1))...)
	return m.fit(append(lines, tail...))
}
