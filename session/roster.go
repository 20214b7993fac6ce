package session

import (
	"fmt"
	"strings"
)

// rosterAnswer names every patient on the roster and no other.
func rosterAnswer(active string, roster []string) string {
	if len(roster) == 0 {
		return "No patients yet. Start with a patient ID, e.g. \"review patient_1\"."
	}
	activeText := "none is active"
	if active != "" {
		activeText = active + " is active"
	}
	return fmt.Sprintf("%d patient(s) on the roster: %s; %s.", len(roster), strings.Join(roster, ", "), activeText)
}
