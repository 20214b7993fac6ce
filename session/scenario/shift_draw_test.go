package scenario

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A shift may ask for a mix by tag, count and difficulty: the draw takes the tags in turn,
// repeats with the seed, differs between seeds, and never repeats a scenario or a bed.
func TestShiftMixDrawsUnusedScenarios(t *testing.T) {
	lib := mustLoad(t)
	file := filepath.Join(t.TempDir(), "mix.yaml")
	if err := os.WriteFile(file, []byte("id: mix\ntitle: Mix\npatients:\n  - {id: patient_1, scenario: asthma-exacerbation}\nmix: {count: 3, tags: [respiratory, allergy]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sh, err := lib.Shift(file)
	if err != nil {
		t.Fatal(err)
	}
	orders := map[string]bool{}
	for seed := int64(1); seed <= 8; seed++ {
		roster, err := lib.Roster(sh, seed)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := lib.Roster(sh, seed)
		if len(roster) != 4 || roster[0].Scenario != "asthma-exacerbation" {
			t.Fatalf("roster %+v, want the named patient then three drawn", roster)
		}
		cases, beds, ids := map[string]bool{}, map[string]bool{}, map[string]bool{}
		var order []string
		for i, p := range roster {
			if cases[p.Scenario] || beds[p.Bed] || ids[p.ID] || p.Bed == "" {
				t.Fatalf("seed %d: a scenario, bed or id repeats, or a bed is empty: %+v", seed, roster)
			}
			cases[p.Scenario], beds[p.Bed], ids[p.ID] = true, true, true
			if again[i] != p {
				t.Fatalf("seed %d drew %+v then %+v", seed, roster, again)
			}
			s, _ := lib.Get(p.Scenario)
			if i > 0 && !hasAny(s.Tags, "respiratory", "allergy") {
				t.Errorf("drew %s, tagged %v", s.ID, s.Tags)
			}
			order = append(order, p.Scenario)
		}
		if s, _ := lib.Get(roster[2].Scenario); !hasAny(s.Tags, "allergy") {
			t.Errorf("the second drawn patient should come from the second tag: %s %v", s.ID, s.Tags)
		}
		orders[strings.Join(order, ",")] = true
	}
	if len(orders) < 2 {
		t.Errorf("eight seeds drew one roster: %v", orders)
	}
}

func hasAny(tags []string, want ...string) bool {
	for _, w := range want {
		for _, t := range tags {
			if t == w {
				return true
			}
		}
	}
	return false
}

func TestShiftRefusesRepeatsAndImpossibleMixes(t *testing.T) {
	lib := mustLoad(t)
	for _, tc := range []struct{ doc, want string }{
		{"patients:\n  - {id: patient_1, scenario: hypoglycaemia}\n  - {id: patient_2, scenario: hypoglycaemia}\n", "two patients never share a case"},
		{"patients:\n  - {id: patient_1, scenario: hypoglycaemia, bed: Bay 1}\n  - {id: patient_2, scenario: anaphylaxis, bed: Bay 1}\n", `bed "Bay 1" is already taken`},
		{"mix: {count: 2, tags: [dermatology]}\n", `no scenario is tagged "dermatology"`},
		{"mix: {count: 200}\n", "a mix of 200, but the library has"},
		{"mix: {count: 1, difficulty: expert}\n", `difficulty "expert" must be one of`},
		{"mix: {count: 0}\n", "a count of at least 1"},
		{"title_only: 1\n", "unknown field"},
		{"", "at least one patient, or a mix"},
	} {
		_, errs := lib.ParseShift([]byte("id: s\ntitle: S\n" + tc.doc))
		if !containsError(errs, tc.want) {
			t.Errorf("%q: want %q, got %v", tc.doc, tc.want, errs)
		}
	}
}

func containsError(errs []error, want string) bool {
	for _, e := range errs {
		if strings.Contains(e.Error(), want) {
			return true
		}
	}
	return false
}

// Two patients whose scenarios share a default bed get different beds.
func TestFreeBed(t *testing.T) {
	taken := map[string]bool{"Resus 4": true, "Resus 5": true, "Side room": true}
	for want, got := range map[string]string{"Resus 4": "Resus 6", "Resus 1": "Resus 1", "Side room": "Side room 2"} {
		if b := FreeBed(want, taken); b != got {
			t.Errorf("FreeBed(%q) = %q, want %q", want, b, got)
		}
	}
}

// /admit without a scenario draws one no patient of the shift has, until none is left (a cardiac
// arrest is never drawn: it is admitted by name).
func TestPickScenarioDrawsUnused(t *testing.T) {
	lib := mustLoad(t)
	used := map[string]bool{}
	drawable := slices.DeleteFunc(slices.Clone(lib.List()), func(s *Scenario) bool { return slices.Contains(s.Tags, TagCardiacArrest) })
	for i := range drawable {
		s, err := lib.PickScenario("patient_1", used)
		if err != nil || used[s.ID] {
			t.Fatalf("pick %d: %v, %v", i, s, err)
		}
		used[s.ID] = true
	}
	if _, err := lib.PickScenario("patient_1", used); err == nil || !strings.Contains(err.Error(), "on the roster already") {
		t.Errorf("with every scenario used: %v", err)
	}
}

// Any shift text parses or is refused without panicking, and a roster drawn from one that parses
// never repeats a scenario, a bed or an id.
func FuzzParseShift(f *testing.F) {
	lib := mustLoad(f)
	f.Add("id: s\ntitle: S\nmix: {count: 3, tags: [respiratory]}\n", int64(1))
	f.Add("id: s\ntitle: S\npatients:\n  - {id: patient_1, scenario: anaphylaxis, bed: Resus 2}\nmix: {count: 2}\n", int64(7))
	f.Add("id: s\ntitle: S\npatients: []\nmix: {count: -1, difficulty: hard}\n", int64(0))
	f.Fuzz(func(t *testing.T, doc string, seed int64) {
		sh, errs := lib.ParseShift([]byte(doc))
		if len(errs) > 0 {
			return
		}
		roster, err := lib.Roster(sh, seed)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, p := range roster {
			for _, k := range []string{"s:" + p.Scenario, "b:" + p.Bed, "i:" + p.ID} {
				if seen[k] {
					t.Fatalf("%s repeats in %+v", k, roster)
				}
				seen[k] = true
			}
		}
	})
}

// A mix by difficulty draws only cases of that difficulty.
func TestShiftMixByDifficulty(t *testing.T) {
	lib := mustLoad(t)
	sh, errs := lib.ParseShift([]byte("id: s\ntitle: S\nmix: {count: 2, difficulty: intermediate}\n"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	roster, err := lib.Roster(sh, 3)
	if err != nil || len(roster) != 2 {
		t.Fatalf("%v %v", roster, err)
	}
	for _, p := range roster {
		if s, _ := lib.Get(p.Scenario); s.Difficulty != "intermediate" {
			t.Errorf("drew %s, %s", s.ID, s.Difficulty)
		}
	}
}
