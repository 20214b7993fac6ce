package ui

import (
	"strings"
	"testing"

	"github.com/ward-sim/ward/session/live"
	"github.com/ward-sim/ward/themes"
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
