package aar

import (
	"slices"
	"strings"
	"testing"
)

// The score and the debrief come from one record and cannot disagree.
func TestScoreAndDebriefAgree(t *testing.T) {
	// Naloxone for a man who cannot give a history is a rescue: the debrief praises it, and the
	// allergies-first item does not apply, so it costs nothing.
	e, _ := play(t, "opioid-overdose", 10*60, step{30, "jaw thrust and ventilate with the bag valve mask"},
		step{60, "naloxone 400 micrograms IM"}, step{400, "check vitals"})
	r := Of(e)
	if l := scoreLine(r, "allergies asked before"); l.Points != l.Max || !strings.Contains(l.Why, "does not apply") {
		t.Errorf("allergies first scored %+v after a rescue alone", l)
	}
	if !slices.ContainsFunc(r.lines(PointPlus), func(s string) bool { return strings.Contains(s, "Naloxone") }) {
		t.Errorf("plus lacks the naloxone: %v", r.lines(PointPlus))
	}
	// Oxygen is no medication: the COPD case does not charge allergies-first for it.
	copd, _ := play(t, "copd-exacerbation", 5*60, step{20, "oxygen via 28% venturi"})
	if l := scoreLine(Of(copd), "allergies asked before"); l.Points != l.Max {
		t.Errorf("oxygen alone charged allergies first: %+v", l)
	}
}

// "X before Y" applies only when Y happened; every missed critical action is also what to change
// next time.
func TestBeforeAppliesOnlyWhenTheOtherHappened(t *testing.T) {
	e, _ := play(t, "asthma-exacerbation", 5*60, step{30, "salbutamol 5 mg nebulised with oxygen"})
	r := Of(e)
	o := outcome(r, "allergies-first")
	if !o.Moot || !o.Met {
		t.Errorf("allergies before a steroid never given: %+v, want it not to apply", o)
	}
	if slices.ContainsFunc(r.lines(PointMissed), func(s string) bool { return strings.Contains(s, "Ask about allergies") }) {
		t.Errorf("missed lists an item that does not apply: %v", r.lines(PointMissed))
	}
	delta := strings.Join(r.lines(PointDelta), "\n")
	if !strings.Contains(delta, "Next time: A systemic corticosteroid") {
		t.Errorf("delta does not carry the missed steroid:\n%s", delta)
	}
}

// A nebuliser driven by oxygen is not an oxygen order, so it is not credited as oxygen given.
func TestANebuliserIsNotAnOxygenTitration(t *testing.T) {
	e, _ := play(t, "asthma-exacerbation", 5*60, step{30, "salbutamol 5 mg nebulised with oxygen"})
	if o := outcome(Of(e), "oxygen"); o.Done {
		t.Errorf("an oxygen-driven nebuliser credited as oxygen: %+v", o)
	}
}

// A critical error made twice is one point of the debrief with its count, and one line of the
// score charging both.
func TestARepeatedErrorIsListedOnceWithItsCount(t *testing.T) {
	e, _ := playFrom(t, cannulated(t, "asthma-exacerbation", 42), 5*60, step{30, "lorazepam 1 mg IV"},
		step{200, "lorazepam 1 mg IV"})
	r := Of(e)
	errs := r.lines(PointCriticalError)
	if len(errs) != 1 || !strings.Contains(errs[0], "(×2, at 00:30, 03:20)") {
		t.Errorf("critical errors in the debrief: %q", errs)
	}
	if l := scoreLine(r, "critical error"); l.Points != -50 || !strings.Contains(l.Item, "(×2)") {
		t.Errorf("score line %+v, want one line charging 2 × 25", l)
	}
}
