package ui

import (
	"fmt"

	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/records"
)

// StartChoices is what the start dialog offers the trainee the setup's store acts for, at the
// terminal or over ward serve alike: the built-in shifts and, when the shift behind the dialog is
// over, the way back to it; and next, which reads the next shift their progress suggests (with
// why each patient was chosen, from the class's curriculum when one is set), for
// Options.NextShift.
func StartChoices(setup *session.Setup, over bool) (choices []ShiftChoice, next func() (*ShiftChoice, error)) {
	var out []ShiftChoice
	for _, sh := range setup.Library().Shifts() {
		out = append(out, ShiftChoice{ID: sh.ID, Title: sh.Title, Summary: fmt.Sprintf("%d patients", len(sh.Patients))})
	}
	if over {
		out = append(out, ShiftChoice{Title: "Back to your last shift", Summary: "it is over: /aar reviews each patient",
			Stay: true, Trainee: setup.Store().Person().Trainee})
	}
	return out, func() (*ShiftChoice, error) { return nextShiftChoice(setup) }
}

// nextShiftChoice is the shift the trainee's progress suggests, with why each patient was
// chosen; nil when there is nothing to suggest.
func nextShiftChoice(setup *session.Setup) (*ShiftChoice, error) {
	p, err := records.ReadProgress(setup.Store(), setup.Library())
	if err != nil || len(p.Next) == 0 {
		return nil, err
	}
	c := ShiftChoice{ID: records.NextShiftID, Title: "Your next shift", Trainee: p.Trainee,
		Summary: fmt.Sprintf("%d patient(s), chosen for you", len(p.Next))}
	if p.Curriculum != nil {
		c.Summary += " from the curriculum"
	}
	for _, n := range p.Next {
		c.Reasons = append(c.Reasons, n.Reason)
	}
	return &c, nil
}
