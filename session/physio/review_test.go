package physio

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the state and NEWS2 columns of the scenario reviews from the engine")

// Each built-in scenario has a review beside it (builtin/ID.review.md): learning objectives,
// critical actions, and three paths of states and NEWS2 — untreated, treated well, mistreated.
// Each path is played here through the parser and the engine, and the review must say what the
// engine does.
func TestScenarioReviews(t *testing.T) {
	for _, s := range library(t).List() {
		t.Run(s.ID, func(t *testing.T) {
			file := filepath.Join("..", "scenario", "builtin", s.ID+".review.md")
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("no review beside the scenario: %v", err)
			}
			lines := strings.Split(string(data), "\n")
			for _, ca := range s.CriticalActions {
				if !strings.Contains(string(data), "`"+ca.ID+"`") {
					t.Errorf("the review does not discuss critical action `%s`", ca.ID)
				}
			}
			paths, errs := ParseReview(string(data))
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			for _, p := range paths {
				steps, _ := PlayPath(s, p, false)
				for _, st := range steps {
					r := st.Row
					if *update {
						cells := strings.Split(lines[r.Line], "|")
						cells[3], cells[4] = " "+st.State+" ", " "+st.NEWS2+" "
						lines[r.Line] = strings.Join(cells, "|")
					} else if st.State != r.State || st.NEWS2 != r.NEWS2 {
						t.Errorf("%s, %s %q: the engine is in %s with %s; the review says %s with %s",
							p.Name, SimTime(r.At), r.Say, st.State, st.NEWS2, r.State, r.NEWS2)
					}
				}
			}
			if *update {
				if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// A review's table parser takes any text without panicking, and every row it keeps is in time
// order with a time it read.
func FuzzParseReview(f *testing.F) {
	data, _ := os.ReadFile(filepath.Join("..", "scenario", "builtin", "hypoglycaemia.review.md"))
	f.Add(string(data))
	f.Add("### Untreated\n| 99:99 | x | y | z |\n### Treated well\n| at | the trainee | state | NEWS2 |\n| 00:01 | — | a | b |\n")
	f.Add("### Mistreated\n| -1:30 | give glucose 20 g PO | s | n |\n")
	f.Fuzz(func(t *testing.T, text string) {
		paths, _ := ParseReview(text)
		if len(paths) != len(ReviewPaths) {
			t.Fatalf("%d paths", len(paths))
		}
		for _, p := range paths {
			for i, r := range p.Rows {
				if r.At < 0 || (i > 0 && r.At < p.Rows[i-1].At) {
					t.Fatalf("row %+v out of order", r)
				}
			}
		}
	})
}
