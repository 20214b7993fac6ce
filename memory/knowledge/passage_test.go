package knowledge

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var twoPassages = []Passage{
	{N: 1, CardID: "anaphylaxis", Title: "Anaphylaxis", Section: "Adrenaline", Source: "Resuscitation Council UK, Emergency treatment of anaphylaxis (2021)",
		Text: "Give 0.5 mg IM."},
	{N: 2, CardID: "oxygen-targets", Title: "Oxygen targets and devices", Section: "Critical illness", Source: "British Thoracic Society, Guideline (2017)",
		Text: "Start at 15 L/min."},
}

// A passage reaches a prompt as its number, source and text; how it ranked stays out, so the
// prompt's bytes do not change with a score.
func TestPassageJSONCarriesNoScores(t *testing.T) {
	p := twoPassages[0]
	p.Score, p.Why = 0.03, Why{LexicalRank: 1, LexicalScore: 2.5}
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"n":1,"card":"anaphylaxis","title":"Anaphylaxis","section":"Adrenaline","source":"Resuscitation Council UK, Emergency treatment of anaphylaxis (2021)","text":"Give 0.5 mg IM."}`
	if string(data) != want {
		t.Errorf("got %s\nwant %s", data, want)
	}
}

func TestCheckCitations(t *testing.T) {
	tests := []struct {
		name, reply, want string
		cited             []int
		removed           int
	}{
		{"valid citations kept", "Give 0.5 mg IM [1]. Then oxygen [2].", "Give 0.5 mg IM [1]. Then oxygen [2].", []int{1, 2}, 0},
		{"unretrieved citation removed with its space", "Give 0.5 mg IM [3].", "Give 0.5 mg IM.", nil, 1},
		{"group keeps its valid numbers", "Oxygen first [2, 7, 1].", "Oxygen first [2, 1].", []int{2, 1}, 1},
		{"group of only invalid numbers removed", "Something [0,9].", "Something.", nil, 2},
		{"cited once though cited twice", "A [2]. B [2]. C [1].", "A [2]. B [2]. C [1].", []int{2, 1}, 0},
		{"a year is not a citation", "Published in [2021] by RCUK [1].", "Published in [2021] by RCUK [1].", []int{1}, 0},
		{"not a citation", "Doses [a] and [1.5] and [] stay.", "Doses [a] and [1.5] and [] stay.", nil, 0},
		{"no citations", "Just talk.", "Just talk.", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := CheckCitations(tt.reply, twoPassages)
			var cited []int
			for _, p := range c.Cited {
				cited = append(cited, p.N)
			}
			if c.Text != tt.want || !reflect.DeepEqual(cited, tt.cited) || c.Removed != tt.removed {
				t.Errorf("got %q cited %v removed %d; want %q %v %d", c.Text, cited, c.Removed, tt.want, tt.cited, tt.removed)
			}
		})
	}
}

func TestCitationSourcesForDisplay(t *testing.T) {
	c := CheckCitations("Oxygen [2] then adrenaline [1].", twoPassages)
	want := []string{
		"[2] Oxygen targets and devices › Critical illness — British Thoracic Society, Guideline (2017)",
		"[1] Anaphylaxis › Adrenaline — Resuscitation Council UK, Emergency treatment of anaphylaxis (2021)",
	}
	if got := c.Sources(); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

var anyCitation = regexp.MustCompile(`\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]`)

func FuzzCheckCitations(f *testing.F) {
	f.Add("Give 0.5 mg [1]. Oxygen [2, 9]. [3][4]")
	f.Add("[1,1,1] [ 2 ] [999]")
	f.Fuzz(func(t *testing.T, reply string) {
		c := CheckCitations(reply, twoPassages)
		for _, m := range anyCitation.FindAllStringSubmatch(c.Text, -1) {
			for _, f := range strings.Split(m[1], ",") {
				if n, _ := strconv.Atoi(strings.TrimSpace(f)); n != 1 && n != 2 {
					t.Fatalf("citation [%d] kept in %q", n, c.Text)
				}
			}
		}
		if c.Removed < 0 || len(c.Cited) > 2 {
			t.Fatalf("removed %d, cited %d", c.Removed, len(c.Cited))
		}
		if c.Removed == 0 && c.Text != reply {
			t.Fatalf("nothing removed but the text changed: %q → %q", reply, c.Text)
		}
	})
}
