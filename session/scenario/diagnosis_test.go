package scenario

import (
	"slices"
	"strings"
	"testing"
)

var asthmaKey = &DiagnosisKey{
	Accepted:      []string{"life-threatening asthma", "acute severe asthma", "asthma"},
	Differentials: []string{"anaphylaxis", "pneumothorax", "cardiac asthma", "COPD exacerbation"},
}

func TestMatchDiagnosis(t *testing.T) {
	for _, tc := range []struct {
		said, verdict, term string
	}{
		{"life threatening asthma", VerdictAccepted, "life-threatening asthma"},
		{"Life-Threatening Asthma!", VerdictAccepted, "life-threatening asthma"},
		{"acute severe asthma attack", VerdictAccepted, "acute severe asthma"},
		{"asthma", VerdictAccepted, "asthma"},
		{"asthmaa", VerdictAccepted, "asthma"},                                   // one slip in a 6-letter word
		{"life-threatning asthama", VerdictAccepted, "life-threatening asthma"},  // a slip in each word
		{"severe acute asthma", VerdictAccepted, "acute severe asthma"},          // word order
		{"probable anaphylaxsis", VerdictDifferential, "anaphylaxis"},            // filler and a swap
		{"acute exacerbation of copd", VerdictDifferential, "COPD exacerbation"}, // abbreviation, order
		{"cardiac asthma", VerdictDifferential, "cardiac asthma"},                // the longer term wins
		{"pulmonary embolism", VerdictWrong, ""},                                 // a wrong diagnosis
		{"asthm", VerdictAccepted, "asthma"},                                     // a dropped letter
		{"cpod exacerbation", VerdictWrong, ""},                                  // abbreviations are exact
		{"", VerdictWrong, ""},
		{"of the", VerdictWrong, ""},
	} {
		got := MatchDiagnosis(asthmaKey, tc.said)
		if got.Verdict != tc.verdict || got.Term != tc.term {
			t.Errorf("%q: got %s %q, want %s %q", tc.said, got.Verdict, got.Term, tc.verdict, tc.term)
		}
	}
}

