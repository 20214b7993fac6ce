package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/ward-sim/ward/session/live"
	"github.com/ward-sim/ward/themes"
	"pgregory.net/rapid"
)

// The header shows what a trainee may know: the presentation, the NEWS2 in the words every view
// uses, the disclosed allergies and what the trainee has found.
func TestHeaderShowsThePresentationAndFindings(t *testing.T) {
	th, err := themes.New("dark", true)
	if err != nil {
		t.Fatal(err)
	}
	h := headerPane{theme: &th, width: 160}
	h.Render(live.ViewState{Patient: live.Patient{
		ID: "patient_1", Name: "Tom Harris", Age: 45, Sex: "M", Bed: "Majors 6",
		Presentation: "confused and sweaty at home",
		NEWS2:        live.Score{Known: true, Value: 4, Band: live.BandLowMedium, Text: "NEWS2 4 low-medium"},
		Allergies:    []string{"not asked yet"},
		Found:        []string{"capillary glucose 2.1 mmol/L", "pupils equal"},
	}})
	view := stripStyles(h.View())
	for _, want := range []string{"Tom Harris · 45 M · bed Majors 6 · confused and sweaty at home", "NEWS2 4 low-medium",
		"found: capillary glucose 2.1 mmol/L · pupils equal"} {
		if !strings.Contains(view, want) {
			t.Errorf("header lacks %q:\n%s", want, view)
		}
	}
	if strings.Contains(view, "state:") {
		t.Errorf("header shows an engine state:\n%s", view)
	}
}

// A shift the instructor ended says so where the clock stands, and points to the debrief; a
// paused one still says paused.
func TestHeaderSaysTheInstructorEndedTheShift(t *testing.T) {
	th, err := themes.New("dark", true)
	if err != nil {
		t.Fatal(err)
	}
	h := headerPane{theme: &th, width: 100}
	for _, c := range []struct {
		vs        live.ViewState
		want, not string
	}{
		{live.ViewState{Paused: true, Ended: true}, "ENDED · /aar", "PAUSED"},
		{live.ViewState{Paused: true}, "PAUSED", "ENDED"},
	} {
		h.Render(c.vs)
		view := stripStyles(h.View())
		if !strings.Contains(view, c.want) || strings.Contains(view, c.not) {
			t.Errorf("header of %+v: want %q, not %q:\n%s", c.vs, c.want, c.not, view)
		}
	}
}

// The header as kept between snapshots is the header drawn afresh, over random runs of snapshots
// and sizes, each changing one thing or nothing: what is kept is redrawn whenever anything it
// shows changes.
func TestTheKeptHeaderIsTheHeaderDrawn(t *testing.T) {
	th, err := themes.New("dark", false)
	if err != nil {
		t.Fatal(err)
	}
	pick := func(t *rapid.T, label string, from ...string) string { return rapid.SampledFrom(from).Draw(t, label) }
	some := func(t *rapid.T, label string, from ...string) []string {
		return rapid.SliceOfNDistinct(rapid.SampledFrom(from), 0, len(from), rapid.ID[string]).Draw(t, label)
	}
	patient := func(t *rapid.T) live.Patient {
		return live.Patient{ID: pick(t, "id", "", "patient_1", "patient_2"), Name: pick(t, "name", "", "Ada Byron", "Ben Okafor"),
			Age: rapid.SampledFrom([]int{0, 8, 67}).Draw(t, "age"), Sex: pick(t, "sex", "", "F", "M"), Bed: pick(t, "bed", "", "3"),
			Presentation: pick(t, "presentation", "", "wheeze after lunch"),
			NEWS2: live.Score{Known: rapid.Bool().Draw(t, "known"), Value: rapid.IntRange(0, 9).Draw(t, "news2"),
				Band: live.Band(rapid.IntRange(0, 3).Draw(t, "band")), Text: pick(t, "news2 text", "NEWS2 3 low-medium", "NEWS2 7 high")},
			Allergies: some(t, "allergies", "peanuts (anaphylaxis)", "penicillin (rash)", "not asked yet"),
			Found:     some(t, "found", "capillary glucose 5.2 mmol/L", "pupils equal", "wheeze throughout")}
	}
	rapid.Check(t, func(t *rapid.T) {
		kept := headerPane{theme: &th, width: 120}
		var vs live.ViewState
		for range rapid.IntRange(1, 30).Draw(t, "snapshots") {
			switch rapid.IntRange(0, 6).Draw(t, "change") {
			case 0:
				vs.Patient = patient(t)
			case 1:
				vs.Patient.Found = some(t, "found", "capillary glucose 5.2 mmol/L", "pupils equal", "wheeze throughout")
			case 2:
				vs.Clock += time.Duration(rapid.IntRange(0, 1500).Draw(t, "tick")) * time.Millisecond
			case 3:
				vs.Paused, vs.Ended = rapid.Bool().Draw(t, "paused"), rapid.Bool().Draw(t, "ended")
			case 4:
				vs.Roster = make([]live.RosterEntry, rapid.IntRange(0, 2).Draw(t, "roster"))
			case 5:
				kept.SetSize(rapid.SampledFrom([]int{60, 100, 120}).Draw(t, "width"))
			}
			kept.Render(vs)
			fresh := headerPane{theme: &th, width: kept.width}
			fresh.Render(vs)
			if kept.View() != fresh.View() || kept.Height() != fresh.Height() {
				t.Fatalf("the kept header of %+v is\n%s\nthe header drawn afresh\n%s", vs, kept.View(), fresh.View())
			}
		}
	})
}
