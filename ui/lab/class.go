package lab

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/live"
	"github.com/ward-sim/ward/ui"
	"github.com/ward-sim/ward/ui/board"
)

// The board reads the class through board.Class.
var _ board.Class = (*Class)(nil)

// Class is the trainees connected now, each with their running shift and the frame their
// screen last drew: what the instructor's board reads.
type Class struct {
	mu     sync.Mutex
	seats  map[string]*seat
	drafts map[string]draft // what a trainee's last screen had not sent, for their next
}

// draft is what a screen had not sent when its connection ended (ui.Model.Unsent).
type draft struct {
	lines []string
	typed string
}

// seat is one trainee's connection.
type seat struct {
	name  string
	since time.Time
	live  *live.Live
	frame atomic.Pointer[string]
	close func(line string) // ends the connection, the line its last words
	done  chan struct{}     // closed once its shift is saved and its view closed
	team  string            // the team whose shift it shows; "" for the trainee's own
	role  string            // the trainee's role in the team
}

func newClass() *Class { return &Class{seats: map[string]*seat{}, drafts: map[string]draft{}} }

// keep holds what the trainee's screen had not sent until their next connection.
func (c *Class) keep(trainee string, d draft) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(d.lines) == 0 && d.typed == "" {
		delete(c.drafts, trainee)
		return
	}
	c.drafts[trainee] = d
}

// draft hands over what the trainee's last screen had not sent.
func (c *Class) draft(trainee string) draft {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := c.drafts[trainee]
	delete(c.drafts, trainee)
	return d
}

// take seats st, and returns the seat it takes over from (nil for none), which the caller closes
// and waits for: one trainee has one connection, and the newest wins, so a connection that
// dropped without the server knowing never locks its trainee out.
func (c *Class) take(st *seat) (old *seat) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old = c.seats[st.name]
	c.seats[st.name] = st
	return old
}

// leave unseats st, unless a newer connection of the same trainee has taken over.
func (c *Class) leave(st *seat) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seats[st.name] == st {
		delete(c.seats, st.name)
	}
}

// Trainees are the trainees connected now whose shift is running, sorted by name; a team's
// members are one row, named for the team and its members connected, in role order.
func (c *Class) Trainees() []board.Trainee {
	var out []board.Trainee
	for _, r := range c.rows() {
		out = append(out, board.Trainee{Name: r.name, Since: r.seats[0].since, Live: r.seats[0].live})
	}
	return out
}

// row is one row of the board: a trainee's seat, or a team's members' seats.
type row struct {
	name  string
	seats []*seat // a team's sorted by role; the first's frame is the row's
}

// rows are the board's rows, sorted by name.
func (c *Class) rows() []row {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []row
	teams := map[string]int{}
	for _, st := range c.seats {
		switch i, ok := teams[st.team]; {
		case st.live == nil:
		case st.team == "":
			out = append(out, row{name: st.name, seats: []*seat{st}})
		case ok:
			out[i].seats = append(out[i].seats, st)
		default:
			teams[st.team] = len(out)
			out = append(out, row{seats: []*seat{st}})
		}
	}
	for i, r := range out {
		if r.seats[0].team == "" {
			continue
		}
		slices.SortStableFunc(r.seats, func(a, b *seat) int {
			if d := session.RoleRank(a.role) - session.RoleRank(b.role); d != 0 {
				return d
			}
			return strings.Compare(a.name, b.name)
		})
		var members []string
		for _, st := range r.seats {
			members = append(members, st.name+" ("+st.role+")")
		}
		out[i].name = "team " + r.seats[0].team + ": " + strings.Join(members, ", ")
	}
	slices.SortFunc(out, func(a, b row) int { return strings.Compare(a.name, b.name) })
	return out
}

// Frame is the screen of the board's row named (a trainee, or a team: its first member's) as
// it was last drawn; false when they are not connected.
func (c *Class) Frame(name string) (string, bool) {
	c.mu.Lock()
	st := c.seats[name]
	c.mu.Unlock()
	if st == nil {
		for _, r := range c.rows() {
			if r.name == name {
				st = r.seats[0]
			}
		}
	}
	if st == nil {
		return "", false
	}
	if f := st.frame.Load(); f != nil {
		return *f, true
	}
	return "", true
}

// seat shows st's running shift to the board: their own, or their team's (named, with their
// role).
func (c *Class) seat(st *seat, l *live.Live, team, role string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	st.live, st.team, st.role = l, team, role
}

// framed is a program's model that keeps every frame it draws where the board can read it,
// and tells the trainee when their terminal is larger than ward draws.
type framed struct {
	tea.Model
	frame *atomic.Pointer[string]
	size  *askedSize
}

func (f framed) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m, cmd := f.Model.Update(msg)
	if _, resized := msg.(tea.WindowSizeMsg); resized {
		if word := f.size.tooLarge(); word != "" {
			m, _ = m.Update(ui.NoticeMsg(word))
		}
	}
	f.Model = m
	return f, cmd
}

func (f framed) View() string {
	v := f.Model.View()
	f.frame.Store(&v)
	return v
}
