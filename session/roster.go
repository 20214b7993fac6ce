package session

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/ward-sim/ward/agents/analyzer"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session/physio"
	sc "github.com/ward-sim/ward/session/scenario"
)

// summary is what the roster shows of a patient: the state, the last two measured NEWS2 and the
// most urgent alarm or escalation waiting on them. It is kept in the registry's facts, so a
// resumed shift draws its roster without decoding any patient, and the roster tells what is known
// even of a patient nobody has looked at since, alarms included.
type summary struct {
	State   string
	Known   bool // a reading was scored
	NEWS2   int
	Band    string
	Scale   int     // the SpO2 scale it was scored on; 0 in a summary stored before scales
	At      float64 // sim seconds of the last reading
	HasPrev bool
	Prev    int // the reading's before it
	// Alert is the level of the most urgent open alarm or escalation ("" for none), AlertText
	// what the monitor or nurse said, AlertAt when it was raised.
	Alert     string
	AlertText string
	AlertAt   float64
	// Disposition is where the patient went when the case ended ("" while it goes on).
	Disposition string
}

// Keys of the summary in a registry entry's facts.
const (
	factState     = "state"
	factNEWS2     = "news2"
	factBand      = "news2_band"
	factNEWS2At   = "news2_at"
	factNEWS2Prev = "news2_prev"
	factScale     = "news2_scale"
	factAlert     = "alert"
	factAlertText = "alert_text"
	factAlertAt   = "alert_at"
	factDispo     = "disposition"
)

func summaryOf(e *physio.Engine) summary {
	sm := summary{State: e.State()}
	readings := e.Readings()
	if n := len(readings); n > 0 {
		last := readings[n-1]
		score := last.Score()
		sm.Known, sm.NEWS2, sm.Band, sm.Scale, sm.At = true, last.NEWS2, score.Band, score.Scale, last.T
		if prev, ok := physio.PreviousMoment(readings); ok {
			sm.HasPrev, sm.Prev = true, prev.NEWS2
		}
	}
	if d, ok := e.Disposition(); ok {
		sm.Disposition = d.Place
		return sm // a patient who has left the ward has no alarm waiting on the trainee
	}
	if a, ok := e.Waiting(); ok {
		sm.Alert, sm.AlertText, sm.AlertAt = a.Level, a.Text, a.Raised
	}
	return sm
}

// summaryFrom reads a summary back from facts, where numbers come back from JSON as float64.
func summaryFrom(facts map[string]any) summary {
	sm := summary{}
	sm.State, _ = facts[factState].(string)
	if v, ok := number(facts[factNEWS2]); ok {
		sm.Known, sm.NEWS2 = true, int(v)
	}
	sm.Band, _ = facts[factBand].(string)
	if v, ok := number(facts[factScale]); ok {
		sm.Scale = int(v)
	}
	sm.At, _ = number(facts[factNEWS2At])
	if v, ok := number(facts[factNEWS2Prev]); ok {
		sm.HasPrev, sm.Prev = true, int(v)
	}
	sm.Alert, _ = facts[factAlert].(string)
	sm.AlertText, _ = facts[factAlertText].(string)
	sm.AlertAt, _ = number(facts[factAlertAt])
	sm.Disposition, _ = facts[factDispo].(string)
	return sm
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	}
	return 0, false
}

// put writes the summary into facts. A value facts hold already, as put wrote it, is left as it
// is rather than boxed again: a monitor's reading moves little of a summary but its time.
func (sm summary) put(facts map[string]any) {
	setFact(facts, factState, sm.State)
	if sm.Known {
		setFact(facts, factNEWS2, sm.NEWS2)
		setFact(facts, factBand, sm.Band)
		setFact(facts, factScale, sm.Scale)
		setFact(facts, factNEWS2At, sm.At)
	} else {
		deleteFacts(facts, factNEWS2, factBand, factScale, factNEWS2At)
	}
	if sm.HasPrev {
		setFact(facts, factNEWS2Prev, sm.Prev)
	} else {
		delete(facts, factNEWS2Prev)
	}
	if sm.Alert != "" {
		setFact(facts, factAlert, sm.Alert)
		setFact(facts, factAlertText, sm.AlertText)
		setFact(facts, factAlertAt, sm.AlertAt)
	} else {
		deleteFacts(facts, factAlert, factAlertText, factAlertAt)
	}
	if sm.Disposition != "" {
		setFact(facts, factDispo, sm.Disposition)
	}
}

