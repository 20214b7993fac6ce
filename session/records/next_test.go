package records

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ward-sim/ward/session/scenario"
)

func library(t *testing.T) *scenario.Library {
	t.Helper()
	lib, err := scenario.Load()
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

func missed(id string, actions ...string) PatientResult {
	return PatientResult{Attempted: true, Scenario: id, Missed: actions}
}

// shifts are closed shifts s1, s2... of one patient result each.
func shifts(results ...PatientResult) Progress {
	p := Progress{}
	for i, r := range results {
		p.Shifts = append(p.Shifts, ShiftResult{Session: fmt.Sprintf("s%d", i+1), Patients: []PatientResult{r}})
	}
	return p
}

// A trainee who missed oxygen in two cases is offered a case that asks for it again, not one of
// their last shift, and told why; a weakness missed once comes after it, in a case of its own.
func TestNextShiftTestsWhatTheTraineeMissesMost(t *testing.T) {
	lib := library(t)
	p := Progress{Shifts: []ShiftResult{
		{Session: "s1", Patients: []PatientResult{missed("pulmonary-embolism", "oxygen", "risk-factors"), missed("upper-gi-bleed")}},
		{Session: "s2", Patients: []PatientResult{missed("asthma-exacerbation", "oxygen"), missed("svt")}},
	}}
	next := p.NextShift(lib)
	if len(next) == 0 || len(next) > NextShiftSize {
		t.Fatalf("offered %d case(s)", len(next))
	}
	first := next[0]
	offered, _ := lib.Get(first.Scenario)
	if first.Action != "oxygen" || !asksFor(offered, "oxygen") {
		t.Errorf("offered %s for %q first; want a case that asks for oxygen", first.Scenario, first.Action)
	}
	if len(next) < 2 || next[1].Action != "risk-factors" || next[1].Scenario == first.Scenario {
		t.Errorf("second: %+v; want another case, for risk-factors", next[1:])
	}
	seen := map[string]bool{}
	for _, n := range next {
		if slices.Contains([]string{"asthma-exacerbation", "svt"}, n.Scenario) {
			t.Errorf("offered %s, a case of the last shift", n.Scenario)
		}
		if seen[n.Scenario] {
			t.Errorf("offered %s twice", n.Scenario)
		}
		seen[n.Scenario] = true
		if list := lib.List(); list[n.Number-1].ID != n.Scenario {
			t.Errorf("case %d of /scenarios is %s, not %s", n.Number, list[n.Number-1].ID, n.Scenario)
		}
	}
	for _, want := range []string{`"oxygen"`, "2 case(s)", "pulmonary-embolism", "asthma-exacerbation"} {
		if !strings.Contains(first.Reason, want) {
			t.Errorf("the reason %q does not say %s", first.Reason, want)
		}
	}
	p.Next = next
	var b bytes.Buffer
	if err := p.Table(&b); err != nil || !strings.Contains(b.String(), "Next shift: ward --shift next") ||
		!strings.Contains(b.String(), first.Scenario+" — "+first.Reason) {
		t.Errorf("the progress table does not offer the next shift (%v):\n%s", err, b.String())
	}
}

// A trainee who missed nothing is offered cases they have not played, a domain they have not
// met first, and said so.
func TestNextShiftBringsDomainsNotYetMet(t *testing.T) {
	lib := library(t)
	next := shifts(missed("svt")).NextShift(lib)
	if len(next) != NextShiftSize {
		t.Fatalf("offered %d case(s), want %d", len(next), NextShiftSize)
	}
	for _, n := range next {
		if n.Scenario == "svt" || n.Action != "" || !strings.Contains(n.Reason, "you have not yet met a case of") {
			t.Errorf("offered %+v; want a case not played, of a domain not met", n)
		}
	}
}

// Spacing: a weakness done right rests 1, then 3 shifts before it comes back; done right three
// times running it is learned and fades; missed again it comes back at once.
func TestAWeaknessPractisedComesBackLaterAndFades(t *testing.T) {
	lib := library(t)
	offersOxygen := func(p Progress) bool {
		return slices.ContainsFunc(p.NextShift(lib), func(s Suggestion) bool { return s.Action == "oxygen" })
	}
	done := func(id string) PatientResult { return missed(id) } // every critical action done
	other := missed("svt")
	steps := []struct {
		played PatientResult
		offer  bool
		why    string
	}{
		{missed("pulmonary-embolism", "oxygen"), true, "missed in the last shift: offered at once"},
		{done("asthma-exacerbation"), false, "just done right: it rests a shift"},
		{other, true, "rested one shift"},
		{done("pulmonary-oedema"), false, "done right twice: it rests three shifts"},
		{other, false, "resting, 1 of 3"},
		{other, false, "resting, 2 of 3"},
		{other, true, "rested three shifts"},
		{done("anaphylaxis"), false, "done right three times running: learned"},
		{other, false, "learned"}, {other, false, "learned"}, {other, false, "learned"}, {other, false, "learned"},
		{missed("bronchiolitis", "oxygen"), true, "missed again: offered at once"},
	}
	var played []PatientResult
	for i, s := range steps {
		played = append(played, s.played)
		p := shifts(played...)
		if got := offersOxygen(p); got != s.offer {
			t.Errorf("after shift %d (%s): oxygen offered %v, want %v", i+1, s.why, got, s.offer)
		}
	}
	idle := shifts(played[:2]...)
	idle.Shifts = append(idle.Shifts, ShiftResult{Session: "idle", Patients: []PatientResult{{Scenario: "svt"}}})
	if offersOxygen(idle) {
		t.Error("a shift in which the trainee attended no one counted as a shift of rest")
	}
	next := shifts(played[:3]...).NextShift(lib)
	if len(next) == 0 || !strings.Contains(next[0].Reason, "then did it in 1 case(s) since") {
		t.Errorf("the reason of a weakness done right since does not say so: %+v", next)
	}
}

// With a curriculum, every case offered is one of it: for a weakness and for a domain not met.
func TestNextShiftComesFromTheCurriculum(t *testing.T) {
	lib := library(t)
	cases, err := lib.Curriculum([]string{"obstetrics", "bronchiolitis"})
	if err != nil {
		t.Fatal(err)
	}
	p := shifts(missed("pulmonary-embolism", "oxygen"))
	p.Curriculum = cases
	next := p.NextShift(lib)
	if len(next) == 0 {
		t.Fatal("nothing offered")
	}
	for _, n := range next {
		if !slices.Contains(cases, n.Scenario) {
			t.Errorf("offered %s, not in the curriculum %v", n.Scenario, cases)
		}
	}
	if next[0].Action != "oxygen" {
		t.Errorf("first offered %+v; want a curriculum case that asks for oxygen", next[0])
	}
	var b bytes.Buffer
	p.Next = next
	if err := p.Table(&b); err != nil || !strings.Contains(b.String(), "from the class's curriculum") {
		t.Errorf("the table does not say the shift comes from the curriculum:\n%s", b.String())
	}
}

// A curriculum played through, with nothing missed, offers its cases played least recently.
func TestAPlayedThroughCurriculumComesBackLeastRecentFirst(t *testing.T) {
	lib := library(t)
	p := shifts(missed("eclampsia"), missed("postpartum-haemorrhage"), missed("ruptured-ectopic"), missed("svt"))
	p.Curriculum = []string{"eclampsia", "postpartum-haemorrhage", "svt"}
	next := p.NextShift(lib)
	var got []string
	for _, n := range next {
		got = append(got, n.Scenario)
	}
	if !slices.Equal(got, []string{"eclampsia", "postpartum-haemorrhage", "svt"}) {
		t.Fatalf("offered %v; want the curriculum, least recently played first", got)
	}
	if next[0].Reason != "you last played this case 4 shift(s) ago" {
		t.Errorf("reason %q", next[0].Reason)
	}
}
