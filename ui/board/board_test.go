package board

import (
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/ward-sim/ward/session/live"
	"github.com/ward-sim/ward/session/sessiontest"
	"github.com/ward-sim/ward/themes"
)

// fakeClass is a class of real shifts (sessiontest: real bbolt, offline backend) whose frames
// the test sets, as ui/lab records each trainee's last View().
type fakeClass struct {
	mu       sync.Mutex
	trainees []Trainee
	frames   map[string]string
}

func (c *fakeClass) Trainees() []Trainee {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Trainee(nil), c.trainees...)
}

func (c *fakeClass) Frame(name string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, ok := c.frames[name]
	return f, ok
}

// join connects a trainee whose shift has admitted the patients given as "/admit ..." lines.
func (c *fakeClass) join(t *testing.T, name string, lines ...string) *sessiontest.Rig {
	t.Helper()
	r := sessiontest.Seeded(t)
	for _, l := range lines {
		r.Turn(l)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.trainees = append(c.trainees, Trainee{Name: name, Since: time.Date(2026, 11, 26, 14, 0, 0, 0, time.UTC),
		Live: live.NewLive(r.S, nil)})
	if c.frames == nil {
		c.frames = map[string]string{}
	}
	c.frames[name] = name + "'s screen"
	return r
}

func plainTheme(t *testing.T) themes.Theme {
	t.Helper()
	th, err := themes.New("dark", true)
	if err != nil {
		t.Fatal(err)
	}
	return th
}

func view(m tea.Model) string { return ansi.Strip(m.View()) }

func TestBoardIsClearWithNoTrainee(t *testing.T) {
	m := New(&fakeClass{}, plainTheme(t))
	if v := view(m); !strings.Contains(v, "No trainee is connected") {
		t.Fatalf("empty board says:\n%s", v)
	}
}

func TestBoardListsTraineesAndTheirPatients(t *testing.T) {
	c := &fakeClass{}
	c.join(t, "ana", "/admit patient_1")
	c.join(t, "ben", "/admit patient_2", "/admit patient_3")
	m := New(c, plainTheme(t))
	v := view(m)
	for _, want := range []string{"ana", "ben", "patient_1", "patient_2", "patient_3", "2 connected"} {
		if !strings.Contains(v, want) {
			t.Errorf("board lacks %q:\n%s", want, v)
		}
	}
}
