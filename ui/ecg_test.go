package ui

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/ward-sim/ward/session/live"
	"github.com/ward-sim/ward/themes"
)

// sineTrace is a trace for the pane's tests: one beat a second, a narrow spike at each.
type sineTrace struct{}

func (sineTrace) Samples(dst []float64, from, to time.Duration) []float64 {
	for i := range dst {
		t := from.Seconds() + (to-from).Seconds()*float64(i)/float64(len(dst)-1)
		ph := t - math.Floor(t)
		dst[i] = math.Exp(-(ph-0.5)*(ph-0.5)/0.0002) - 0.1
	}
	return dst
}

// The strip draws at any width and height the layout gives it, in braille only: no letters, so
// never the rhythm's name.
func TestECGStripDrawsAtEveryWidthUnnamed(t *testing.T) {
	th, _ := themes.New("dark", true)
	for _, w := range []int{minWidth - sidebarWidth, 60, 80, 91, 120, 200} {
		for _, rows := range []int{2, 3} {
			p := ecgPane{theme: &th}
			p.SetSize(w, rows)
			p.Render(sineTrace{}, 90*time.Second)
			lines := strings.Split(p.View(), "\n")
			if len(lines) != rows {
				t.Fatalf("%d×%d: %d lines", w, rows, len(lines))
			}
			for _, l := range lines {
				if lipgloss.Width(l) != w {
					t.Errorf("%d×%d: a line %d wide", w, rows, lipgloss.Width(l))
				}
				for _, r := range strings.TrimPrefix(l, " ") {
					if r < 0x2800 || r > 0x28ff {
						t.Fatalf("%d×%d: %q is not braille", w, rows, r)
					}
				}
			}
			if !strings.ContainsFunc(p.View(), func(r rune) bool { return r > 0x2800 && r <= 0x28ff }) {
				t.Errorf("%d×%d: nothing drawn", w, rows)
			}
		}
	}
}

// Every theme draws the strip, and NO_COLOR draws it without a single escape.
func TestECGStripInEveryTheme(t *testing.T) {
	for _, name := range themes.Names {
		for _, noColor := range []bool{false, true} {
			th, err := themes.New(name, noColor)
			if err != nil {
				t.Fatal(err)
			}
			p := ecgPane{theme: &th}
			p.SetSize(80, 2)
			p.Render(sineTrace{}, time.Minute)
			if noColor && strings.Contains(p.View(), "\x1b") {
				t.Errorf("%s with NO_COLOR: an escape in %q", name, p.View())
			}
			if !strings.ContainsRune(p.View(), '⠀') {
				t.Errorf("%s: no strip", name)
			}
		}
	}
}

// The strip scrolls with the sim clock: half a second later the beat has moved left.
func TestECGStripScrollsWithTheClock(t *testing.T) {
	th, _ := themes.New("dark", true)
	p := ecgPane{theme: &th}
	p.SetSize(81, 2)
	p.Render(sineTrace{}, 60*time.Second)
	before := p.View()
	p.Render(sineTrace{}, 60*time.Second+300*time.Millisecond) // 5 columns at 0.06 s a column
	after := []rune(strings.Split(p.View(), "\n")[0])
	was := []rune(strings.Split(before, "\n")[0])
	if string(after[1:len(after)-5]) != string(was[6:]) {
		t.Errorf("the strip did not move five columns left:\n%s\n%s", string(was), string(after))
	}
	if ecgRows(30, false) != 0 || ecgRows(10, true) != 0 || ecgRows(20, true) != 2 || ecgRows(30, true) != 3 {
		t.Error("ecgRows gives the wrong heights")
	}
}

// BenchmarkECGStrip120 draws one frame of a 120-column, 3-row strip from a trace that costs one
// exp a sample (the engine's trace, BenchmarkTraceFrame, is measured on its own). Target, with
// the trace's samples: under 1 ms.
func BenchmarkECGStrip120(b *testing.B) {
	th, _ := themes.New("dark", false)
	p := ecgPane{theme: &th}
	p.SetSize(120, 3)
	clock := time.Minute
	b.ReportAllocs()
	for b.Loop() {
		clock += 100 * time.Millisecond
		p.Render(sineTrace{}, clock)
	}
}

// Between snapshots the strip sweeps on with the sim clock, at the session's speed, and stops
// while the clock is paused.
func TestECGStripSweepsBetweenSnapshots(t *testing.T) {
	th, _ := themes.New("dark", true)
	m := &Model{ecg: ecgPane{theme: &th}}
	m.ecg.SetSize(81, 2)
	m.state = live.ViewState{ECG: sineTrace{}, Clock: time.Minute, Speed: 1}
	m.ecg.Render(m.state.ECG, m.state.Clock)
	first := m.ecg.View()
	if cmd := m.sweepStrip(); cmd == nil || m.ecg.View() == first || m.sweep.offset != sweepPeriod {
		t.Fatalf("a sweep tick did not move the strip (offset %v)", m.sweep.offset)
	}
	for range 20 {
		m.sweepStrip()
	}
	if m.sweep.offset != refreshPeriod {
		t.Errorf("swept %v past the snapshot, want at most %v", m.sweep.offset, refreshPeriod)
	}
	m.state.Paused = true
	held := m.ecg.View()
	if m.sweepStrip(); m.ecg.View() != held {
		t.Error("the strip moved while paused")
	}
	m.state.ECG = nil
	if m.sweepStrip() != nil || m.sweep.running {
		t.Error("the sweep goes on without a strip")
	}
}

// On the screen, a monitored patient's strip sits under the vitals at 120×40 (three rows) and at
// 80×24 (two), the screen keeps its height, and the strip goes when the monitor does.
func TestECGStripOnTheScreen(t *testing.T) {
	for _, c := range []struct{ w, h, rows int }{{120, 40, 3}, {80, 24, 2}} {
		f := newFakeWard()
		m := newTestModel(t, f, c.w, c.h)
		s := f.Snapshot()
		s.ECG, s.Monitor = sineTrace{}, true
		_, cmd := m.Update(snapshotMsg{state: s})
		view := m.View()
		if got := strings.Count(view, "\n") + 1; got != c.h {
			t.Errorf("%d×%d: the screen is %d lines", c.w, c.h, got)
		}
		strip := 0
		for _, l := range strings.Split(view, "\n") {
			if strings.ContainsFunc(l, braille) {
				strip++
			}
		}
		if strip != c.rows || cmd == nil {
			t.Errorf("%d×%d: %d strip rows (want %d), sweep scheduled %v", c.w, c.h, strip, c.rows, cmd != nil)
		}
		s.ECG = nil
		m.Update(snapshotMsg{state: s})
		if strings.ContainsFunc(m.View(), braille) {
			t.Errorf("%d×%d: the strip stayed after the monitor went", c.w, c.h)
		}
	}
}

func braille(r rune) bool { return r >= 0x2800 && r <= 0x28ff }
