package records

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session/scenario"
)

// ClassReport is every trainee's progress, for the instructor: `ward report`.
type ClassReport struct {
	Trainees []TraineeReport `json:"trainees"`
}

// TraineeReport is one trainee's shifts and what recurs across their last ones.
type TraineeReport struct {
	Progress
	Recurring []string `json:"recurring"`
}

// ReadClassReport reads the shifts of every trainee the store can open, grouped by trainee in
// the order of their first shift.
func ReadClassReport(store *persist.Store, lib *scenario.Library) (ClassReport, error) {
	var c ClassReport
	sessions, err := store.Sessions()
	if err != nil {
		return c, err
	}
	results, err := shiftResults(store, lib, sessions)
	if err != nil {
		return c, err
	}
	at := map[string]int{}
	for _, r := range results {
		i, ok := at[r.Trainee]
		if !ok {
			i = len(c.Trainees)
			at[r.Trainee] = i
			c.Trainees = append(c.Trainees, TraineeReport{Progress: Progress{Trainee: r.Trainee}})
		}
		c.Trainees[i].Shifts = append(c.Trainees[i].Shifts, r)
	}
	for i, t := range c.Trainees {
		c.Trainees[i].Recurring = recurringIn(t.Shifts[max(len(t.Shifts)-recentShifts, 0):])
	}
	return c, nil
}

// Markdown is the report as a summary table, then each trainee's shifts.
func (c ClassReport) Markdown() string {
	var b strings.Builder
	b.WriteString("# Class report\n\n")
	if len(c.Trainees) == 0 {
		b.WriteString("No trainee has played a shift with a patient yet.\n")
		return b.String()
	}
	b.WriteString("| trainee | shifts | patients | mean score | last score | critical errors | critical actions met | mean time to critical |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, t := range c.Trainees {
		var all ShiftResult
		score := 0
		for _, s := range t.Shifts {
			all.Patients = append(all.Patients, s.Patients...)
			score += s.ScorePercent()
		}
		met, total := all.CriticalActions()
		fmt.Fprintf(&b, "| %s | %d | %d | %d%% | %d%% | %d | %d/%d | %s |\n", mdCell(orAnyone(t.Trainee)), len(t.Shifts), len(all.Patients),
			score/len(t.Shifts), t.Shifts[len(t.Shifts)-1].ScorePercent(), all.CriticalErrors(), met, total, toCritical(all))
	}
	for _, t := range c.Trainees {
		fmt.Fprintf(&b, "\n## %s\n\n", mdCell(orAnyone(t.Trainee)))
		b.WriteString("| # | started | shift | patients | score | critical errors | critical actions met | mean time to critical | scenarios |\n")
		b.WriteString("| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |\n")
		for i, s := range t.Shifts {
			met, total := s.CriticalActions()
			fmt.Fprintf(&b, "| %d | %s | %s | %s | %d%% | %d | %d/%d | %s | %s |\n", i+1, s.Started.Local().Format("2006-01-02 15:04"),
				mdCell(shiftName(s.Shift)), patientsCell(s), s.ScorePercent(), s.CriticalErrors(), met, total, toCritical(s),
				mdCell(strings.Join(s.Scenarios(), ", ")))
		}
		caseEndsMarkdown(&b, t.Shifts)
		teamsMarkdown(&b, t.Shifts)
		if len(t.Recurring) > 0 {
			b.WriteString("\nRecurring across the last shifts:\n\n")
			for _, f := range t.Recurring {
				b.WriteString("- " + mdCell(f) + "\n")
			}
		}
	}
	return b.String()
}

// patientsCell counts a shift's patients, and says how many the trainee never attended, whom
// no score counts.
func patientsCell(s ShiftResult) string {
	if n := s.NotAttempted(); n > 0 {
		return fmt.Sprintf("%d (%d not attempted)", len(s.Patients), n)
	}
	return strconv.Itoa(len(s.Patients))
}

func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// CSV writes one row per shift, for a spreadsheet.
func (c ClassReport) CSV(w io.Writer) error {
	out := csv.NewWriter(w)
	_ = out.Write([]string{"trainee", "session", "started", "shift", "patients", "score_percent", "critical_errors",
		"critical_actions_met", "critical_actions", "mean_seconds_to_critical", "scenarios", "diagnoses_right", "dispositions_right"})
	for _, t := range c.Trainees {
		for _, s := range t.Shifts {
			met, total := s.CriticalActions()
			mean := ""
			if at, ok := s.ToCritical(); ok {
				mean = strconv.FormatFloat(at, 'f', 0, 64)
			}
			_ = out.Write([]string{csvCell(t.Trainee), s.Session, s.Started.UTC().Format("2006-01-02T15:04:05Z"), csvCell(s.Shift),
				strconv.Itoa(len(s.Patients)), strconv.Itoa(s.ScorePercent()), strconv.Itoa(s.CriticalErrors()),
				strconv.Itoa(met), strconv.Itoa(total), mean, csvCell(strings.Join(s.Scenarios(), ", ")),
				strconv.Itoa(s.DiagnosesRight()), strconv.Itoa(s.DispositionsRight())})
		}
	}
	out.Flush()
	return out.Error()
}

// csvCell keeps a spreadsheet from reading a name as a formula.
func csvCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@", rune(s[0])) {
		return "'" + s
	}
	return s
}