// setFact sets facts[key] to v unless it holds v already.
func setFact[T comparable](facts map[string]any, key string, v T) {
	if old, ok := facts[key].(T); !ok || old != v {
		facts[key] = v
	}
}

func deleteFacts(facts map[string]any, keys ...string) {
	for _, k := range keys {
		delete(facts, k)
	}
}

// Overdue reports whether the last reading is older, at clock, than the interval its NEWS2
// calls for: the roster's number may no longer be true.
func (sm summary) Overdue(clock float64) bool {
	return sm.Known && clock-sm.At > physio.ObsInterval(sm.NEWS2, sm.Band)
}

// registry is the settle stage's own state: the mirror of the stored registry (who is on the
// shift, who was active, the roster's summaries) and what is worked out from it once per change:
// the sorted roster, the patients as a trainee names them, the masker of their cases. It alone
// decides new versus existing (decide); the turn's commit writes it when it is unsaved.
type registry struct {
	persist.Registry
	roster []string           // the registry's patients, sorted
	named  []analyzer.Patient // the patients as a trainee names them; nil until needed after a change
	masker *caseMasker        // masks the roster's case terms; nil until needed after the roster changes
	// unsaved: the mirror holds what the store does not have yet (roster summaries, a switch),
	// for the next commit.
	unsaved bool
	lib     *sc.Library
	pattern *regexp.Regexp
}

// newRegistry is an empty registry stage for a shift configured by cfg; mirror fills it.
func newRegistry(cfg Config) registry { return registry{lib: cfg.Scenarios, pattern: cfg.Pattern} }

// has reports whether patient id is on the registry.
func (r *registry) has(id string) bool {
	_, ok := r.Patients[id]
	return ok
}

// rosterAnswer names every patient on the roster, as the trainee knows them and in order of
// arrival, and no other ID, not even an example: the registry, not the conversation, says who
// exists.
func (r *registry) rosterAnswer(active string) string {
	if len(r.roster) == 0 {
		return fmt.Sprintf("No patients on the roster yet. Start by naming one, with an ID that matches %s.", r.pattern)
	}
	var named []string
	says := "None is active."
	for _, p := range r.namedPatients() {
		if place := summaryFrom(r.Patients[p.ID].Facts).Disposition; place != "" {
			named = append(named, patientLabel(p)+" (gone to "+place+")")
			continue
		}
		named = append(named, patientLabel(p))
		if p.ID == active {
			says = patientLabel(p) + " is active."
		}
	}
	count := "1 patient"
	if len(named) > 1 {
		count = fmt.Sprintf("%d patients", len(named))
	}
	return fmt.Sprintf("%s on the roster, in order of arrival: %s. %s", count, strings.Join(named, ", "), says)
}

// Decision is what the session did with the patient context on one turn.
type Decision string

const (
	DecisionNone           Decision = "NONE"
	DecisionUnchanged      Decision = "UNCHANGED"
	DecisionNewBlank       Decision = "NEW_BLANK"
	DecisionSwitchExisting Decision = "SWITCH_EXISTING"
	DecisionClear          Decision = "CLEAR"
	DecisionRestored       Decision = "RESTORED_FROM_STORAGE"
	DecisionNeedsPatientID Decision = "NEEDS_PATIENT_ID"
)

// contextState is what the registry decision needs to know about the session right now.
type contextState struct {
	active   string
	restored bool // the active patient was revived from the registry this turn
	known    func(id string) bool
	pattern  *regexp.Regexp
}

