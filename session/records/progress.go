package records

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session/aar"
	"github.com/ward-sim/ward/session/physio"
	"github.com/ward-sim/ward/session/scenario"
)

// ShiftResult is one shift a trainee played, as the engine's After Action Reviews score it.
type ShiftResult struct {
	Session  string          `json:"session"`
	Trainee  string          `json:"trainee"`
	Started  time.Time       `json:"started"`
	Shift    string          `json:"shift"` // the built-in shift or file it began with; "" for an empty roster
	Patients []PatientResult `json:"patients"`
}

// PatientResult is one patient's review in a shift.
type PatientResult struct {
	PatientID string `json:"patient_id"`
	// Attempted: the trainee did something for the patient (aar.Report.Attempted). A patient not
	// attempted counts in no score, error or critical action of the shift.
	Attempted      bool     `json:"attempted"`
	Scenario       string   `json:"scenario"`
	Score          int      `json:"score"`
	Max            int      `json:"max"`
	CriticalErrors []string `json:"critical_errors"`
	Critical       int      `json:"critical_actions"`
	Met            int      `json:"critical_actions_met"`
	// Missed are the critical actions (by id) not met, from which the next shift is suggested.
	Missed []string `json:"missed_critical_actions"`
	// ToCritical are the seconds after arrival at which each critical action done was first done.
	ToCritical []float64 `json:"seconds_to_critical_actions"`
	// Findings are what cost points, in words that compare across shifts (recurring.go).
	Findings []string `json:"findings"`
	// Team is how a resuscitation team worked on the patient; nil for a shift of one.
	Team *aar.TeamReview `json:"team,omitempty"`
	// The case's end: the last working diagnosis and its verdict ("" when none was given), where
	// the patient went and whether that was right, and the reflective answers against their
	// key points.
	Diagnosis        string                  `json:"diagnosis"`
	DiagnosisVerdict string                  `json:"diagnosis_verdict"`
	Disposition      string                  `json:"disposition"`
	DispositionRight bool                    `json:"disposition_right"`
	Reflections      []aar.ReflectionOutcome `json:"reflections"`
}

// ScorePercent is the mean score of the patients attempted as a percentage of the most they
// could score.
func (r ShiftResult) ScorePercent() int {
	got, most := 0, 0
	for _, p := range r.attempted() {
		got, most = got+p.Score, most+p.Max
	}
	if most == 0 {
		return 0
	}
	return (100*got + most/2) / most
}

// CriticalErrors counts the shift's critical errors.
func (r ShiftResult) CriticalErrors() int {
	n := 0
	for _, p := range r.attempted() {
		n += len(p.CriticalErrors)
	}
	return n
}

// attempted are the patients the trainee did something for.
func (r ShiftResult) attempted() []PatientResult {
	var out []PatientResult
	for _, p := range r.Patients {
		if p.Attempted {
			out = append(out, p)
		}
	}
	return out
}

// NotAttempted counts the patients the trainee never attended.
func (r ShiftResult) NotAttempted() int { return len(r.Patients) - len(r.attempted()) }

// CriticalActions counts the critical actions met and asked for.
func (r ShiftResult) CriticalActions() (met, total int) {
	for _, p := range r.attempted() {
		met, total = met+p.Met, total+p.Critical
	}
	return met, total
}

// Scenarios are the scenarios the shift's patients played, each once, in roster order: the
// shift column names only the roster it began with.
func (r ShiftResult) Scenarios() []string {
	var out []string
	for _, p := range r.Patients {
		if !slices.Contains(out, p.Scenario) {
			out = append(out, p.Scenario)
		}
	}
	return out
}

