package ui

import (
	"fmt"
	"slices"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/ward-sim/ward/session/live"
	"github.com/ward-sim/ward/themes"
	"pgregory.net/rapid"
)

// Every frame drawn from what the screen keeps between frames (the body, the chat's rule, the
// header, the roster, the vitals, the status bar and its hints, the input's line and what is typed) is the frame drawn
// with all of it dropped, over random runs of what a trainee does: typing, deleting, sending,
// moving focus, scrolling, resizing, snapshots and notices.
func TestEveryFrameDrawnFromKeptPartsIsTheFrameDrawnAfresh(tt *testing.T) {
	rapid.Check(tt, func(t *rapid.T) {
		f := newFakeWard()
		f.histories["patient_1"] = bigHistory("patient_1", 40)
		m := newTestModel(tt, f, 120, 40)
		for range rapid.IntRange(1, 60).Draw(t, "steps") {
			var cmd tea.Cmd
			switch rapid.IntRange(0, 9).Draw(t, "what") {
			case 0, 1, 2, 3:
				r := rune(rapid.IntRange(' ', '~').Draw(t, "char"))
				_, cmd = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
			case 4:
				k := rapid.SampledFrom([]string{"backspace", "left", "right", "home", "end", "ctrl+j", "tab", "shift+tab",
					"pgup", "pgdown", "esc", "up", "down"}).Draw(t, "key")
				_, cmd = m.Update(keyMsg(k))
			case 5:
				_, cmd = m.Update(keyMsg("enter"))
			case 6:
				_, cmd = m.Update(snapshotMsg{state: f.Snapshot()})
			case 7:
				_, cmd = m.Update(tea.WindowSizeMsg{Width: rapid.IntRange(60, 160).Draw(t, "width"), Height: rapid.IntRange(16, 50).Draw(t, "height")})
			case 8:
				_, cmd = m.Update(NoticeMsg(rapid.SampledFrom([]string{"", "a word", "a notice too long to sit beside the key hints on the status bar of a narrow terminal, which wraps it"}).Draw(t, "notice")))
			case 9:
				run(m, cmd)
			}
			if rapid.Bool().Draw(t, "run") {
				run(m, cmd)
			}
			kept := m.View()
			dropKept(m)
			if afresh := m.View(); kept != afresh {
				t.Fatalf("the frame drawn from kept parts\n%s\nthe frame drawn afresh\n%s", kept, afresh)
			}
		}
	})
}

// dropKept forgets everything the screen keeps drawn between frames, so the next frame is drawn
// from nothing kept.
func dropKept(m *Model) {
	m.bodyFresh = false
	m.rule.view = ""
	m.header.view = ""
	m.header.Render(m.state)
	m.roster.drawn = drawnRoster{}
	m.roster.render()
	m.vitals.view = ""
	m.vitals.Render(m.state)
	m.status.drawn.view = ""
	clear(m.status.hints)
	m.input.rule = drawnRule{}
	m.input.line = drawnLine{}
	m.input.typed = typedLine{}
}

