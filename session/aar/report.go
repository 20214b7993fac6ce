package aar

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ward-sim/ward/session/physio"
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
	// Attempted: the trainee did something for the patient (an action, an order, a diagnosis, a
	// reflection, a disposition of their own). A patient never attended is not attempted, in ADL's
	// sense: the report and the xAPI export leave them out, and nothing of theirs is failed.
	Attempted bool `json:"attempted"`
	// NEWS2AtArrival is the first measured score and NEWS2Now the last: what the trainee could
	// see, so the review and the screen agree. Nil until something was measured.
	NEWS2AtArrival *ScoreAt `json:"news2_at_arrival"`
	NEWS2Now       *ScoreAt `json:"news2_now"`
	// Trajectory is the stretch of the case the NEWS2 trajectory is judged on (trajectory.go).
	Trajectory      Trajectory            `json:"trajectory"`
	Timeline        []TimelineEntry       `json:"timeline"`
	CriticalActions []CriticalOutcome     `json:"critical_actions"`
	CriticalErrors  []physio.ErrorRecord  `json:"critical_errors"`
	SafetyWarnings  []physio.SafetyRecord `json:"safety_warnings"`
	// How the trainee answered the ward: alarms and escalations with their review times, the
	// orders the Pharmacist stopped, and the doses given outside the usual range.
	Alerts     []AlertOutcome       `json:"alerts"`
	NearMisses []physio.OrderRecord `json:"near_misses"`
	OutOfRange []physio.OrderRecord `json:"doses_out_of_range"`
	// Debrief is every teaching point, most serious first: critical errors, missed critical
	// actions, near misses, then what went well and what to change.
	Debrief []Point `json:"debrief"`
	// The case's end: the working diagnoses the trainee committed to (the last stands), the key's
	// diagnosis and what the findings pointed to it by; the disposition and the key's places and
	// reason; the reflective answers compared with their key points.
	Diagnoses         []physio.DiagnosisRecord  `json:"diagnoses"`
	CaseDiagnosis     string                    `json:"case_diagnosis,omitempty"`
	Pointers          []string                  `json:"pointers,omitempty"`
	Disposition       *physio.DispositionRecord `json:"disposition,omitempty"`
	CaseDisposition   []string                  `json:"case_disposition,omitempty"`
	DispositionReason string                    `json:"disposition_reason,omitempty"`
	Reflections       []ReflectionOutcome       `json:"reflections"`
	Score             Score                     `json:"score"`
	// JudgedOn is what the case's score weighs (its critical actions, weighted items and parts).
	JudgedOn   []string `json:"judged_on"`
	Objectives []string `json:"learning_objectives"`
	// Arrest reviews a cardiac arrest against the ALS algorithm, cycle by cycle; nil if none.
	Arrest *ArrestReview `json:"arrest,omitempty"`
	// Team reviews a resuscitation team's orders and members (team.go); nil for a shift of one.
	Team *TeamReview `json:"team,omitempty"`
}

