package session

import (
	"fmt"
	"strings"
)

// rosterAnswer names every patient on the roster, as the trainee knows them and in order of
// arrival, and no other ID, not even an example: the registry, not the conversation, says who
// exists.
func (s *Session) rosterAnswer() string {
	if len(s.roster) == 0 {
		return fmt.Sprintf("No patients on the roster yet. Start by naming one, with an ID that matches %s.", s.cfg.Pattern)
	}
	var named []string
	active := "None is active."
	for _, p := range s.namedPatients() {
		if place := summaryFrom(s.reg.Patients[p.ID].Facts).Disposition; place != "" {
			named = append(named, patientLabel(p)+" (gone to "+place+")")
			continue
		}
		named = append(named, patientLabel(p))
		if p.ID == s.active {
			active = patientLabel(p) + " is active."
		}
	}
	count := "1 patient"
	if len(named) > 1 {
		count = fmt.Sprintf("%d patients", len(named))
	}
	return fmt.Sprintf("%s on the roster, in order of arrival: %s. %s", count, strings.Join(named, ", "), active)
}
