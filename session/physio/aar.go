package physio

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	sc "github.com/ward-sim/ward/session/scenario"
)

// Report is the After Action Review of one patient, built from the engine's record alone.
// Times are seconds since the patient arrived (Elapsed) alongside ward time (T).
type Report struct {
	PatientID    string  `json:"patient_id"`
	Scenario     string  `json:"scenario"`
	Title        string  `json:"title"`
	Presentation string  `json:"presentation"`
	Patient      string  `json:"patient"`
	Arrived      float64 `json:"arrived"`  // ward time of arrival
	Duration     float64 `json:"duration"` // seconds since arrival
	FinalState   string  `json:"final_state"`
	// NEWS2AtArrival is the first measured score and NEWS2Now the last: what the trainee could
	// see, so the review and the screen agree. Nil until something was measured.
	NEWS2AtArrival *ScoreAt `json:"news2_at_arrival"`
	NEWS2Now       *ScoreAt `json:"news2_now"`
	// Trajectory is the stretch of the case the NEWS2 trajectory is judged on (trajectory.go).
	Trajectory      Trajectory        `json:"trajectory"`
	Timeline        []TimelineEntry   `json:"timeline"`
	CriticalActions []CriticalOutcome `json:"critical_actions"`
	CriticalErrors  []ErrorRecord     `json:"critical_errors"`
	SafetyWarnings  []SafetyRecord    `json:"safety_warnings"`
	// How the trainee answered the ward: alarms and escalations with their review times, the
	// orders the Pharmacist stopped, and the doses given outside the usual range.
	Alerts     []AlertOutcome `json:"alerts"`
	NearMisses []OrderRecord  `json:"near_misses"`
	OutOfRange []OrderRecord  `json:"doses_out_of_range"`
	// Debrief is every teaching point, most serious first: critical errors, missed critical
	// actions, near misses, then what went well and what to change.
	Debrief []Point `json:"debrief"`
	// The case's end: the working diagnoses the trainee committed to (the last stands), the key's
	// diagnosis and what the findings pointed to it by; the disposition and the key's places and
	// reason; the reflective answers compared with their key points.
	Diagnoses         []DiagnosisRecord   `json:"diagnoses"`
	CaseDiagnosis     string              `json:"case_diagnosis,omitempty"`
	Pointers          []string            `json:"pointers,omitempty"`
	Disposition       *DispositionRecord  `json:"disposition,omitempty"`
	CaseDisposition   []string            `json:"case_disposition,omitempty"`
	DispositionReason string              `json:"disposition_reason,omitempty"`
	Reflections       []ReflectionOutcome `json:"reflections"`
	Score             Score               `json:"score"`
	// JudgedOn is what the case's score weighs (its critical actions, weighted items and parts).
	JudgedOn   []string `json:"judged_on"`
	Objectives []string `json:"learning_objectives"`
	// Arrest reviews a cardiac arrest against the ALS algorithm, cycle by cycle; nil if none.
	Arrest *ArrestReview `json:"arrest,omitempty"`
}

// ScoreAt is a measured NEWS2 and when it was measured.
type ScoreAt struct {
	Elapsed float64 `json:"elapsed"`
	NEWS2Score
	Text string `json:"text"` // "NEWS2 4 low-medium"
}

// TimelineEntry is one line of the timeline.
type TimelineEntry struct {
	T       float64 `json:"t"`
	Elapsed float64 `json:"elapsed"`
	Kind    string  `json:"kind"` // arrival, action, order, safety, critical_error, vitals, state
	Text    string  `json:"text"`
}

// CriticalOutcome says whether a critical action was done in time.
type CriticalOutcome struct {
	ID          string `json:"id"`
	Description string `json:"description"`
	Rule        string `json:"rule"`
	Met         bool   `json:"met"`
	Done        bool   `json:"done"`
	// Moot: an item whose condition never occurred does not apply (to be done before another that
	// never happened, or in states the patient never reached); it scores its points and is neither
	// praised nor faulted. MootWhy says why.
	Moot    bool     `json:"moot,omitempty"`
	MootWhy string   `json:"moot_why,omitempty"`
	At      *float64 `json:"at,omitempty"` // elapsed seconds when first done
	Points  int      `json:"points"`       // its weight in the score

	match sc.Match
}

// Score is out of Max: the sum of its parts (the actions, the diagnosis, the disposition, each
// weighted as the scenario says), with the items that make up the actions' part.
type Score struct {
	Total     int         `json:"total"`
	Max       int         `json:"max"`
	Parts     []ScorePart `json:"parts"`
	Breakdown []ScoreLine `json:"breakdown"` // the actions' items, out of ScoreMax before weighting
}

