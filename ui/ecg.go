package ui

import (
	"math"
	"strings"
	"time"

	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/themes"
)

// ecgPane draws the monitor's ECG trace as a strip of braille: every cell is two samples wide
// and four dots high, so w columns and h rows show 2w samples at 4h levels. It sweeps a fixed
// time per column, as a monitor's paper speed does, and its right edge is the sim clock, so it
// scrolls as time passes. It never names the rhythm: reading it is the trainee's job.
type ecgPane struct {
	theme   themes.Theme
	width   int
	rows    int
	samples []float64 // reused from frame to frame
	cells   []rune
	view    string
}

// secondsPerColumn is the sweep: 7.2 seconds across 120 columns, 4.8 across 80.
const secondsPerColumn = 0.06

// The strip's voltage range, in millivolts: room for an R wave and a deep S wave.
const ecgTop, ecgBottom = 1.6, -1.2

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
func (p *ecgPane) Render(trace *session.ECGTrace, clock time.Duration) {
	if trace == nil || p.rows == 0 || p.width < 2 {
		p.view = ""
		return
	}
	w, h := p.width-1, p.rows // one column of margin, as the vitals have
	n := 2 * w
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
	prev := level(samples[0], 4*h)
	for i, v := range samples {
		y := level(v, 4*h)
		for lo, hi := min(prev, y), max(prev, y); lo <= hi; lo++ {
			cells[lo/4*w+i/2] |= brailleDot(i%2, lo%4)
		}
		prev = y
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
