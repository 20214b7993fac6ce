package ui

import (
	"math"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/ward-sim/ward/session/live"
	"github.com/ward-sim/ward/themes"
)

// ecgPane draws the monitor's ECG trace as a strip of braille: every cell is two samples wide
// and four dots high, so w columns and h rows show 2w samples at 4h levels. It sweeps a fixed
// time per column, as a monitor's paper speed does, and its right edge is the sim clock, so it
// scrolls as time passes. It never names the rhythm: reading it is the trainee's job.
type ecgPane struct {
	theme   *themes.Theme
	width   int
	rows    int
	samples []float64 // reused from frame to frame
	cells   []rune
	view    string
}

// secondsPerColumn is the sweep: 7.2 seconds across 120 columns, 4.8 across 80. Each dot column
// (half a cell) is drawn from oversample samples.
const (
	secondsPerColumn = 0.06
	oversample       = 4
)

// The strip's voltage range, in millivolts: room for an R wave and a deep S wave.
const ecgTop, ecgBottom = 1.1, -0.8

// ecgRows is how many rows the strip takes in a body this tall: none without a monitor, and none
// where the chat would be squeezed.
func ecgRows(bodyHeight int, monitored bool) int {
	switch {
	case !monitored || bodyHeight < 14:
		return 0
	case bodyHeight >= 28:
		return 3
	}
	return 2
}

func (p *ecgPane) SetSize(width, rows int) { p.width, p.rows = width, rows }

func (p *ecgPane) View() string { return p.view }

// Render draws the trace ending at clock.
func (p *ecgPane) Render(trace live.ECGTrace, clock time.Duration) {
	if trace == nil || p.rows == 0 || p.width < 2 {
		p.view = ""
		return
	}
	w, h := p.width-1, p.rows // one column of margin, as the vitals have
	n := 2 * w * oversample
	if cap(p.samples) < n {
		p.samples = make([]float64, n)
	}
	span := time.Duration(float64(w) * secondsPerColumn * float64(time.Second))
	samples := trace.Samples(p.samples[:n], clock-span, clock)
	if cap(p.cells) < w*h {
		p.cells = make([]rune, w*h)
	}
	cells := p.cells[:w*h]
	for i := range cells {
		cells[i] = 0
	}
	last := samples[0]
	for x := 0; x < 2*w; x++ {
		// Each dot column draws the span its samples cover, joined to the column before, so a
		// spike narrower than a column (an R wave) is never lost between two samples.
		lo, hi := last, last
		for _, v := range samples[x*oversample : (x+1)*oversample] {
			lo, hi = min(lo, v), max(hi, v)
		}
		last = samples[(x+1)*oversample-1]
		for y := level(hi, 4*h); y <= level(lo, 4*h); y++ {
			cells[y/4*w+x/2] |= brailleDot(x%2, y%4)
		}
	}
	lines := make([]string, h)
	for r := range lines {
		var b strings.Builder
		b.WriteByte(' ')
		for _, c := range cells[r*w : (r+1)*w] {
			b.WriteRune(0x2800 + c)
		}
		lines[r] = p.theme.OK.Render(b.String())
	}
	p.view = strings.Join(lines, "\n")
}

// level is the dot row, from the top, of a voltage on a strip dots high.
func level(v float64, dots int) int {
	f := (ecgTop - v) / (ecgTop - ecgBottom)
	return min(max(int(math.Round(f*float64(dots-1))), 0), dots-1)
}

// brailleDot is the bit of the braille cell's dot at column x (0, 1) and row y (0–3), after
// the Unicode braille pattern block's numbering.
func brailleDot(x, y int) rune {
	if y == 3 {
		return rune(0x40 << x)
	}
	return rune(1 << (y + 3*x))
}

// sweepPeriod is how often the strip moves between the once-a-second snapshots: two columns a
// tick at normal speed.
const sweepPeriod = 125 * time.Millisecond

// sweepMsg moves the strip on.
type sweepMsg struct{}

// sweep is the strip's motion: how far past the snapshot's clock it has swept, and whether a
// tick is on its way.
type sweep struct {
	offset  time.Duration
	running bool
}

func sweepLater() tea.Cmd {
	return tea.Tick(sweepPeriod, func(time.Time) tea.Msg { return sweepMsg{} })
}

// sweepStrip moves the strip on by a tick of sim time, never more than a snapshot's worth past
// the last snapshot, and keeps ticking while there is a strip.
func (m *Model) sweepStrip() tea.Cmd {
	if m.state.ECG == nil {
		m.sweep.running = false
		return nil
	}
	if !m.state.Paused {
		step := time.Duration(float64(sweepPeriod) * m.state.Speed)
		m.sweep.offset = min(m.sweep.offset+step, time.Duration(float64(refreshPeriod)*m.state.Speed))
		m.ecg.Render(m.state.ECG, m.state.Clock+m.sweep.offset)
	}
	return sweepLater()
}
