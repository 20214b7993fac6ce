package scenario

import (
	"fmt"
	"slices"
	"strings"
)

// checkTeaching checks what the debrief teaches from: the difficulty, the diagnosis and
// disposition keys, the reflective questions, and the three-part split of the score.
func (c *checker) checkTeaching(s *Scenario) {
	if s.Difficulty != "" && !slices.Contains(Difficulties, s.Difficulty) {
		c.at("difficulty", "difficulty %q must be one of %s", s.Difficulty, strings.Join(Difficulties, ", "))
	}
	for i, tag := range s.Tags {
		if tag != strings.ToLower(strings.TrimSpace(tag)) || tag == "" || strings.ContainsAny(tag, " ,") {
			c.at(fmt.Sprintf("tags[%d]", i), "tag %q must be one lowercase word (use - to join)", tag)
		}
	}
	if d := s.Diagnosis; d != nil {
		for i, term := range append(slices.Clone(d.Accepted), d.Differentials...) {
			if len(diagnosisWords(term)) == 0 {
				c.at("diagnosis", "diagnosis term %d (%q) has no word to match", i+1, term)
			}
		}
		for _, term := range d.Differentials {
			if m := MatchDiagnosis(&DiagnosisKey{Accepted: d.Accepted}, term); m.Verdict == VerdictAccepted {
				c.at("diagnosis.differentials", "differential %q would match the accepted %q", term, m.Term)
			}
		}
	}
	if d := s.Disposition; d != nil {
		for i, place := range d.Accepted {
			if !slices.Contains(Dispositions, place) {
				c.at(fmt.Sprintf("disposition.accepted[%d]", i), "disposition %q must be one of %s", place, strings.Join(Dispositions, ", "))
			}
		}
	}
	if n := len(s.Reflection); n > maxReflection {
		c.at("reflection", "%d reflective questions; ask at most %d", n, maxReflection)
	}
	if d := s.Demographics; d.Age > 0 && d.Age < AdultYears && d.WeightKg == 0 {
		c.at("demographics", "a child's doses are worked out by weight: demographics.weight_kg is needed")
	}
	c.checkWeights(s)
}

// maxReflection keeps the questions after a case to what a trainee answers while it is fresh.
const maxReflection = 3

// checkWeights makes a scenario's own split of the score add up to ScoreMax and give no weight
// to a part it has no key for.
func (c *checker) checkWeights(s *Scenario) {
	w := s.Scoring
	if w.Diagnosis == 0 && w.Disposition == 0 && w.Actions == 0 {
		return
	}
	switch {
	case w.Diagnosis < 0 || w.Disposition < 0 || w.Actions < 0:
		c.at("scoring", "scoring's diagnosis, disposition and actions cannot be negative")
	case w.Diagnosis+w.Disposition+w.Actions != ScoreMax:
		c.at("scoring", "scoring's diagnosis (%d), disposition (%d) and actions (%d) add up to %d, not %d",
			w.Diagnosis, w.Disposition, w.Actions, w.Diagnosis+w.Disposition+w.Actions, ScoreMax)
	case w.Diagnosis > 0 && s.Diagnosis == nil:
		c.at("scoring.diagnosis", "the diagnosis is weighted but the scenario has no diagnosis key")
	case w.Disposition > 0 && s.Disposition == nil:
		c.at("scoring.disposition", "the disposition is weighted but the scenario has no disposition key")
	}
}