// ScorePart is one weighted part of the score and why it scored what it did.
type ScorePart struct {
	Name   string `json:"name"`
	Points int    `json:"points"`
	Max    int    `json:"max"`
	Why    string `json:"why"`
}

// ScoreLine is one component of the score and why it scored what it did; penalties are
// negative and have no Max.
type ScoreLine struct {
	Item   string `json:"item"`
	Points int    `json:"points"`
	Max    int    `json:"max"`
	Why    string `json:"why"`
	// NotApplicable: an item whose condition never occurred; the actions' part is scored out of
	// the items that applied, so it neither adds nor takes away.
	NotApplicable bool `json:"not_applicable,omitempty"`
}

// Report builds the After Action Review from everything the engine recorded.
func (e *Engine) Report() Report {
	s := e.sc
	d := s.Demographics
	r := Report{
		PatientID: e.s.PatientID, Scenario: s.ID, Title: s.Title, Presentation: s.Presentation,
		Patient: fmt.Sprintf("%s, %d %s", d.Name, d.Age, d.Sex),
		Arrived: float64(e.s.Admitted), Duration: e.Elapsed(), FinalState: e.s.State,
		CriticalErrors: e.s.Errors, Objectives: s.LearningObjectives,
	}
	if n := len(e.s.Readings); n > 0 {
		r.NEWS2AtArrival, r.NEWS2Now = e.scoreAt(e.s.Readings[0]), e.scoreAt(e.s.Readings[n-1])
	}
	for _, f := range e.s.Safety {
		if f.Level == sc.Warn {
			r.SafetyWarnings = append(r.SafetyWarnings, f)
		}
	}
	r.Alerts = e.alertOutcomes()
	r.NearMisses, r.OutOfRange = e.nearMissesAndOutOfRange()
	r.Trajectory = e.trajectory()
	r.Timeline = e.timeline()
	r.CriticalActions = e.criticalOutcomes()
	r.Arrest = e.arrestReview()
	e.caseEnd(&r)
	r.Score, r.JudgedOn = e.score(r), e.judgedOn()
	r.Debrief = e.debrief(r)
	return r
}

func (e *Engine) scoreAt(rd Reading) *ScoreAt {
	n := rd.Score()
	return &ScoreAt{Elapsed: e.since(rd.T), NEWS2Score: n, Text: n.String()}
}

func (e *Engine) since(t float64) float64 { return t - float64(e.s.Admitted) }

func (e *Engine) timeline() []TimelineEntry {
	type ranked struct {
		TimelineEntry
		rank int
	}
	var all []ranked
	add := func(t float64, rank int, kind, text string) {
		all = append(all, ranked{TimelineEntry{t, e.since(t), kind, text}, rank})
	}
	for _, c := range e.s.States {
		if c.From == "" {
			add(c.T, 0, "arrival", fmt.Sprintf("arrived in state %s", c.To))
		} else {
			add(c.T, 5, "state", c.causeText())
		}
	}
	for _, a := range e.s.Actions {
		text := a.String()
		if res, ok := e.ResultOf(a); ok && a.Kind != sc.KindGlucoseCheck { // a glucose check says its value itself
			text += " → " + res.Value
		}
		add(a.T, 1, "action", text)
	}
	for _, o := range e.s.Orders {
		if !o.Given {
			add(o.T, 1, "order", fmt.Sprintf("not given: %s — %s", o.Text(), o.Reason()))
		}
	}
	for _, f := range e.s.Safety {
		add(f.T, 2, "safety", f.timelineText())
	}
	for _, er := range e.s.Errors {
		add(er.T, 3, "critical_error", "CRITICAL ERROR: "+er.Description)
	}
	for _, rd := range e.s.Readings {
		add(rd.T, 4, "vitals", rd.String())
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].T != all[j].T {
			return all[i].T < all[j].T
		}
		return all[i].rank < all[j].rank
	})
	out := make([]TimelineEntry, len(all))
	for i, x := range all {
		out[i] = x.TimelineEntry
	}
	return out
}