// ToCritical is the mean time from arrival to a critical action done; false when none was.
func (r ShiftResult) ToCritical() (float64, bool) {
	sum, n := 0.0, 0
	for _, p := range r.Patients {
		for _, at := range p.ToCritical {
			sum, n = sum+at, n+1
		}
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}

// Progress is one trainee's shifts, oldest first.
type Progress struct {
	Trainee string        `json:"trainee"`
	Shifts  []ShiftResult `json:"shifts"`
	// Open is the shift being played, whose scenarios the table does not name: the trainee is
	// still discovering its cases.
	Open string `json:"-"`
	// Curriculum is the cases of the class's curriculum, which the next shift is drawn from;
	// nil when the instructor set none (the whole library).
	Curriculum []string `json:"curriculum,omitempty"`
	// Next is the cases suggested for the next shift, and why (NextShift).
	Next []Suggestion `json:"next,omitempty"`
}

// ReadProgress reads the results of every shift of the trainee the store acts for that has a
// patient in it, and the class's curriculum; lib resolves the scenarios they ran.
func ReadProgress(store *persist.Store, lib *scenario.Library) (Progress, error) {
	p := Progress{Trainee: store.Person().Trainee, Shifts: []ShiftResult{}}
	sessions, err := store.Sessions()
	if err != nil {
		return p, err
	}
	if p.Curriculum, err = readCurriculum(store, lib); err != nil {
		return p, err
	}
	p.Shifts, err = shiftResults(store, lib, sessions)
	p.Offer(lib)
	return p, err
}

// readCurriculum is the cases of the curriculum the instructor set, nil when none.
func readCurriculum(store *persist.Store, lib *scenario.Library) ([]string, error) {
	entries, err := store.Curriculum()
	if err != nil || entries == nil {
		return nil, err
	}
	cases, err := lib.Curriculum(entries)
	if err != nil {
		return nil, fmt.Errorf("the class's curriculum: %w (ward curriculum set, or clear, changes it)", err)
	}
	return cases, nil
}

// Offer sets Next from the shifts played, the open one left out: its cases are still being
// discovered, so no reason may name them.
func (p *Progress) Offer(lib *scenario.Library) {
	p.Next = p.NextShift(lib)
}

// shiftResults reads the shifts among sessions that have a patient, oldest first.
func shiftResults(store *persist.Store, lib *scenario.Library, sessions []persist.SessionInfo) ([]ShiftResult, error) {
	out := []ShiftResult{}
	for _, info := range sessions {
		r, err := readShiftResult(store, lib, info)
		if err != nil {
			return out, fmt.Errorf("shift %s: %w", info.ID, err)
		}
		if len(r.Patients) > 0 {
			out = append(out, r)
		}
	}
	return out, nil
}

// readShiftResult reviews every patient of a shift as it ended.
func readShiftResult(store *persist.Store, lib *scenario.Library, info persist.SessionInfo) (ShiftResult, error) {
	r := ShiftResult{Session: info.ID, Trainee: info.Trainee, Started: info.CreatedAt, Shift: info.Shift, Patients: []PatientResult{}}
	w, err := endedWard(store, lib, info)
	if err != nil {
		return r, err
	}
	engines := w.Engines()
	said, err := histories(store, info.ID, engines)
	if err != nil {
		return r, err
	}
	for _, e := range engines {
		rep := aar.Of(e)
		WithTeam(&rep, said[e.PatientID()])
		r.Patients = append(r.Patients, patientResult(rep))
	}
	return r, nil
}

// histories are the stored conversations of the engines' patients (none for a patient only an
// archive holds), for a team's part of their review.
func histories(store *persist.Store, sessionID string, engines []*physio.Engine) (map[string][]memory.Message, error) {
	out := map[string][]memory.Message{}
	err := store.View(sessionID, func(tx *persist.Tx) error {
		for _, e := range engines {
			msgs, err := tx.History(e.PatientID())
			if err != nil {
				return err
			}
			out[e.PatientID()] = msgs
		}
		return nil
	})
	return out, err
}

// endedWard puts back the engines a shift ended with: its patients now or, when it was cleared
// last, those of its latest archive.
func endedWard(store *persist.Store, lib *scenario.Library, info persist.SessionInfo) (*physio.Ward, error) {
	docs := map[string]json.RawMessage{}
	err := store.View(info.ID, func(tx *persist.Tx) error {
		stored, err := tx.PatientDocs(persist.KindSim)
		for id, doc := range stored {
			docs[id] = doc
		}
		return err
	})
	restore := currentWard // the patients now, brought up to the shift's clock
	if err == nil && len(docs) == 0 {
		docs, err = lastArchivedSims(store, info.ID)
		restore = storedWard // an archive's, as its clear stored them
	}
	if err != nil {
		return nil, err
	}
	return restore(lib, info, docs)
}

func lastArchivedSims(store *persist.Store, sessionID string) (map[string]json.RawMessage, error) {
	sums, err := store.ArchiveSummaries(sessionID)
	if err != nil || len(sums) == 0 {
		return nil, err
	}
	a, err := store.ReadArchive(sessionID, sums[len(sums)-1].ID)
	return a.Sim, err
}

func patientResult(rep aar.Report) PatientResult {
	p := PatientResult{PatientID: rep.PatientID, Attempted: rep.Attempted, Scenario: rep.Scenario, Score: rep.Score.Total, Max: rep.Score.Max,
		CriticalErrors: []string{}, Critical: len(rep.CriticalActions), ToCritical: []float64{}, Findings: findings(rep), Missed: []string{},
		Team: rep.Team}
	for _, er := range rep.CriticalErrors {
		p.CriticalErrors = append(p.CriticalErrors, er.Description)
	}
	if n := len(rep.Diagnoses); n > 0 {
		p.Diagnosis, p.DiagnosisVerdict = rep.Diagnoses[n-1].Text, rep.Diagnoses[n-1].Verdict
	}
	if d := rep.Disposition; d != nil {
		p.Disposition, p.DispositionRight = d.Place, d.Accepted
	}
	p.Reflections = rep.Reflections
	for _, o := range rep.CriticalActions {
		if o.Met {
			p.Met++
		} else {
			p.Missed = append(p.Missed, o.ID)
		}
		if o.At != nil {
			p.ToCritical = append(p.ToCritical, *o.At)
		}
	}
	return p
}

// Table writes the progress as a table, then as charts of the score and of the time to
// critical actions, shift by shift.
func (p Progress) Table(w io.Writer) error {
	var b strings.Builder
	patients := 0
	for _, s := range p.Shifts {
		patients += len(s.Patients)
	}
	fmt.Fprintf(&b, "Progress of %s: %d shift(s), %d patient(s)\n", orAnyone(p.Trainee), len(p.Shifts), patients)
	if len(p.Shifts) == 0 {
		b.WriteString("No shift with a patient yet.\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	fmt.Fprintf(&b, "\n%3s  %-10s  %-12s  %8s  %5s  %6s  %8s  %11s  %s\n", "#", "date", "shift", "patients", "score", "errors", "critical", "to critical", "scenarios")
	for i, s := range p.Shifts {
		met, total := s.CriticalActions()
		fmt.Fprintf(&b, "%3d  %-10s  %-12s  %8d  %4d%%  %6d  %8s  %11s  %s\n", i+1, s.Started.Local().Format("2006-01-02"),
			cut(shiftName(s.Shift), 12), len(s.Patients), s.ScorePercent(), s.CriticalErrors(), fmt.Sprintf("%d/%d", met, total), toCritical(s),
			p.scenarios(s))
	}
	b.WriteString("errors: critical errors · critical: critical actions met of those asked for ·\n" +
		"to critical: mean time from a patient's arrival to a critical action\n")
	p.caseEnds(&b)
	p.nextShift(&b)
	b.WriteString("\nScore, 0–100%\n")
	for i, s := range p.Shifts {
		fmt.Fprintf(&b, "%3d  %-*s %4d%%\n", i+1, chartWidth, bar(float64(s.ScorePercent()), 100), s.ScorePercent())
	}
	slowest := 0.0
	for _, s := range p.Shifts {
		if t, ok := s.ToCritical(); ok {
			slowest = max(slowest, t)
		}
	}
	b.WriteString("\nMean time to a critical action (shorter is better)\n")
	for i, s := range p.Shifts {
		t, _ := s.ToCritical()
		fmt.Fprintf(&b, "%3d  %-*s %s\n", i+1, chartWidth, bar(t, slowest), toCritical(s))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// nextShift writes the suggested next shift, a case a line with the reason it was chosen.
func (p Progress) nextShift(b *strings.Builder) {
	if len(p.Next) == 0 {
		return
	}
	from := ""
	if p.Curriculum != nil {
		from = ", from the class's curriculum"
	}
	fmt.Fprintf(b, "\nNext shift%s: ward --shift next (or ward run --shift next), or /admit ID N (N: a case's number in /scenarios)\n", from)
	for _, n := range p.Next {
		fmt.Fprintf(b, "  %2d  %s — %s.\n", n.Number, n.Scenario, n.Reason)
	}
}

// scenarios names a shift's scenarios, unless it is the one being played.
func (p Progress) scenarios(s ShiftResult) string {
	if s.Session == p.Open {
		return "(being played)"
	}
	return strings.Join(s.Scenarios(), ", ")
}

// chartWidth is a full bar, in cells.
const chartWidth = 40

// bar draws v out of full in eighths of a cell.
func bar(v, full float64) string {
	if full <= 0 || v <= 0 {
		return ""
	}
	eighths := int(v / full * chartWidth * 8)
	return strings.Repeat("█", eighths/8) + []string{"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"}[eighths%8]
}

func toCritical(s ShiftResult) string {
	if t, ok := s.ToCritical(); ok {
		return physio.SimTime(t)
	}
	return "none done"
}

func shiftName(shift string) string {
	if shift == "" {
		return "(own roster)"
	}
	return shift
}

func orAnyone(trainee string) string {
	if trainee == "" {
		return "every trainee"
	}
	return trainee
}

// cut shortens s to n runes, marking the cut.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
