package scenario

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestParseRhythm(t *testing.T) {
	cases := []struct {
		text string
		want Rhythm
		ok   bool
	}{
		{"", SinusRhythm, true},
		{"sinus rhythm; ST elevation in II, III and aVF", SinusRhythm, true},
		{"sinus tachycardia with runs of ventricular tachycardia", SinusTachycardia, true},
		{"Coarse VF", CoarseVF, true},
		{"pulseless VT", PulselessVT, true},
		{"VT", VT, true},
		{"VTach", "", false},
		{"ventricular fibrillation", "", false},
		{"PEA", PEA, true},
	}
	for _, c := range cases {
		got, ok := ParseRhythm(c.text)
		if got != c.want || ok != c.ok {
			t.Errorf("ParseRhythm(%q) = %q, %v; want %q, %v", c.text, got, ok, c.want, c.ok)
		}
	}
	if !CoarseVF.Shockable() || !PulselessVT.Shockable() || PEA.Shockable() || VT.Arrest() || !Asystole.Arrest() {
		t.Error("shockable and arrest rhythms are wrong")
	}
}

func FuzzParseRhythm(f *testing.F) {
	for _, r := range Rhythms {
		f.Add(string(r) + "; detail")
	}
	f.Add("sinus\x00")
	f.Fuzz(func(t *testing.T, text string) {
		r, ok := ParseRhythm(text)
		if ok != (r != "") {
			t.Fatalf("ParseRhythm(%q) = %q, %v", text, r, ok)
		}
	})
}

// A state's rhythm is one of the enum, and an arrest needs its block: a ROSC state with a pulse,
// a cause the ALS model knows.
func TestValidateRhythmsAndArrests(t *testing.T) {
	cases := []struct{ name, from, to, want string }{
		{"unknown rhythm", "    vitals: {hr: 120}\n", "    rhythm: ventricular fibrillation\n    vitals: {hr: 120}\n", "must start with one of"},
		{"arrest without a block", "    vitals: {hr: 120}\n", "    rhythm: asystole\n    vitals: {hr: 120}\n", "needs an arrest block"},
		{"unknown cause", "    vitals: {hr: 120}\n", "    rhythm: fine VF\n    vitals: {hr: 120}\narrest: {rosc: well, cause: gremlins}\n", "unknown cause"},
		{"no arrest state", "learning_objectives:", "arrest: {rosc: well}\nlearning_objectives:", "needs a state with an arrest rhythm"},
		{"a rhythm no one can name", "    match: {kind: check_vitals}", "    match: {kind: name_rhythm, rhythm: v-fib}", "unknown rhythm"},
		{"ROSC into an arrest", "    vitals: {hr: 120}\n", "    rhythm: PEA\n    vitals: {hr: 120}\narrest: {rosc: ill}\n", "has an arrest rhythm"},
	}
	for _, c := range cases {
		if !strings.Contains(minimal, c.from) {
			t.Fatalf("%s: %q not in the minimal scenario", c.name, c.from)
		}
		_, errs := Parse([]byte(strings.Replace(minimal, c.from, c.to, 1)))
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), c.want) {
			t.Errorf("%s: %v, want one error with %q", c.name, errs, c.want)
		}
	}
	ok := strings.Replace(minimal, "    vitals: {hr: 120}\n", "    rhythm: coarse VF\n    vitals: {hr: 120}\narrest: {rosc: well, cause: thrombosis}\n", 1)
	if _, errs := Parse([]byte(ok)); len(errs) > 0 {
		t.Errorf("a valid arrest: %v", errs)
	}
}

// The ALS model's data loads, and its chances fall with time as the evidence says.
func TestALSModel(t *testing.T) {
	m := ALS()
	if len(m.Sources) == 0 || len(m.Assumptions) == 0 || len(m.Causes) != 8 {
		t.Fatalf("sources %d, assumptions %d, causes %d", len(m.Sources), len(m.Assumptions), len(m.Causes))
	}
	for _, c := range m.Causes {
		if c.Name == "" || c.Findings == "" || c.Treatment == "" {
			t.Errorf("cause %s lacks its name, findings or treatment", c.ID)
		}
	}
	if !(m.ShockChance(60) > m.ShockChance(300) && m.ShockChance(300) > m.ShockChance(1800) && m.ShockChance(1800) > 0) {
		t.Error("the shock's chance does not fall with time")
	}
	if m.FractionFactor(0.9) != 1 || m.FractionFactor(0.5) >= m.FractionFactor(0.7) {
		t.Error("the compression fraction's factor does not rise with the fraction")
	}
}

// A patient admitted without a scenario is never given a cardiac arrest, so adding arrests to
// the library leaves every pick as it was.
func TestPickScenarioNeverPicksAnArrest(t *testing.T) {
	lib := mustLoad(t)
	for i := range 200 {
		s, err := lib.PickScenario(fmt.Sprintf("patient_%d", i), nil)
		if err != nil || slices.Contains(s.Tags, TagCardiacArrest) {
			t.Fatalf("patient_%d: picked %v", i, s)
		}
	}
	for _, id := range []string{"arrest-vf-ward", "arrest-pea-tension", "arrest-asystole-stop"} {
		if s, _ := lib.Get(id); !slices.Contains(s.Tags, TagCardiacArrest) {
			t.Errorf("%s is not tagged %s", id, TagCardiacArrest)
		}
	}
}