func (e *Engine) criticalOutcomes() []CriticalOutcome {
	first := map[string]int{} // critical action id → index of first matching action
	for _, ca := range e.sc.CriticalActions {
		first[ca.ID] = slices.IndexFunc(e.s.Actions, func(a ActionRecord) bool {
			return matches(ca.Match, a.Action) && (len(ca.States) == 0 || ca.States.Has(e.stateAt(a.T).Name()))
		})
	}
	var out []CriticalOutcome
	for _, ca := range e.sc.CriticalActions {
		o := CriticalOutcome{ID: ca.ID, Description: ca.Description, Points: ca.Points, match: ca.Match}
		from := float64(e.s.Admitted)
		if len(ca.States) > 0 {
			entered, ok := e.firstIn(ca.States)
			if !ok {
				o.Rule, o.Moot, o.Met = "in "+strings.Join(ca.States, " or "), true, true
				o.MootWhy = "the patient never reached " + strings.Join(ca.States, " or ")
				out = append(out, o)
				continue
			}
			from = entered
		}
		i := first[ca.ID]
		if i >= 0 {
			at := e.since(e.s.Actions[i].T)
			o.Done, o.At = true, &at
		}
		if ca.Before != "" {
			o.Rule = "before " + ca.Before
			o.Moot = first[ca.Before] < 0
			o.Met = o.Moot || o.Done && i < first[ca.Before]
			if o.Moot {
				o.MootWhy = ca.Before + " was not done"
			}
		} else {
			o.Rule = "within " + SimTime(float64(ca.Within))
			if len(ca.States) > 0 {
				o.Rule += " of " + strings.Join(ca.States, " or ")
			}
			o.Met = o.Done && e.s.Actions[i].T-from <= float64(ca.Within)
		}
		out = append(out, o)
	}
	return out
}

// firstIn is the ward time the patient first entered one of states.
func (e *Engine) firstIn(states sc.Names) (float64, bool) {
	for _, c := range e.s.States {
		if states.Has(c.To) {
			return c.T, true
		}
	}
	return 0, false
}

// SimTime formats sim seconds as mm:ss (or h:mm:ss), as the review, the prompts and the notes
// show times.
func SimTime(sec float64) string {
	s := int(sec)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s%3600/60, s%60)
	}
	return fmt.Sprintf("%02d:%02d", s/60, s%60)
}

// String is the action as the review, memory and the prompts write it: "oxygen nrb 15 L/min",
// "medication glucose 150 mL of 10% IV" (a dose as the trainee wrote it).
func (a ActionRecord) String() string {
	parts := []string{strings.ReplaceAll(string(a.Kind), "_", " ")}
	add := func(ok bool, format string, v any) {
		if ok {
			parts = append(parts, fmt.Sprintf(format, v))
		}
	}
	add(a.Drug != "", "%s", sc.DrugLabel(a.Drug))
	add(a.Drug != "" && !a.WrittenDose().IsZero(), "%s", a.WrittenDose())
	add(a.Route != "", "%s", a.Route)
	add(a.Device != "", "%s", a.Device)
	add(a.FlowLPM > 0, "%g L/min", a.FlowLPM)
	add(a.FiO2 > 0, "%g %%", a.FiO2)
	add(a.Drug == "" && a.VolumeML > 0, "%g mL", a.VolumeML)
	add(a.Topic != "", "about %s", strings.ReplaceAll(a.Topic, "_", " "))
	add(a.Test != "", "%s", sc.Tests[a.Test])
	add(a.Position != "", "%s", a.Position)
	add(a.Kind == sc.KindGlucoseCheck, "→ %g mmol/L", a.Glucose)
	add(a.EnergyJ > 0, "%g J", a.EnergyJ)
	add(a.Rate > 0, "at %d/min", a.Rate)
	add(a.Quality != "", "(%s)", a.Quality)
	add(a.Rhythm != "", "%q", a.Rhythm)
	add(a.Cause != "", "%s", strings.ReplaceAll(a.Cause, "_", " "))
	return strings.Join(parts, " ")
}

// String is the reading as the review and the prompts write it, with its NEWS2.
func (r Reading) String() string {
	air := "air"
	if r.OnOxygen {
		air = "O2"
	}
	s := fmt.Sprintf("HR %d, RR %d, SpO2 %d%% (%s), BP %d/%d, T %.1f, GCS %d (%s)",
		r.HR, r.RR, r.SpO2, air, r.SBP, r.DBP, r.TempC, r.GCS, r.AVPU)
	if r.NoOutput {
		s = fmt.Sprintf("no pulse, BP unrecordable, no SpO2 trace (%s), RR %d, T %.1f, GCS %d (%s)", air, r.RR, r.TempC, r.GCS, r.AVPU)
	}
	if r.EtCO2 > 0 {
		s += fmt.Sprintf(", EtCO2 %d", r.EtCO2)
	}
	return s + " — " + r.Score().String()
}
