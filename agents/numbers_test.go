package agents

import (
	"maps"
	"regexp"
	"slices"
	"strconv"
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

// numbersOfTexts is GivenNumbers as it was first written, the oracle of its parts: every number
// of the sections as Texts writes them, the static section's persona line alone.
func numbersOfTexts(p Prompt) map[string]bool {
	given := map[string]bool{}
	add := func(text string) {
		for _, n := range regexp.MustCompile(`\d+(?:\.\d+)?`).FindAllString(text, -1) {
			given[Canonical(n)] = true
		}
	}
	for _, line := range strings.Split(p.Static, "\n") {
		if strings.HasPrefix(line, PersonaHeading) {
			add(line)
		}
	}
	for name, text := range p.Texts() {
		if name != SectionStatic {
			add(text)
		}
	}
	return given
}

func TestGivenNumbersReadTheTexts(t *testing.T) {
	p := Prompt{
		Static:  "You are the nurse, 24/7.\n" + PersonaHeading + `{"age":67.50}` + "\nKeep 94 to 98",
		Window:  []memory.Message{{Role: memory.RoleUser, Content: "give 0.5 mg adrenaline IM 1."}, {Role: memory.RoleAssistant, Content: "3"}},
		Dynamic: "\n 12.0 \n", Instruction: "7.", User: "what are the obs 007?",
		After: []memory.Message{
			{Role: memory.RoleAssistant, ToolCalls: []memory.ToolCall{{Name: "dose2", Args: map[string]any{"mg": 0.25, "route": "IV"}}}},
			{Role: "tool", ToolName: "t4", Content: "9"},
		},
	}
	if got, want := GivenNumbers(p), numbersOfTexts(p); !maps.Equal(got, want) {
		t.Errorf("GivenNumbers = %v, the texts give %v", got, want)
	}
}

func TestCanonicalWritesIntegersAsFormatFloat(t *testing.T) {
	for _, n := range []string{"0", "7", "10", "120", "999999999999999", "9999999999999999", "12345678901234567890", "007", "00", "1.50", "2.0"} {
		want := n
		if v, err := strconv.ParseFloat(n, 64); err == nil {
			want = strconv.FormatFloat(v, 'f', -1, 64)
		}
		if got := Canonical(n); got != want {
			t.Errorf("Canonical(%q) = %q, want %q", n, got, want)
		}
	}
}
