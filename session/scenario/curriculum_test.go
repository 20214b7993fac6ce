package scenario

import (
	"slices"
	"strings"
	"testing"
)

// A curriculum's entries are cases and domains; a domain stands for every case tagged with it,
// and an entry that is neither is refused by name.
func TestCurriculumResolvesCasesAndDomains(t *testing.T) {
	lib, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	cases, err := lib.Curriculum([]string{"obstetrics", "sepsis-urosepsis", "obstetrics"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(cases, "sepsis-urosepsis") || !slices.IsSorted(cases) || len(slices.Compact(slices.Clone(cases))) != len(cases) {
		t.Errorf("cases %v: want sepsis-urosepsis and the obstetric cases, each once, in library order", cases)
	}
	for _, id := range cases {
		s, _ := lib.Get(id)
		if id != "sepsis-urosepsis" && !slices.Contains(s.Tags, "obstetrics") {
			t.Errorf("%s is in the curriculum but neither named nor obstetric", id)
		}
	}
	if len(cases) < 2 {
		t.Errorf("obstetrics stood for %d case(s)", len(cases)-1)
	}
	_, err = lib.Curriculum([]string{"sepsis-urosepsis", "no-such-case", "astrology"})
	if err == nil || !strings.Contains(err.Error(), `"no-such-case", "astrology"`) || !strings.Contains(err.Error(), "obstetrics") {
		t.Errorf("unknown entries: %v", err)
	}
}