// An abbreviation written in capitals in the key is matched exactly, whatever the trainee's case.
func TestMatchDiagnosisAbbreviations(t *testing.T) {
	key := &DiagnosisKey{Accepted: []string{"inferior STEMI", "STEMI", "ACS"}, Differentials: []string{"NSTEMI", "aortic dissection"}}
	for said, want := range map[string]string{"stemi": "STEMI", "Inferior stemi": "inferior STEMI", "nstemi": "NSTEMI", "acs": "ACS", "stemmi": "", "aortic disection": "aortic dissection"} {
		if got := MatchDiagnosis(key, said); got.Term != want {
			t.Errorf("%q matched %q, want %q", said, got.Term, want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"asthma", "asthma", 0}, {"asthma", "astmha", 1}, {"asthma", "asthm", 1}, {"sepsis", "sepssi", 1},
		{"hypoglycaemia", "hypoglycemia", 1}, {"pneumonia", "pnuemonia", 1}, {"abc", "xyz", 3},
	} {
		if got := EditDistance(tc.a, tc.b, 5); got != tc.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
	if got := EditDistance("a", "abcdefgh", 2); got != 3 {
		t.Errorf("beyond the limit: got %d, want 3", got)
	}
}

// The whole library's keys: every accepted term matches its own scenario as accepted, and no
// differential is taken for the diagnosis.
func TestLibraryDiagnosisKeys(t *testing.T) {
	lib, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range lib.List() {
		if s.Diagnosis == nil || s.Disposition == nil || s.Difficulty == "" || len(s.Tags) == 0 || len(s.Reflection) < 2 {
			t.Errorf("%s: wants diagnosis, disposition, difficulty, tags and 2–3 reflective questions", s.ID)
			continue
		}
		for _, term := range s.Diagnosis.Accepted {
			if m := MatchDiagnosis(s.Diagnosis, term); m.Verdict != VerdictAccepted {
				t.Errorf("%s: accepted %q matches as %s %q", s.ID, term, m.Verdict, m.Term)
			}
		}
		for _, term := range s.Diagnosis.Differentials {
			if m := MatchDiagnosis(s.Diagnosis, term); m.Verdict != VerdictDifferential {
				t.Errorf("%s: differential %q matches as %s %q", s.ID, term, m.Verdict, m.Term)
			}
		}
	}
}

func TestValidateTeaching(t *testing.T) {
	cases := []struct{ name, add, want string }{
		{"difficulty", "difficulty: expert\n", `difficulty "expert" must be one of`},
		{"tag", "tags: [Respiratory]\n", `tag "Respiratory" must be one lowercase word`},
		{"disposition", "disposition: {accepted: [mortuary], reason: r}\n", `disposition "mortuary" must be one of`},
		{"differential is accepted", "diagnosis: {accepted: [asthma], differentials: [acute asthma]}\n", "would match the accepted"},
		{"weights", "diagnosis: {accepted: [asthma]}\ndisposition: {accepted: [ward], reason: r}\nscoring_x: 1\n", "unknown field"},
		{"four questions", "reflection:\n" + strings.Repeat("  - {question: q, key_points: [k]}\n", 4), "ask at most 3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if errs := Validate([]byte(minimal + c.add)); !slices.ContainsFunc(errs, func(e error) bool { return strings.Contains(e.Error(), c.want) }) {
				t.Fatalf("want %q, got %v", c.want, errs)
			}
		})
	}
	split := strings.Replace(minimal, "warning: 5}", "warning: 5, diagnosis: 40, disposition: 20, actions: 45}", 1)
	wantErrorIn(t, split+"diagnosis: {accepted: [asthma]}\ndisposition: {accepted: [ward], reason: r}\n", 25, "add up to 105, not 100")
	wantErrorIn(t, strings.Replace(minimal, "warning: 5}", "warning: 5, diagnosis: 35, disposition: 20, actions: 45}", 1), 25, "no diagnosis key")
	w := mustParse(t, strings.Replace(minimal, "warning: 5}", "warning: 5, diagnosis: 50, disposition: 0, actions: 50}", 1)+"diagnosis: {accepted: [asthma]}\n").Weights()
	if w != (Weights{Diagnosis: 50, Actions: 50}) {
		t.Errorf("a scenario's own split: got %+v", w)
	}
	if w := mustParse(t, minimal).Weights(); w != (Weights{Actions: 100}) {
		t.Errorf("no keys: the actions take the whole score, got %+v", w)
	}
}

func mustParse(t *testing.T, doc string) *Scenario {
	t.Helper()
	s, errs := Parse([]byte(doc))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return s
}

func FuzzMatchDiagnosis(f *testing.F) {
	for _, s := range []string{"asthma", "life-threatning asthama", "acute exacerbation of COPD", "", "é-ß/.'"} {
		f.Add(s, "anaphylaxis")
	}
	f.Fuzz(func(t *testing.T, said, term string) {
		key := &DiagnosisKey{Accepted: []string{term}, Differentials: asthmaKey.Differentials}
		got := MatchDiagnosis(key, said)
		if got != MatchDiagnosis(key, said) {
			t.Fatal("not deterministic")
		}
		if first := KeyPointNamed(said, term); KeyPointNamed(said, term) != first {
			t.Fatal("key points: not deterministic")
		}
		if got.Verdict == VerdictWrong && got.Term != "" {
			t.Fatalf("a wrong verdict names a term: %+v", got)
		}
		// A term always matches itself, as accepted unless a longer differential also matches.
		if len(diagnosisWords(term)) > 0 && MatchDiagnosis(key, term).Verdict == VerdictWrong {
			t.Fatalf("%q does not match itself", term)
		}
	})
}

