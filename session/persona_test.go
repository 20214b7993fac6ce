package session

import (
	"slices"
	"strings"
	"testing"

	"github.com/ward-sim/ward/session/scenario"
)

// The persona leaves a word naming the case's diagnosis out of what the patient says, so a line
// of the library that names it would be heard with a hole in it ("What happened? Did I go ?").
// Every built-in case's patient says each of its lines whole: a case names its diagnosis only
// where the trainee is meant to hear it (the presentation, the complaint).
func TestThePatientSaysEveryLineOfTheLibraryWhole(t *testing.T) {
	lib, err := scenario.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range lib.List() {
		p := persona(s)
		said := slices.Concat([]string{p.ChiefComplaint, p.Opening}, p.Lines, p.Known.History)
		written := slices.Concat([]string{s.ChiefComplaint, s.Lines.Opening}, s.Lines.Generic, s.History)
		for i, d := range s.Disclosures {
			said, written = append(said, p.Known.Answers[i].Text), append(written, d.Text)
		}
		for _, name := range s.StateNames() {
			st, look := s.States[name], p.Looks[lookKey(s, name)]
			said = append(slices.Concat(said, look.Lines), look.Signs)
			written = append(slices.Concat(written, st.Lines), strings.Join(st.Signs, "; "))
		}
		if len(s.Allergies) > 0 {
			said = append(said, strings.Join(p.Known.Allergies, "; "))
			written = append(written, allergySummary(s))
		}
		for i := range written {
			if said[i] != written[i] {
				t.Errorf("%s: the patient says %q for %q", s.ID, said[i], written[i])
			}
		}
	}
}
