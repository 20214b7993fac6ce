package physio

import "testing"

// A disposition is read as a trainee writes it: a child goes to PICU, an adult to ITU.
func TestPlaceReadsTheWaysAPlaceIsWritten(t *testing.T) {
	for typed, want := range map[string]string{
		"icu": "icu", "ITU": "icu", "PICU": "icu", "paediatric intensive care": "icu", "pediatric ICU": "icu",
		"PHDU": "hdu", "high dependency": "hdu", "cath lab": "cath-lab", "  Labour   ward ": "obstetric-unit",
	} {
		if got, ok := Place(typed); !ok || got != want {
			t.Errorf("Place(%q) = %q, %v; want %q", typed, got, ok, want)
		}
	}
	if got, ok := Place("the moon"); ok {
		t.Errorf("Place(%q) = %q, accepted", "the moon", got)
	}
}