// ScoreAt is a measured NEWS2 and when it was measured.
type ScoreAt struct {
	Elapsed float64 `json:"elapsed"`
	physio.NEWS2Score
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
	// never happened, or in states the patient never reached); it is neither praised nor faulted,
	// and the actions' part is scored without it. MootWhy says why.
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

// Of builds the After Action Review from everything the engine recorded.
func Of(e *physio.Engine) Report {
	s := e.Scenario()
	d := s.Demographics
	r := Report{
		PatientID: e.PatientID(), Scenario: s.ID, Title: s.Title, Presentation: s.Presentation,
		Patient: fmt.Sprintf("%s, %d %s", d.Name, d.Age, d.Sex),
		Arrived: float64(e.Admitted()), Duration: e.Elapsed(), FinalState: e.State(),
		CriticalErrors: e.CriticalErrors(), Objectives: s.LearningObjectives,
	}
	if n := len(e.Readings()); n > 0 {
		r.NEWS2AtArrival, r.NEWS2Now = scoreAt(e, e.Readings()[0]), scoreAt(e, e.Readings()[n-1])
	}
	for _, f := range e.SafetyRecords() {
		if f.Level == sc.Warn {
			r.SafetyWarnings = append(r.SafetyWarnings, f)
		}
	}
	r.Alerts = alertOutcomes(e)
	r.NearMisses, r.OutOfRange = nearMissesAndOutOfRange(e)
	r.Attempted = attempted(e)
	r.Trajectory = trajectory(e)
	r.Timeline = timeline(e)
	r.CriticalActions = criticalOutcomes(e)
	r.Arrest = arrestReview(e)
	caseEnd(e, &r)
	r.Score, r.JudgedOn = score(e, r), judgedOn(e)
	r.Debrief = debrief(e, r)
	return r
}

func scoreAt(e *physio.Engine, rd physio.Reading) *ScoreAt {
	n := rd.Score()
	return &ScoreAt{Elapsed: since(e, rd.T), NEWS2Score: n, Text: n.String()}
}

func since(e *physio.Engine, t float64) float64 { return t - float64(e.Admitted()) }

func timeline(e *physio.Engine) []TimelineEntry {
	type ranked struct {
		TimelineEntry
		rank int
	}
	var all []ranked
	add := func(t float64, rank int, kind, text string) {
		all = append(all, ranked{TimelineEntry{t, since(e, t), kind, text}, rank})
	}
	for _, c := range e.StateChanges() {
		if c.From == "" {
			add(c.T, 0, "arrival", fmt.Sprintf("arrived in state %s", c.To))
		} else {
			add(c.T, 5, "state", c.Text())
		}
	}
	for _, a := range e.Actions() {
		text := a.String()
		if res, ok := e.ResultOf(a); ok && a.Kind != sc.KindGlucoseCheck { // a glucose check says its value itself
			text += " → " + res.Value
		}
		add(a.T, 1, "action", text)
	}
	for _, o := range e.Orders() {
		if !o.Given {
			add(o.T, 1, "order", fmt.Sprintf("not given: %s — %s", o.Text(), o.Reason()))
		}
	}
	for _, f := range e.SafetyRecords() {
		add(f.T, 2, "safety", f.TimelineText())
	}
	for _, er := range e.CriticalErrors() {
		add(er.T, 3, "critical_error", "CRITICAL ERROR: "+er.Description)
	}
	for _, rd := range e.Readings() {
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

func criticalOutcomes(e *physio.Engine) []CriticalOutcome {
	actions := e.Actions()
	first := map[string]int{} // critical action id → index of first matching action
	for _, ca := range e.Scenario().CriticalActions {
		first[ca.ID] = slices.IndexFunc(actions, func(a physio.ActionRecord) bool {
			return !a.WrongSide && physio.Matches(ca.Match, a.Action) && (len(ca.States) == 0 || ca.States.Has(e.StateAt(a.T).Name()))
		})
	}
	var out []CriticalOutcome
	for _, ca := range e.Scenario().CriticalActions {
		o := CriticalOutcome{ID: ca.ID, Description: ca.Description, Points: ca.Points, match: ca.Match}
		from := e.Admitted()
		if len(ca.States) > 0 {
			entered, ok := firstIn(e, ca.States)
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
			at := since(e, actions[i].T)
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
			o.Rule = "within " + physio.SimTime(float64(ca.Within))
			if len(ca.States) > 0 {
				o.Rule += " of " + strings.Join(ca.States, " or ")
			}
			o.Met = o.Done && actions[i].T-from <= float64(ca.Within)
			if ended, early := endedBefore(e, from, ca.Within); !o.Done && early {
				o.Moot, o.Met = true, true
				o.MootWhy = fmt.Sprintf("the instructor ended the case at %s, before its window closed", physio.SimTime(since(e, ended)))
			}
		}
		out = append(out, o)
	}
	return out
}

// attempted reports whether the trainee did anything for the patient: the engine records every
// action, order, diagnosis and reflection; a disposition counts unless the instructor ended the
// case.
func attempted(e *physio.Engine) bool {
	d, disposed := e.Disposition()
	return len(e.Actions()) > 0 || len(e.Orders()) > 0 || len(e.Diagnoses()) > 0 || len(e.Reflections()) > 0 ||
		disposed && d.Place != physio.PlaceEnded
}

// endedBefore reports, for a case the instructor ended, whether it ended before a critical
// action's window closed: from is when the window opened.
func endedBefore(e *physio.Engine, from float64, within sc.Seconds) (float64, bool) {
	d, disposed := e.Disposition()
	if !disposed || d.Place != physio.PlaceEnded {
		return 0, false
	}
	return d.T, d.T-from < float64(within)
}

// firstIn is the ward time the patient first entered one of states.
func firstIn(e *physio.Engine, states sc.Names) (float64, bool) {
	for _, c := range e.StateChanges() {
		if states.Has(c.To) {
			return c.T, true
		}
	}
	return 0, false
}
