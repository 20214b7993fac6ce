package physio

import (
	"fmt"
	"strings"

	"github.com/ward-sim/ward/session/action"
	sc "github.com/ward-sim/ward/session/scenario"
)

// ReviewPaths are the paths every scenario's review (builtin/ID.review.md) plays: what happens
// untreated, treated well and mistreated.
var ReviewPaths = []string{"Untreated", "Treated well", "Mistreated"}

// ReviewSeed is the seed a review's paths are played with.
const ReviewSeed = 42

// ReviewRow is one row of a review's path table: at a time since arrival the trainee says
// something (or nothing), and then the patient is in a state with a NEWS2.
type ReviewRow struct {
	Line  int // index in the review's lines
	At    float64
	Say   string
	State string
	NEWS2 string
}

// ReviewPath is one path of a review: its name and its rows.
type ReviewPath struct {
	Name string
	Rows []ReviewRow
}

// ParseReview reads the path tables of a review: each ReviewPaths heading "### name" and the
// table under it, | at | the trainee | state | NEWS2 |, with times as mm:ss and "—" for saying
// nothing. Every path must be there with at least two rows, and every line said must be one
// the action parser understands.
func ParseReview(text string) ([]ReviewPath, []error) {
	lines := strings.Split(text, "\n")
	var paths []ReviewPath
	var errs []error
	for _, name := range ReviewPaths {
		rows, err := pathRows(lines, name)
		errs = append(errs, err...)
		if len(rows) < 2 && len(err) == 0 {
			errs = append(errs, fmt.Errorf("path %q has %d rows, want at least 2", name, len(rows)))
		}
		paths = append(paths, ReviewPath{Name: name, Rows: rows})
	}
	return paths, errs
}

// pathRows reads the table under the heading "### name".
func pathRows(lines []string, name string) ([]ReviewRow, []error) {
	start := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == "### "+name {
			start = i + 1
			break
		}
	}
	if start < 0 {
		return nil, []error{fmt.Errorf("no path %q (a heading \"### %s\")", name, name)}
	}
	var rows []ReviewRow
	var errs []error
	for i := start; i < len(lines) && !strings.HasPrefix(lines[i], "#"); i++ {
		cells := strings.Split(lines[i], "|")
		if len(cells) != 6 || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") || strings.TrimSpace(cells[1]) == "at" {
			continue
		}
		var mm, ss int
		if _, err := fmt.Sscanf(strings.TrimSpace(cells[1]), "%d:%d", &mm, &ss); err != nil || mm < 0 || ss < 0 || ss > 59 {
			errs = append(errs, fmt.Errorf("line %d: time %q is not mm:ss", i+1, strings.TrimSpace(cells[1])))
			continue
		}
		say := strings.Trim(strings.TrimSpace(cells[2]), "“”\"")
		if say == "—" {
			say = ""
		} else if len(action.Parse(say)) == 0 {
			errs = append(errs, fmt.Errorf("line %d: %q does nothing the engine understands", i+1, say))
		}
		at := float64(mm*60 + ss)
		if n := len(rows); n > 0 && at < rows[n-1].At {
			errs = append(errs, fmt.Errorf("line %d: %s comes before the row above it", i+1, SimTime(at)))
			continue
		}
		rows = append(rows, ReviewRow{Line: i, At: at, Say: say, State: strings.TrimSpace(cells[3]), NEWS2: strings.TrimSpace(cells[4])})
	}
	return rows, errs
}

// Step is one moment of a played path: a row of the review (Row set) or a whole minute between
// rows, with the state and true NEWS2 the engine was in then.
type Step struct {
	At    float64
	Row   *ReviewRow
	State string
	NEWS2 string
}

// PlayPath plays a path through the action parser and the engine (seed ReviewSeed): at each
// row's time the line said is applied. With everyMinute, the steps include each whole minute
// between rows, which changes nothing of the course, since the engine steps in whole seconds
// however its caller slices time.
func PlayPath(s *sc.Scenario, p ReviewPath, everyMinute bool) ([]Step, *Engine) {
	e := NewEngine("patient_1", s, ReviewSeed, 0)
	var steps []Step
	at := func(t float64, row *ReviewRow) {
		e.AdvanceTo(t, nil)
		if row != nil {
			for _, a := range action.Parse(row.Say) {
				e.Apply(a)
			}
		}
		steps = append(steps, Step{At: t, Row: row, State: e.State(), NEWS2: e.TrueNEWS2().String()})
	}
	last := -1.0
	for i := range p.Rows {
		r := &p.Rows[i]
		for m := (int(last)/60 + 1) * 60; everyMinute && float64(m) < r.At; m += 60 {
			at(float64(m), nil)
		}
		at(r.At, r)
		last = r.At
	}
	return steps, e
}
