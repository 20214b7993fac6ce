package session

import (
	"slices"
	"strings"
	"testing"

	sc "github.com/ward-sim/ward/session/scenario"
)

// maskOneByOne is how masking worked before the masker, kept as its oracle: every term of every
// patient on the roster, in roster order, replaced by its own whole-word pattern.
func maskOneByOne(lib *sc.Library, roster []string, text string) string {
	for _, id := range roster {
		if scen, ok := lib.Get(id); ok {
			for _, term := range caseTerms(scen) {
				if re := termPattern(term, false); re.MatchString(text) {
					text = re.ReplaceAllLiteralString(text, caseMask)
				}
			}
		}
	}
	return text
}

// caseTexts are the built-in cases' own words: every line of each scenario's file and review.
func caseTexts(lib *sc.Library) []string {
	var texts []string
	seen := map[string]bool{}
	for _, scen := range lib.List() {
		yaml, review, _ := lib.Source(scen.ID)
		for _, line := range strings.Split(string(yaml)+"\n"+string(review), "\n") {
			if line = strings.TrimSpace(line); line != "" && !seen[line] {
				texts, seen[line] = append(texts, line), true
			}
		}
	}
	return texts
}

// termTexts are the built-in cases' terms, each alone, in other cases, inside words, beside
// punctuation, brackets and the mask, and run into each other.
func termTexts(t testing.TB, lib *sc.Library) []string {
	var texts, terms []string
	for _, scen := range lib.List() {
		texts = append(texts, scen.Title, scen.Presentation, scen.ChiefComplaint)
		terms = append(terms, caseTerms(scen)...)
	}
	if len(terms) == 0 {
		t.Fatal("the built-in scenarios name no case terms")
	}
	for i, term := range terms {
		next := terms[(i+1)%len(terms)]
		texts = append(texts,
			term, strings.ToUpper(term), titleCase(term), "likely "+term+".", "("+term+")",
			"["+term+"]", term+caseMask, caseMask+term, "pre"+term, term+"s", term+"-"+next,
			term+" "+next+" "+term, strings.ReplaceAll(term, "s", "ſ"), strings.ReplaceAll(term, "k", "\u212a"),
			"the "+strings.ToUpper(term[:len(term)/2])+term[len(term)/2:]+" again, "+term,
		)
	}
	return texts
}

// rosters are the rosters the masker is compared on: every built-in scenario, forwards, and
// backwards then forwards (patients who share a case), and each scenario alone.
func rosters(lib *sc.Library) (whole, alone [][]string) {
	var all []string
	for _, scen := range lib.List() {
		all = append(all, scen.ID)
		alone = append(alone, []string{scen.ID})
	}
	back := slices.Clone(all)
	slices.Reverse(back)
	return [][]string{all, append(back, all...)}, append(alone, []string{"no-such-case"})
}

func TestCaseMaskerMasksAsOneByOne(t *testing.T) {
	lib, err := sc.Load()
	if err != nil {
		t.Fatal(err)
	}
	terms := termTexts(t, lib)
	whole, alone := rosters(lib)
	masked := 0
	compare := func(roster []string, texts []string) {
		var unique []string
		for _, id := range roster {
			if !slices.Contains(unique, id) {
				unique = append(unique, id)
			}
		}
		m := newCaseMasker(lib, unique)
		for i, text := range texts {
			if !checkedUnderRace(i, maskerStride) {
				continue // the oracle's regexps under -race: every text costs minutes in all
			}
			want := maskOneByOne(lib, roster, text)
			if got := m.mask(text); got != want {
				t.Fatalf("roster %v masks %q as %q, want %q", roster, text, got, want)
			}
			if want != text {
				masked++
			}
		}
	}
	compare(whole[0], caseTexts(lib))
	for _, roster := range append(whole, alone...) {
		compare(roster, terms)
	}
	if masked < 1000/strideUnderRace(maskerStride) {
		t.Errorf("only %d of the texts were masked: the comparison says little", masked)
	}
}

// maskerStride is how sparsely the race detector's run compares the masker with its oracle.
const maskerStride = 32

func FuzzCaseMasker(f *testing.F) {
	lib, err := sc.Load()
	if err != nil {
		f.Fatal(err)
	}
	// Every four-hundredth text seeds the corpus: each input runs the oracle's regexps over every case,
	// so a bigger corpus spends the fuzzer's time (2 s in CI) on its baseline rather than on
	// exploring.
	for i, text := range termTexts(f, lib) {
		if i%400 == 0 {
			f.Add(text)
		}
	}
	whole, _ := rosters(lib)
	roster := whole[0][:2] // two cases: each input runs the oracle over all their terms, 500 a second
	m := newCaseMasker(lib, roster)
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := m.mask(text), maskOneByOne(lib, roster, text); got != want {
			t.Fatalf("masks %q as %q, want %q", text, got, want)
		}
	})
}

// TestMaskerFollowsTheRoster: a switch of patient keeps the masker; an admission with a new case
// builds another that masks it.
func TestMaskerFollowsTheRoster(t *testing.T) {
	r := newRig(t)
	s := r.s
	r.turn("/admit patient_1 anaphylaxis")
	before := s.reg.caseMasker()
	if got := s.maskCase("could be anaphylaxis"); got != "could be "+caseMask {
		t.Fatalf("masked %q", got)
	}
	r.turn("/admit patient_2 asthma-exacerbation")
	if s.reg.caseMasker() == before {
		t.Fatal("a new case on the roster kept the old masker")
	}
	if got := s.maskCase("an asthma exacerbation, not anaphylaxis"); strings.Contains(got, "anaphylaxis") || strings.Contains(got, "exacerbation") {
		t.Fatalf("masked %q", got)
	}
	now := s.reg.caseMasker()
	r.turn("switch to patient_1")
	if s.reg.caseMasker() != now {
		t.Fatal("a switch of patient rebuilt the masker")
	}
}

// BenchmarkMaskCase masks a model's reasoning (no case term in it, as most are) with one case on
// the roster and with every built-in case, by the masker and by the one-by-one oracle.
func BenchmarkMaskCase(b *testing.B) {
	lib, err := sc.Load()
	if err != nil {
		b.Fatal(err)
	}
	whole, alone := rosters(lib)
	text := "The trainee asks the active patient about their breathing; no other patient is named, so the context stays where it is."
	for _, r := range []struct {
		name   string
		roster []string
	}{{"one_case", alone[0]}, {"every_case", whole[0]}} {
		m := newCaseMasker(lib, r.roster)
		b.Run(r.name+"/masker", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m.mask(text)
			}
		})
		b.Run(r.name+"/one_by_one", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				maskOneByOne(lib, r.roster, text)
			}
		})
	}
}

// titleCase capitalises each word's first letter, the case a heading gives a term.
func titleCase(s string) string {
	words := strings.Fields(s)
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, " ")
}
