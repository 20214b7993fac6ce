package ui

import (
	"io"

	"github.com/ward-sim/ward/themes"
)

// Options configure the UI. main fills them from flags and from session.
type Options struct {
	Theme       themes.Theme
	StartShifts []ShiftChoice // when not nil, open with the start dialog offering these (over the shift resumed, when it is over)
	// NextShift reads the shift the trainee's progress suggests, which the start dialog offers
	// first once it has come: the screen runs it after its first frame, since it reads the
	// trainee's whole progress and every case of the library. nil offers none.
	NextShift func() (*ShiftChoice, error)
	Trainee   string // whose shift the start dialog starts
	// TraineeFixed: the start dialog may not change the trainee (their passphrase, or their key at
	// ward serve, opened ward).
	TraineeFixed bool
	SaveDir      string    // where the inspector saves prompts; "" is the working directory
	Clipboard    io.Writer // where OSC 52 is written; nil is stderr
	Notice       string    // shown in the status bar at start, e.g. why the offline backend is in use
	// Bell is where the terminal bell is rung when an alarm or escalation sounds; nil rings none.
	Bell io.Writer
	// StartedTheme is the theme of the trainee the start dialog has just started a shift for, who
	// may prefer another than the person ward opened as; nil keeps the theme.
	StartedTheme func() (themes.Theme, error)
	// Confined: the files the screen writes (/export FILE) go into SaveDir alone, by name: the
	// trainee is at a server's screen (ward serve), not at a shell of the machine that writes.
	Confined bool
	// Unsent and Typed are what a dropped connection's screen had not sent (Model.Unsent): the
	// lines come back held, the text into the input.
	Unsent []string
	Typed  string
}
