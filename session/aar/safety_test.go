package aar

import (
	"strings"
	"testing"

	"github.com/ward-sim/ward/session/physio"
	sc "github.com/ward-sim/ward/session/scenario"
)

// A penicillin-allergic patient given ampicillin gets a hard stop, a critical
// error in the AAR and an allergic reaction — although nobody asked.
func TestAmpicillinInPenicillinAllergyWithoutAsking(t *testing.T) {
	given, events := playFrom(t, cannulated(t, "anaphylaxis", 42), 180, step{30, "give ampicillin 1 g IV"})
	control, _ := play(t, "anaphylaxis", 180)

	safety := eventsOf(events, physio.EventSafety)
	if len(safety) != 1 || safety[0].Safety.Level != sc.HardStop || safety[0].Safety.Drug != "ampicillin" {
		t.Fatalf("safety events: %+v", safety)
	}
	if safety[0].Safety.AllergiesAsked {
		t.Error("allergies were never asked, but the finding says they were")
	}
	r := Of(given)
	if len(r.CriticalErrors) != 1 || !strings.Contains(r.CriticalErrors[0].Description, "ampicillin") {
		t.Fatalf("AAR critical errors: %+v", r.CriticalErrors)
	}
	if !strings.Contains(r.Markdown(), "00:30 — ampicillin given before asking about allergies") {
		t.Errorf("AAR debrief does not say allergies were not asked:\n%s", r.Markdown())
	}
	// He is sliding into shock anyway, toward the reaction's floor, so the difference is small.
	if g, c := given.TrueVitals().SBP, control.TrueVitals().SBP; g > c-3 {
		t.Errorf("no allergic reaction: SBP %d with ampicillin, %d without", g, c)
	}
}
