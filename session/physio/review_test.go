package physio

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the state and NEWS2 columns of the scenario reviews from the engine")

// reviewFile is the review beside a built-in scenario.
func reviewFile(id string) string { return filepath.Join("..", "scenario", "builtin", id+".review.md") }

// Each built-in scenario has a review beside it (builtin/ID.review.md): learning objectives,
// critical actions, and three paths of states and NEWS2 — untreated, treated well, mistreated.
// Each path is played here through the parser and the engine, and the review must say what the
// engine does.
func TestScenarioReviews(t *testing.T) {
	for _, s := range library(t).List() {
		t.Run(s.ID, func(t *testing.T) {
			file := reviewFile(s.ID)
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
				minuteByMinute(t, p)
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
			} else {
				keepsWorsening(t, paths[0].Rows, longestPlateau(t, lines))
			}
		})
	}
}

// minuteByMinute: a path shows the patient at least once a minute, from arrival to its end.
func minuteByMinute(t *testing.T, p ReviewPath) {
	t.Helper()
	rows := p.Rows
	if rows[0].At != 0 {
		t.Errorf("%s starts at %s, want 00:00", p.Name, SimTime(rows[0].At))
	}
	for i := 1; i < len(rows); i++ {
		if gap := rows[i].At - rows[i-1].At; gap > 60 {
			t.Errorf("%s: %s after %s, a gap of %s; want a row every minute", p.Name, SimTime(rows[i].At), SimTime(rows[i-1].At), SimTime(gap))
		}
	}
}

var plateauLine = regexp.MustCompile(`^Longest plateau: (\d+) minutes?\b`)

// longestPlateau is how long the review lets the untreated NEWS2 stay level, in minutes: the line
// "Longest plateau: N minutes" under the Untreated heading, and it must say why.
func longestPlateau(t *testing.T, lines []string) float64 {
	t.Helper()
	in := false
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "### "):
			in = strings.TrimSpace(l) == "### Untreated"
		case in:
			if m := plateauLine.FindStringSubmatch(l); m != nil {
				n, _ := strconv.Atoi(m[1])
				return float64(n)
			}
		}
	}
	t.Fatal(`the Untreated path does not say its "Longest plateau: N minutes" and why`)
	return 0
}

// keepsWorsening: until the untreated patient reaches the state the path ends in, the NEWS2 rises
// to a new height at least every plateau minutes and never falls more than a point below the
// highest yet.
func keepsWorsening(t *testing.T, rows []ReviewRow, plateau float64) {
	t.Helper()
	final := rows[len(rows)-1].State
	highest, rose := -1, 0.0
	for _, r := range rows {
		if r.State == final {
			return
		}
		var n int
		if _, err := fmt.Sscanf(r.NEWS2, "NEWS2 %d", &n); err != nil {
			t.Fatalf("%s: NEWS2 %q", SimTime(r.At), r.NEWS2)
		}
		switch {
		case n > highest:
			highest, rose = n, r.At
		case n < highest-1:
			t.Errorf("untreated at %s: NEWS2 %d fell below %d, the highest yet", SimTime(r.At), n, highest)
		case r.At-rose > plateau*60:
			t.Errorf("untreated at %s: NEWS2 level at %d since %s, longer than the review's %g minutes", SimTime(r.At), n, SimTime(rose), plateau)
			return
		}
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