// A key point is named by its words, not by the units it shares with another.
func TestKeyPointNamed(t *testing.T) {
	answer := "I worked out from his weight of 20 kg: prednisolone 2 mg/kg, magnesium 40 mg/kg"
	for point, want := range map[string]bool{
		"weight 20 kg": true, "prednisolone 1-2 mg/kg": true, "magnesium 40 mg/kg": true,
		"hydrocortisone 4 mg/kg": false, "salbutamol 2.5-5 mg": false, "respiratory rate 20": false,
		"nebulised salbutamol": false, "": false,
	} {
		if got := KeyPointNamed(answer, point); got != want {
			t.Errorf("%q named %q: %v, want %v", answer, point, got, want)
		}
	}
	if !KeyPointNamed("salbutamol nebuliser and oxygen", "nebulised salbutamol") || !KeyPointNamed("she was too tired, exhausted", "exhaustion") {
		t.Error("a key point in other words is not named")
	}
}

// Matching a working diagnosis against a key of five accepted terms and six differentials, as
// /diagnosis does once per command.
func BenchmarkMatchDiagnosis(b *testing.B) {
	key := &DiagnosisKey{Accepted: []string{"acute severe asthma", "life-threatening asthma", "asthma exacerbation", "asthma attack", "asthma"},
		Differentials: []string{"anaphylaxis", "pneumothorax", "pneumonia", "COPD exacerbation", "pulmonary embolism", "cardiac asthma"}}
	for b.Loop() {
		MatchDiagnosis(key, "probable life-threatning asthama exacerbation")
	}
}

// A ranked differential is read item by item: the case's diagnosis is accepted at its place, so
// a hedge that names it is the second place, not "not this case"; credit falls with the place.
func TestMatchDifferentialRanks(t *testing.T) {
	pe := &DiagnosisKey{Accepted: []string{"pulmonary embolism", "PE"}, Differentials: []string{"pneumonia", "pneumothorax"}}
	for said, want := range map[string]DiagnosisMatch{
		"PE":                                 {Verdict: VerdictAccepted, Term: "PE"},
		"pneumonia or PE":                    {Verdict: VerdictAccepted, Term: "PE", Rank: 2},
		"1. pneumonia 2. pneumothorax 3. PE": {Verdict: VerdictAccepted, Term: "PE", Rank: 3},
		"pneumonia, pneumothorax":            {Verdict: VerdictDifferential, Term: "pneumonia", Rank: 1},
		"sepsis; pneumothorax":               {Verdict: VerdictDifferential, Term: "pneumothorax", Rank: 2},
		"pulmonary embolism > pneumonia":     {Verdict: VerdictAccepted, Term: "pulmonary embolism", Rank: 1},
		"gout, sepsis":                       {Verdict: VerdictWrong, Rank: 0},
	} {
		got := MatchDifferential(pe, said)
		if want.Verdict == VerdictWrong {
			got.Rank = 0
		}
		if got != want {
			t.Errorf("%q: %+v, want %+v", said, got, want)
		}
	}
	for rank, want := range map[int][2]int{0: {1, 1}, 1: {1, 1}, 2: {1, 2}, 3: {1, 3}, 4: {0, 1}} {
		if num, den := DiagnosisCredit(rank); [2]int{num, den} != want {
			t.Errorf("credit at place %d: %d/%d, want %d/%d", rank, num, den, want[0], want[1])
		}
	}
}

func FuzzMatchDifferential(f *testing.F) {
	for _, s := range []string{"pneumonia or PE", "1. PE 2) pneumonia", ";;,,>", "", "é or ß"} {
		f.Add(s)
	}
	pe := &DiagnosisKey{Accepted: []string{"pulmonary embolism", "PE"}, Differentials: []string{"pneumonia"}}
	f.Fuzz(func(t *testing.T, said string) {
		got := MatchDifferential(pe, said)
		if got != MatchDifferential(pe, said) {
			t.Fatal("not deterministic")
		}
		if got.Rank < 0 || got.Rank > len(differentialItems(said)) {
			t.Fatalf("rank %d of %d items", got.Rank, len(differentialItems(said)))
		}
	})
}