// resolve turns the analyzer's proposal into a decision. The analyzer only proposes: the ID must
// match the pattern, and the registry alone decides whether it is a new patient or a switch.
func resolve(d analyzer.Decision, st contextState) (Decision, string) {
	switch d.Action {
	case analyzer.ActionClear:
		return DecisionClear, ""
	case analyzer.ActionActivateNew, analyzer.ActionSwitchExisting:
		id, ok := analyzer.NormalizeID(d.PatientID, st.pattern)
		switch {
		case !ok:
			return DecisionNeedsPatientID, ""
		case id == st.active:
			return keep(st), id
		case st.known(id):
			return DecisionSwitchExisting, id
		default:
			return DecisionNewBlank, id
		}
	case analyzer.ActionUnchanged:
		if st.active == "" {
			return DecisionNone, ""
		}
		return keep(st), st.active
	default:
		if st.restored {
			return DecisionRestored, st.active
		}
		return DecisionNone, st.active
	}
}

// resolve is the registry's decision on the analyzer's proposal, with active the patient the turn
// is with and restored whether they were revived from the registry this turn.
func (r *registry) resolve(d analyzer.Decision, active string, restored bool) (Decision, string) {
	return resolve(d, contextState{active: active, restored: restored, known: r.has, pattern: r.pattern})
}

// analyzerInput is what the analyzer reads of a line typed while active is the active patient:
// the roster, the patients as a trainee names them, the pattern of an ID.
func (r *registry) analyzerInput(text, active string) analyzer.AnalyzerInput {
	return analyzer.AnalyzerInput{Text: text, ActivePatient: active, Roster: r.roster, Patients: r.namedPatients(), Pattern: r.pattern}
}

// keep is the decision for a turn that stays with the active patient.
func keep(st contextState) Decision {
	if st.restored {
		return DecisionRestored
	}
	return DecisionUnchanged
}

// notAnID says why a line that asked for a patient found no one: what it meant as an ID is not
// one the pattern takes. "" when it named no ID.
func (r *registry) notAnID(d analyzer.Decision) string {
	meant := d.Invalid
	if meant == "" {
		meant = d.PatientID // a model's proposal that the pattern refused
	}
	if meant == "" {
		return ""
	}
	return fmt.Sprintf("%s is not a patient ID ward can use (IDs match %s), so no one was given that line. ", meant, r.pattern)
}

// namedPatients are the roster's patients as a trainee may call them, in order of arrival: the
// registry's name, sex and bed, and the patient's complaint. A model reads them, so nothing here
// names the case: not its identifier, title or diagnosis. They are worked out once a registry
// (every line the trainee types is analysed with them); callers read them, never change them.
func (r *registry) namedPatients() []analyzer.Patient {
	if r.named == nil {
		r.named = r.nameThePatients()
	}
	return r.named
}

func (r *registry) nameThePatients() []analyzer.Patient {
	ids := slices.Clone(r.roster)
	slices.SortStableFunc(ids, func(a, b string) int {
		return r.Patients[a].CreatedAt.Compare(r.Patients[b].CreatedAt)
	})
	out := make([]analyzer.Patient, len(ids))
	for i, id := range ids {
		f := r.Patients[id].Facts
		p := analyzer.Patient{ID: id}
		p.Name, _ = f["name"].(string)
		p.Sex, _ = f["sex"].(string)
		p.Bed, _ = f["bed"].(string)
		if sc, ok := r.lib.Get(scenarioOf(f)); ok {
			p.Condition = sc.ChiefComplaint // what the patient says: a model reads it
			p.Case = strings.ReplaceAll(sc.ID, "-", " ")
		}
		out[i] = p
	}
	return out
}

