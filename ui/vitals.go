package ui

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"time"

	"github.com/NimbleMarkets/ntcharts/sparkline"
	"github.com/charmbracelet/lipgloss"

	"github.com/ward-sim/ward/session/live"
	"github.com/ward-sim/ward/themes"
)

const trendWindow = 30 * time.Minute // how much sim time the sparklines cover

// vitalsPane draws HR, RR, SpO2 and SBP side by side: current value and
// direction, with a sparkline under it when there are two lines to use.
type vitalsPane struct {
	theme  *themes.Theme
	width  int
	height int // 1: compact; 2: values over sparklines
	view   string
	drawn  drawnVitals // what view was drawn from
}

// drawnVitals is everything the vitals are drawn from: a snapshot that changes none of it (most of
// a turn's: the same observations in the trend window) leaves them as they were drawn.
type drawnVitals struct {
	width, height    int
	monitor, patient bool
	shown            []live.VitalSeries // each series with the points its trend window holds
}

func (v *vitalsPane) SetSize(width, height int) { v.width, v.height = width, height }

func (v *vitalsPane) View() string { return v.view }

func (v *vitalsPane) Render(s live.ViewState) {
	shown := make([]live.VitalSeries, len(s.Vitals))
	for i, series := range s.Vitals {
		shown[i] = series
		shown[i].Points = recent(series.Points, s.Clock)
	}
	d := drawnVitals{width: v.width, height: v.height, monitor: s.Monitor, patient: s.Patient.ID != "", shown: shown}
	if v.view != "" && reflect.DeepEqual(d, v.drawn) {
		return
	}
	v.drawn = d
	if len(shown) == 0 {
		msg := "no observations yet"
		if s.Patient.ID == "" {
			msg = ""
		}
		v.view = fitLines([]string{v.theme.Muted.Render(msg)}, v.width, v.height)
		return
	}
	source := "measured"
	if s.Monitor {
		source = "monitor"
	}
	tag := v.theme.Muted.Render(" " + source)
	cellWidth := (v.width - lipgloss.Width(tag)) / len(shown)
	tops, bottoms := make([]string, len(shown)), make([]string, len(shown))
	for i, series := range shown {
		tops[i], bottoms[i] = v.cell(series, series.Points, cellWidth)
	}
	top := strings.Join(tops, "") + tag
	if v.height < 2 {
		v.view = fit(top, v.width)
		return
	}
	v.view = fitLines([]string{top, strings.Join(bottoms, "")}, v.width, v.height)
}

// cell returns a vital's value line and its sparkline, each cellWidth wide.
// In the compact layout the sparkline shares the value's line if it fits.
func (v *vitalsPane) cell(s live.VitalSeries, points []live.VitalPoint, cellWidth int) (string, string) {
	t := v.theme
	name := t.Muted.Render(themes.Printable(s.Name) + " ")
	if len(points) == 0 {
		return fit(name+t.Muted.Render("—"), cellWidth), strings.Repeat(" ", cellWidth)
	}
	unit := ""
	if cellWidth >= 16 {
		unit = t.Muted.Render(" " + themes.Printable(s.Unit))
	}
	last := points[len(points)-1].Value
	label := name + t.Text.Bold(true).Render(vitalValue(last)) + unit + " " + directionArrow(t, points)
	if v.height >= 2 {
		return fit(label, cellWidth-1) + " ", fit(spark(t, points, cellWidth-2), cellWidth)
	}
	if room := cellWidth - lipgloss.Width(label) - 2; cellWidth >= 24 && room >= 4 {
		label += " " + spark(t, points, min(room, 12))
	}
	return fit(label, cellWidth-1) + " ", ""
}

func recent(points []live.VitalPoint, clock time.Duration) []live.VitalPoint {
	for i, p := range points {
		if p.At >= clock-trendWindow {
			return points[i:]
		}
	}
	return nil
}

func formatValue(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// vitalValue is a vital as the monitor shows it: a zero is no pulse, no pressure or no saturation
// trace (a cardiac arrest), which a monitor shows as dashes.
func vitalValue(v float64) string {
	if v == 0 {
		return "---"
	}
	return formatValue(v)
}

// directionArrow compares the last two observations; changes under 2% are
// noise.
func directionArrow(t *themes.Theme, points []live.VitalPoint) string {
	if len(points) < 2 {
		return t.Muted.Render("·")
	}
	prev, last := points[len(points)-2].Value, points[len(points)-1].Value
	switch {
	case last > prev*1.02:
		return t.Text.Render("↑")
	case last < prev*0.98:
		return t.Text.Render("↓")
	}
	return t.Muted.Render("→")
}

// spark draws the points with ntcharts, scaled between their own minimum
// and maximum so small clinical changes stay visible.
func spark(t *themes.Theme, points []live.VitalPoint, width int) string {
	if width < 2 {
		return ""
	}
	lo, hi := points[0].Value, points[0].Value
	for _, p := range points {
		lo, hi = math.Min(lo, p.Value), math.Max(hi, p.Value)
	}
	span := hi - lo
	if span == 0 {
		span = 1
	}
	lo -= span * 0.15 // the lowest value still draws a visible bar
	sl := sparkline.New(width, 1, sparkline.WithStyle(t.Spark), sparkline.WithNoAutoMaxValue(),
		sparkline.WithMaxValue(hi-lo))
	for _, p := range points[max(len(points)-width, 0):] {
		sl.Push(p.Value - lo)
	}
	sl.Draw()
	return sl.View()
}
