package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ward-sim/ward/session/live"
)

func statusLine(m *Model) string {
	lines := strings.Split(screen(m), "\n")
	return lines[len(lines)-1]
}

// A trainee whose call waits for a class's shared model server sees how many calls are ahead,
// then the usual "generating…" once it goes to the model.
func TestStatusBarTellsTheTraineeTheyWaitForTheModel(t *testing.T) {
	f := newFakeWard()
	m, readNext := gatedTurn(t, f, "how are you feeling?")
	if got := statusLine(m); !strings.Contains(got, "generating…") {
		t.Fatalf("a turn running does not say generating: %q", got)
	}
	for _, ahead := range []struct {
		n    int
		want string
	}{{3, "waiting for the model · 3 ahead"}, {1, "waiting for the model · 1 ahead"}, {0, "generating…"}} {
		m.Update(streamMsg{events: []live.Update{{Kind: live.UpdateWaiting, Ahead: ahead.n}}})
		got := statusLine(m)
		if !strings.Contains(got, ahead.want) {
			t.Errorf("%d ahead: status %q lacks %q", ahead.n, got, ahead.want)
		}
		if ahead.n == 0 && strings.Contains(got, "waiting for the model") {
			t.Errorf("the call left the queue, but the status still says it waits: %q", got)
		}
	}
	m.Update(streamMsg{events: []live.Update{{Kind: live.UpdateWaiting, Ahead: 2}}})
	close(f.gate)
	run(m, readNext)
	if got := statusLine(m); strings.Contains(got, "waiting for the model") || strings.Contains(got, "generating") {
		t.Errorf("the turn ended, but the status still speaks of it: %q", got)
	}
}

// Waiting for the model comes first on the status line: a narrow terminal cuts the figures, not it.
func TestWaitingForTheModelFitsANarrowStatusBar(t *testing.T) {
	f := newFakeWard()
	m, readNext := gatedTurn(t, f, "and now?")
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 20})
	m.Update(streamMsg{events: []live.Update{{Kind: live.UpdateWaiting, Ahead: 12}}})
	if got := statusLine(m); !strings.Contains(got, "waiting for the model · 12 ahead") {
		t.Errorf("at 60 columns the status is %q", got)
	}
	close(f.gate)
	run(m, readNext)
}

// A notice does not hide what runs and what waits: a trainee told something mid-turn still sees
// on the status line that the reply is coming and how many lines are queued behind it, the
// notice beside it when both fit and on its own line above when they do not.
func TestANoticeLeavesWhatRunsOnTheStatusLine(t *testing.T) {
	short := "the analyzer model did not answer"
	// long fits beside the hints at 300 columns, but not within the left's two thirds after what runs
	long := "protocol cards unavailable this turn: the embedding model did not answer within its time, so the reply stands on the record alone and the cards are asked for again when the next turn begins"
	for _, c := range []struct {
		width  int
		notice string
	}{{200, short}, {100, short}, {300, long}} {
		f := newFakeWard()
		m, readNext := gatedTurn(t, f, "how are you feeling?")
		m.Update(tea.WindowSizeMsg{Width: c.width, Height: 30})
		typeText(m, "any allergies?")
		press(t, m, "enter")
		m.Update(streamMsg{events: []live.Update{{Kind: live.UpdateNotice, Text: c.notice}}})
		lines := strings.Split(screen(m), "\n")
		status, above := lines[len(lines)-1], strings.Join(lines[len(lines)-3:len(lines)-1], " ")
		if !strings.Contains(status, "generating… · 1 queued") {
			t.Errorf("%d columns: the status line %q does not say what runs", c.width, status)
		}
		if flat := strings.Join(strings.Fields(above+" "+status), " "); !strings.Contains(flat, c.notice) {
			t.Errorf("%d columns: the notice %q is cut or gone:\n%s", c.width, c.notice, screen(m))
		}
		assertFills(t, m.View(), c.width, 30, "a notice mid-turn")
		close(f.gate)
		run(m, readNext)
	}
}