// The roster as kept between snapshots is the roster drawn afresh (its lines and where the mouse
// finds each patient), over random runs of snapshots, clock ticks, sizes, focus, order, moves and
// scrolls.
func TestTheKeptRosterIsTheRosterDrawn(tt *testing.T) {
	th, err := themes.New("dark", false)
	if err != nil {
		tt.Fatal(err)
	}
	entries := func(t *rapid.T) []live.RosterEntry {
		var out []live.RosterEntry
		for i := range rapid.IntRange(0, 6).Draw(t, "patients") {
			e := live.RosterEntry{ID: fmt.Sprintf("patient_%d", i+1), Name: rapid.SampledFrom([]string{"", "Ada Byron"}).Draw(t, "name"),
				NEWS2:       live.Score{Known: true, Value: rapid.IntRange(0, 9).Draw(t, "news2"), Text: "NEWS2"},
				Trend:       live.Trend(rapid.IntRange(0, 2).Draw(t, "trend")),
				LastChecked: time.Duration(rapid.IntRange(-1, 90).Draw(t, "checked")) * time.Minute,
				Overdue:     rapid.Bool().Draw(t, "overdue"),
				Alert:       live.Alert{Level: live.AlertLevel(rapid.IntRange(0, 3).Draw(t, "alert"))},
				Disposition: rapid.SampledFrom([]string{"", "ICU"}).Draw(t, "disposition")}
			out = append(out, e)
		}
		return out
	}
	rapid.Check(tt, func(t *rapid.T) {
		kept := rosterPane{theme: &th}
		kept.SetSize(26, 30, false)
		var vs live.ViewState
		for range rapid.IntRange(1, 40).Draw(t, "steps") {
			switch rapid.IntRange(0, 7).Draw(t, "change") {
			case 0:
				vs.Roster = entries(t)
				if len(vs.Roster) > 0 {
					vs.Patient.ID = vs.Roster[rapid.IntRange(0, len(vs.Roster)-1).Draw(t, "active")].ID
				}
				kept.SetState(vs)
			case 1:
				vs.Clock += time.Duration(rapid.IntRange(0, 90).Draw(t, "tick")) * time.Second
				kept.SetState(vs)
			case 2:
				kept.SetSize(rapid.SampledFrom([]int{26, 40, 120}).Draw(t, "width"), rapid.IntRange(1, 14).Draw(t, "height"), rapid.Bool().Draw(t, "collapsed"))
			case 3:
				kept.SetFocused(rapid.Bool().Draw(t, "focused"))
			case 4:
				kept.ToggleOrder()
			case 5:
				kept.Move(rapid.SampledFrom([]int{-1, 1}).Draw(t, "move"))
			case 6:
				kept.Scroll(rapid.SampledFrom([]int{-1, 1}).Draw(t, "scroll"))
			case 7:
				kept.SetState(vs) // the same snapshot again
			}
			fresh := kept
			fresh.view, fresh.hits, fresh.drawn = "", nil, drawnRoster{}
			fresh.render()
			if kept.View() != fresh.View() || !slices.Equal(kept.hits, fresh.hits) || kept.offset != fresh.offset {
				t.Fatalf("the kept roster (offset %d, hits %v) is\n%s\nthe roster drawn afresh (offset %d, hits %v)\n%s",
					kept.offset, kept.hits, kept.View(), fresh.offset, fresh.hits, fresh.View())
			}
		}
	})
}

// The vitals as kept between snapshots are the vitals drawn afresh, over random runs of
// observations, clock ticks (which move the trend window), the monitor, the patient and sizes.
func TestTheKeptVitalsAreTheVitalsDrawn(tt *testing.T) {
	th, err := themes.New("dark", false)
	if err != nil {
		tt.Fatal(err)
	}
	vitals := func(t *rapid.T) []live.VitalSeries {
		var out []live.VitalSeries
		for _, name := range []string{"HR", "RR", "SpO2", "SBP"}[:rapid.IntRange(0, 4).Draw(t, "series")] {
			s := live.VitalSeries{Name: name, Unit: "u"}
			for i := range rapid.IntRange(0, 5).Draw(t, "points") {
				s.Points = append(s.Points, live.VitalPoint{At: time.Duration(10*i+rapid.IntRange(0, 9).Draw(t, "at")) * time.Minute,
					Value: float64(rapid.IntRange(0, 150).Draw(t, "value"))})
			}
			out = append(out, s)
		}
		return out
	}
	rapid.Check(tt, func(t *rapid.T) {
		kept := vitalsPane{theme: &th}
		kept.SetSize(90, 2)
		var vs live.ViewState
		for range rapid.IntRange(1, 30).Draw(t, "steps") {
			switch rapid.IntRange(0, 5).Draw(t, "change") {
			case 0:
				vs.Vitals = vitals(t)
			case 1:
				vs.Clock += time.Duration(rapid.IntRange(0, 20).Draw(t, "tick")) * time.Minute
			case 2:
				vs.Monitor = !vs.Monitor
			case 3:
				vs.Patient.ID = rapid.SampledFrom([]string{"", "patient_1"}).Draw(t, "patient")
			case 4:
				kept.SetSize(rapid.SampledFrom([]int{60, 90, 120}).Draw(t, "width"), rapid.IntRange(1, 2).Draw(t, "height"))
			}
			kept.Render(vs)
			fresh := vitalsPane{theme: &th, width: kept.width, height: kept.height}
			fresh.Render(vs)
			if kept.View() != fresh.View() {
				t.Fatalf("the kept vitals of %+v are\n%s\nthe vitals drawn afresh\n%s", vs, kept.View(), fresh.View())
			}
		}
	})
}
