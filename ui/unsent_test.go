package ui

import (
	"io"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/ward-sim/ward/themes"
)

// What a dropped connection's screen had not sent comes back on the next: the lines held, saying
// why, and sent on by enter; the text in the input as it was. Unsent reads them back.
func TestUnsentLinesComeBackHeld(t *testing.T) {
	f := newFakeWard()
	th, err := themes.New("dark", false)
	if err != nil {
		t.Fatal(err)
	}
	m := New(f, Options{Theme: th, Clipboard: io.Discard, SaveDir: t.TempDir(),
		Unsent: []string{"any allergies?", "obs please"}, Typed: "and her"})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	flat := strings.Join(strings.Fields(screen(m)), " ")
	if !strings.Contains(flat, "your connection dropped before these were sent") || !strings.Contains(flat, "held 2 lines") {
		t.Errorf("the held lines are not shown:\n%s", screen(m))
	}
	if lines, typed := m.Unsent(); !slices.Equal(lines, []string{"any allergies?", "obs please"}) || typed != "and her" {
		t.Errorf("Unsent is %q, %q", lines, typed)
	}
	if _, submitted := f.recorded(); len(submitted) != 0 {
		t.Fatalf("held lines went before enter: %q", submitted)
	}
	m.input.ta.SetValue("")
	press(t, m, "enter")
	if _, submitted := f.recorded(); len(submitted) == 0 || submitted[0] != "any allergies?" {
		t.Errorf("enter sent %q; want the held lines, oldest first", submitted)
	}
}
