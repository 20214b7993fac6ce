package session

import (
	"fmt"
	"strings"
)

// rosterAnswer names every patient on the roster and no other ID, not even an example: the
// registry, not the conversation, says who exists.
func (s *Session) rosterAnswer() string {
	if len(s.roster) == 0 {
		return fmt.Sprintf("No patients on the roster yet. Start by naming one, with an ID that matches %s.", s.cfg.Pattern)
	}
	active := "none is active"
	if s.active != "" {
		active = s.active + " is active"
	}
	return fmt.Sprintf("%d patient(s) on the roster: %s; %s.", len(s.roster), strings.Join(s.roster, ", "), active)
}