// whichPatient asks which of the candidates a reference meant, by title and bed, or for an ID
// when there are none.
func (r *registry) whichPatient(candidates []string) string {
	if len(candidates) == 0 {
		return r.needsIDMessage()
	}
	var named []string
	for _, p := range r.namedPatients() {
		if slices.Contains(candidates, p.ID) {
			named = append(named, patientLabel(p))
		}
	}
	last := len(named) - 1
	return "Which patient — " + strings.Join(named[:last], ", ") + " or " + named[last] + "?"
}

// patientLabel is how a question names a patient: their title, and their ID when the title
// does not hold it.
func patientLabel(p analyzer.Patient) string {
	title := p.Title()
	if !strings.Contains(title, p.ID) {
		return title + " (" + p.ID + ")"
	}
	return title
}

// needsIDMessage asks for a patient: it names those on the roster, so every example is one the
// trainee can use; on an empty roster it shows IDs the pattern takes for an admission.
func (r *registry) needsIDMessage() string {
	var named []string
	for _, p := range r.namedPatients() {
		named = append(named, patientLabel(p))
	}
	if len(named) > 0 {
		return "Which patient? On the roster: " + strings.Join(named, ", ") + ". Name one, or give a new ID to admit."
	}
	examples := analyzer.ExampleIDs(r.pattern)
	if len(examples) == 0 {
		return fmt.Sprintf("Which patient? Give an ID that matches %s.", r.pattern)
	}
	return fmt.Sprintf("Which patient? Give an ID such as %s (pattern %s).", strings.Join(examples, " or "), r.pattern)
}

// with is the registry with patient id recorded at now (with the facts of a just-admitted
// engine) and active as the active patient.
func (r *registry) with(id, active string, admitted *physio.Engine, bed string, now time.Time) persist.Registry {
	entry, ok := r.Patients[id]
	if !ok {
		entry = persist.PatientEntry{PatientID: id, Facts: map[string]any{}, CreatedAt: now}
	}
	if admitted != nil {
		entry.Facts = facts(admitted, bed)
	}
	entry.UpdatedAt = now
	next := persist.Registry{ActivePatientID: active, Patients: maps.Clone(r.Patients)}
	if next.Patients == nil {
		next.Patients = map[string]persist.PatientEntry{}
	}
	next.Patients[id] = entry
	return next
}

// onRoster is the set of values the roster's patients have for a fact: the scenarios or beds
// already taken on this shift.
func (r *registry) onRoster(fact string) map[string]bool {
	out := map[string]bool{}
	for _, p := range r.Patients {
		if v, ok := p.Facts[fact].(string); ok && v != "" {
			out[v] = true
		}
	}
	return out
}

// bedOf is the bed the registry gives a patient.
func (r *registry) bedOf(id string) string {
	bed, _ := r.Patients[id].Facts[factBed].(string)
	return bed
}

func scenarioOf(facts map[string]any) string {
	id, _ := facts["scenario"].(string)
	return id
}

// mirror makes reg the stage's view of the stored registry.
func (r *registry) mirror(reg persist.Registry) {
	r.Registry = reg
	r.roster, r.named = reg.IDs(), nil
	r.forgetMaskerUnlessRoster()
}

// noteSummary puts a patient's roster summary into the registry mirror, to be written with the
// next commit.
func (r *registry) noteSummary(id string, sm summary) {
	entry, ok := r.Patients[id]
	if !ok || summaryFrom(entry.Facts) == sm {
		return
	}
	if entry.Facts == nil {
		entry.Facts = map[string]any{}
	}
	sm.put(entry.Facts)
	r.Patients[id] = entry
	r.unsaved = true
}

// nextPatientID is the first patient_N not on the roster.
func (r *registry) nextPatientID() string {
	for n := len(r.roster) + 1; ; n++ {
		if id := fmt.Sprintf("patient_%d", n); !slices.Contains(r.roster, id) {
			return id
		}
	}
}

// Keys of a registry entry's facts that a shift keeps unique among its patients.
const (
	factScenario = "scenario"
	factBed      = "bed"
)
