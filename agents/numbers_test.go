package agents

import (
	"slices"
	"strings"
	"testing"

	"github.com/ward-sim/ward/memory"
)

func TestInventedFindsClinicalNumbersThePromptLacks(t *testing.T) {
	p := Prompt{
		Static:  "You are the nurse. Keep SpO2 at 94 to 98 %.\n" + PersonaHeading + `{"age":67}`,
		Dynamic: `Engine facts: {"measured":[{"hr":118,"spo2":91,"sbp":92,"dbp":58}]}`,
		Window:  []memory.Message{{Role: memory.RoleUser, Content: "give 0.5 mg adrenaline IM"}},
		User:    "what are the obs?",
	}
	given := GivenNumbers(p)
	for reply, want := range map[string][]string{
		"My heart rate is 212 and my SpO2 61 %":          {"212", "61"},
		"HR 118, sats 91%, BP 92/58":                     {},
		"BP 120/80":                                      {"120", "80"},
		"0.5 mg of adrenaline IM given":                  {},
		"I'd give 1 mg":                                  {"1"},
		"sats of 94 %":                                   {"94"}, // the instructions' target is no fact
		"I'm 67 and it started 2 days ago, pain is 8/10": {},
		"temperature 39.2 degrees":                       {"39.2"},
		"NEWS2 score 7":                                  {"7"},
	} {
		if got := Invented(reply, given); !slices.Equal(got, want) && (len(got) != 0 || len(want) != 0) {
			t.Errorf("Invented(%q) = %v, want %v", reply, got, want)
		}
	}
}

// Whatever a model writes, Invented returns only numbers the reply holds, and none once the
// prompt gave every number the reply holds.
func FuzzInvented(f *testing.F) {
	f.Add("My heart rate is 212 and my SpO2 61 %")
	f.Add("BP 120/80, temp 39.2 degrees, 10 mg IV")
	f.Add("pain 8/10 since I was 8")
	f.Fuzz(func(t *testing.T, reply string) {
		for _, n := range Invented(reply, map[string]bool{}) {
			if !strings.Contains(reply, n) {
				t.Fatalf("Invented(%q) names %q, which the reply does not hold", reply, n)
			}
		}
		all := map[string]bool{}
		for _, n := range anyNumber.FindAllString(reply, -1) {
			all[Canonical(n)] = true
		}
		if got := Invented(reply, all); len(got) > 0 {
			t.Fatalf("Invented(%q) = %v with every number given", reply, got)
		}
	})
}
