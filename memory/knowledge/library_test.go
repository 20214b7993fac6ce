package knowledge

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func builtin(t testing.TB) []Card {
	t.Helper()
	cards, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return cards
}

func TestBuiltinCardsAreSourcedSectionedAndCoverTheTopics(t *testing.T) {
	cards := builtin(t)
	if len(cards) < 15 {
		t.Errorf("%d built-in cards, want at least 15", len(cards))
	}
	ids := map[string]bool{}
	for _, c := range cards {
		if ids[c.ID] {
			t.Errorf("duplicate id %s", c.ID)
		}
		ids[c.ID] = true
		if c.Source.Body == "" || c.Source.Guideline == "" || c.Source.Year < 1990 {
			t.Errorf("%s: source %+v needs body, guideline and year", c.ID, c.Source)
		}
		if len(c.Sections) < 2 {
			t.Errorf("%s: %d sections, want the card split into sections", c.ID, len(c.Sections))
		}
		for _, s := range c.Sections {
			if s.Heading == untitledSection {
				t.Errorf("%s: text before the first ## heading", c.ID)
			}
			if n := len(strings.Fields(s.Text)); n > maxSectionWords {
				t.Errorf("%s › %s: %d words, so it would be split; keep a built-in section under %d", c.ID, s.Heading, n, maxSectionWords)
			}
		}
	}
	for _, topic := range []string{
		"news2", "abcde", "oxygen-targets", "anaphylaxis", "acute-asthma", "acs-nitrates", "sepsis",
		"hypoglycaemia", "opioid-toxicity", "copd-exacerbation", "analgesia-opioid-allergy",
		"handoff-sbar", "handoff-ipass", "handoff-mist",
	} {
		if !ids[topic] {
			t.Errorf("no built-in card %s", topic)
		}
	}
}

// TestBuiltinCardsCoverEveryBuiltinScenario reads the scenario files themselves, so a new
// scenario without a card fails here.
func TestBuiltinCardsCoverEveryBuiltinScenario(t *testing.T) {
	files, err := filepath.Glob("../../session/scenario/builtin/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario files found: %v", err)
	}
	covered := map[string]bool{}
	for _, c := range builtin(t) {
		for _, s := range c.Scenarios {
			covered[s] = true
		}
	}
	scenarios := map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var head struct {
			ID string `yaml:"id"`
		}
		if err := yaml.Unmarshal(data, &head); err != nil || head.ID == "" {
			t.Fatalf("%s: no id (%v)", f, err)
		}
		scenarios[head.ID] = true
		if !covered[head.ID] {
			t.Errorf("no card lists scenario %s", head.ID)
		}
	}
	for s := range covered {
		if !scenarios[s] {
			t.Errorf("a card lists scenario %s, which does not exist", s)
		}
	}
}

// TestCardDosesAreStatedInTheirText keeps the structured doses, which a formulary check
// reads, and the prose, which the trainee and the model read, saying the same thing.
func TestCardDosesAreStatedInTheirText(t *testing.T) {
	units := []string{"mg", "micrograms", "g", "mL"}
	routes := []string{"IM", "IV", "IO", "PO", "SL", "IN", "NEB", "SC", "PR", "BUCCAL"}
	n := 0
	for _, c := range builtin(t) {
		var text strings.Builder
		for _, s := range c.Sections {
			text.WriteString(s.Text + "\n")
		}
		for _, d := range c.Doses {
			n++
			if d.Drug == "" || d.Drug != strings.ToLower(d.Drug) || d.Amount <= 0 || (d.Max != 0 && d.Max <= d.Amount) {
				t.Errorf("%s: malformed dose %+v", c.ID, d)
			}
			if !slices.Contains(units, d.Unit) || !slices.Contains(routes, d.Route) {
				t.Errorf("%s: dose %+v: unit must be one of %v and route one of %v", c.ID, d, units, routes)
			}
			if !strings.Contains(text.String(), d.Amounts()) {
				t.Errorf("%s: dose %s %s %q is not written in the card's text", c.ID, d.Drug, d.Route, d.Amounts())
			}
		}
	}
	if n < 15 {
		t.Errorf("%d structured doses in the built-in cards, want the cards' doses listed", n)
	}
}

// TestLoadUserDirectory is the --knowledge DIR path: markdown and text files are read from
// the folder and its subfolders; hidden files, other extensions, broken files and files that
// reuse a built-in id are skipped with a reason; escape sequences never get through.
func TestLoadUserDirectory(t *testing.T) {
	lib, err := Load("testdata/cards")
	if err != nil {
		t.Fatal(err)
	}
	nBuiltin := len(builtin(t))
	var user []string
	for _, c := range lib.Cards[nBuiltin:] {
		user = append(user, c.ID+"@"+filepath.ToSlash(c.Origin))
	}
	want := []string{
		"escapes@testdata/cards/escapes.md",
		"local-sepsis@testdata/cards/local-sepsis-pathway.md",
		"handover-notes@testdata/cards/sub/handover-notes.txt",
	}
	if !slices.Equal(user, want) {
		t.Errorf("user cards %v, want %v", user, want)
	}
	if got, _ := lib.Card("anaphylaxis"); got.Origin != BuiltinOrigin {
		t.Errorf("anaphylaxis comes from %s; a user file must not replace a built-in card", got.Origin)
	}
	var problems []string
	for _, p := range lib.Problems {
		problems = append(problems, p.Error())
	}
	joined := strings.Join(problems, "\n")
	if len(problems) != 2 || !strings.Contains(joined, "broken.md") || !strings.Contains(joined, "duplicate.md: id \"anaphylaxis\" is already used by built-in") {
		t.Errorf("problems:\n%s\nwant broken.md and duplicate.md explained", joined)
	}
	esc, _ := lib.Card("escapes")
	if got := esc.Sections[0].Text; got != "Before red after bell and clipboard.\nEnd of line." {
		t.Errorf("escapes.md text %q", got)
	}
}

func TestLoadRefusesAMissingDirectoryClearly(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope"))
	if err == nil || !strings.Contains(err.Error(), "nope") || !strings.Contains(err.Error(), "--knowledge") {
		t.Errorf("err = %v, want one naming the folder and the flag", err)
	}
}

func TestLoadSkipsOversizedFiles(t *testing.T) {
	dir := t.TempDir()
	big := "## Big\n" + strings.Repeat("x", maxUserFileBytes)
	if err := os.WriteFile(filepath.Join(dir, "big.md"), []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	lib, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(lib.Problems) != 1 || !strings.Contains(lib.Problems[0].Error(), "big.md") {
		t.Errorf("problems %v, want big.md refused", lib.Problems)
	}
}
