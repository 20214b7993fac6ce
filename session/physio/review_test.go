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

// reviewPaths are the paths every scenario's review plays.
var reviewPaths = []string{"Untreated", "Treated well", "Mistreated"}

// pathRow is one row of a review's path table: at a time since arrival the trainee says
// something (or nothing), and then the patient is in a state with a NEWS2.
type pathRow struct {
	line        int // index in the file's lines
	at          float64
	say         string
	state, news string
}

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
			for _, name := range reviewPaths {
				rows := pathRows(t, lines, name)
				if len(rows) < 2 {
					t.Fatalf("path %q has %d rows, want at least 2", name, len(rows))
				}
				minuteByMinute(t, name, rows)
				e := NewEngine("patient_1", s, 42, 0)
				for _, r := range rows {
					e.AdvanceTo(r.at, nil)
					for _, a := range ParseActions(r.say) {
						e.Apply(a)
					}
					state, news := e.State(), e.TrueNEWS2().String()
					if *update {
						cells := strings.Split(lines[r.line], "|")
						cells[3], cells[4] = " "+state+" ", " "+news+" "
						lines[r.line] = strings.Join(cells, "|")
					} else if state != r.state || news != r.news {
						t.Errorf("%s, %s %q: the engine is in %s with %s; the review says %s with %s",
							name, SimTime(r.at), r.say, state, news, r.state, r.news)
					}
				}
			}
			if *update {
				if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
					t.Fatal(err)
				}
			} else {
				keepsWorsening(t, pathRows(t, lines, "Untreated"), longestPlateau(t, lines))
			}
		})
	}
}

// pathRows reads the table under the heading "### name".
func pathRows(t *testing.T, lines []string, name string) []pathRow {
	t.Helper()
	start := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == "### "+name {
			start = i + 1
			break
		}
	}
	if start < 0 {
		t.Fatalf("no path %q (a heading \"### %s\")", name, name)
	}
	var rows []pathRow
	for i := start; i < len(lines) && !strings.HasPrefix(lines[i], "#"); i++ {
		cells := strings.Split(lines[i], "|")
		if len(cells) != 6 || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") || strings.TrimSpace(cells[1]) == "at" {
			continue
		}
		var mm, ss int
		if _, err := fmt.Sscanf(strings.TrimSpace(cells[1]), "%d:%d", &mm, &ss); err != nil {
			t.Fatalf("line %d: time %q is not mm:ss", i+1, cells[1])
		}
		say := strings.Trim(strings.TrimSpace(cells[2]), "“”\"")
		if say == "—" {
			say = ""
		} else if len(ParseActions(say)) == 0 {
			t.Errorf("line %d: %q does nothing the engine understands", i+1, say)
		}
		rows = append(rows, pathRow{line: i, at: float64(mm*60 + ss), say: say,
			state: strings.TrimSpace(cells[3]), news: strings.TrimSpace(cells[4])})
	}
	return rows
}

// minuteByMinute: a path shows the patient at least once a minute, from arrival to its end.
func minuteByMinute(t *testing.T, name string, rows []pathRow) {
	t.Helper()
	if rows[0].at != 0 {
		t.Errorf("%s starts at %s, want 00:00", name, SimTime(rows[0].at))
	}
	for i := 1; i < len(rows); i++ {
		if gap := rows[i].at - rows[i-1].at; gap > 60 {
			t.Errorf("%s: %s after %s, a gap of %s; want a row every minute", name, SimTime(rows[i].at), SimTime(rows[i-1].at), SimTime(gap))
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
func keepsWorsening(t *testing.T, rows []pathRow, plateau float64) {
	t.Helper()
	final := rows[len(rows)-1].state
	highest, rose := -1, 0.0
	for _, r := range rows {
		if r.state == final {
			return
		}
		var n int
		if _, err := fmt.Sscanf(r.news, "NEWS2 %d", &n); err != nil {
			t.Fatalf("%s: NEWS2 %q", SimTime(r.at), r.news)
		}
		switch {
		case n > highest:
			highest, rose = n, r.at
		case n < highest-1:
			t.Errorf("untreated at %s: NEWS2 %d fell below %d, the highest yet", SimTime(r.at), n, highest)
		case r.at-rose > plateau*60:
			t.Errorf("untreated at %s: NEWS2 level at %d since %s, longer than the review's %g minutes", SimTime(r.at), n, SimTime(rose), plateau)
			return
		}
	}
}
