package records

import (
	"crypto/sha1"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session/aar"
	"github.com/ward-sim/ward/session/physio"
)

// The class's results as Experience API (xAPI 1.0.3) statements, for any learning record store:
// one statement per scored event of a case (a critical action, a critical error, the working
// diagnosis, the disposition) and one per case completed (scored, when the instructor ended it
// first). Every id is derived from what it
// names, so exporting the same database again gives the same statements, which a store ignores.

// DefaultXAPIBase is under .invalid, a top-level domain reserved never to resolve (RFC 6761):
// its IRIs cannot name anyone's real activities or accounts, and they show at a glance that the
// instructor has not set the base of their own learning record store.
const DefaultXAPIBase = "https://ward.invalid/"

const (
	adlVerbs      = "http://adlnet.gov/expapi/verbs/"
	adlActivities = "http://adlnet.gov/expapi/activities/"
	xapiLanguage  = "en-GB"
)

// XAPINames are where the export names things: Base for its activities and extensions, HomePage
// for the system the trainees' accounts are on (the base when empty).
type XAPINames struct {
	Base, HomePage string
}

// ErrNoTrainee refuses to export a shift that names no trainee, or only the login's name it was
// played under without --trainee ("root"): a statement's actor must be a person, and ward will
// not make one up.
var ErrNoTrainee = errors.New("names no trainee, so its statements would have no actor: play shifts with --trainee NAME to export them")

// Statement is one xAPI statement: an actor did a verb to an object, with a result, in a
// context, at a time.
type Statement struct {
	ID        string   `json:"id"`
	Actor     Agent    `json:"actor"`
	Verb      Verb     `json:"verb"`
	Object    Activity `json:"object"`
	Result    *Result  `json:"result,omitempty"`
	Context   Context  `json:"context"`
	Timestamp string   `json:"timestamp"`
}

// Agent is the trainee, identified by an account on the base IRI: ward knows no email.
type Agent struct {
	ObjectType string  `json:"objectType"`
	Name       string  `json:"name"`
	Account    Account `json:"account"`
}

// Account is a name on a system, the system being its home page.
type Account struct {
	HomePage string `json:"homePage"`
	Name     string `json:"name"`
}

// Verb is what the actor did: an IRI and its name.
type Verb struct {
	ID      string  `json:"id"`
	Display LangMap `json:"display"`
}

// LangMap is a text by language tag.
type LangMap map[string]string

// Activity is what was done: a case, one scored event of it, or a shift.
type Activity struct {
	ObjectType string              `json:"objectType"`
	ID         string              `json:"id"`
	Definition *ActivityDefinition `json:"definition,omitempty"`
}

// ActivityDefinition names an activity and says what kind it is.
type ActivityDefinition struct {
	Name        LangMap `json:"name"`
	Description LangMap `json:"description,omitempty"`
	Type        string  `json:"type,omitempty"`
}

// Result is how it went.
type Result struct {
	Score      *ResultScore   `json:"score,omitempty"`
	Success    *bool          `json:"success,omitempty"`
	Completion *bool          `json:"completion,omitempty"`
	Response   string         `json:"response,omitempty"`
	Duration   string         `json:"duration,omitempty"` // ISO 8601
	Extensions map[string]any `json:"extensions,omitempty"`
}

// ResultScore is points out of a most, and the share they make (scaled, -1 to 1).
type ResultScore struct {
	Scaled float64 `json:"scaled"`
	Raw    int     `json:"raw"`
	Min    int     `json:"min"`
	Max    int     `json:"max"`
}

// Context is the shift a statement belongs to: its registration and the activities around it,
// and in a team's shift the team (the member's role is an extension).
type Context struct {
	Registration      string            `json:"registration"`
	Team              *Group            `json:"team,omitempty"`
	ContextActivities ContextActivities `json:"contextActivities"`
	Platform          string            `json:"platform"`
	Language          string            `json:"language"`
	Extensions        map[string]any    `json:"extensions"`
}

// Group is a team: an identified xAPI Group, named as its shift's trainee, with its members.
type Group struct {
	ObjectType string  `json:"objectType"`
	Name       string  `json:"name"`
	Account    Account `json:"account"`
	Member     []Agent `json:"member"`
}

// ContextActivities are an activity's parent (the case of an event, the shift of a case) and
// what groups it (the shift of an event).
type ContextActivities struct {
	Parent   []Activity `json:"parent"`
	Grouping []Activity `json:"grouping,omitempty"`
}

// XAPIBase checks an IRI under which the export names its accounts, activities and extensions:
// http or https with a host, no query or fragment; it ends with a slash.
func XAPIBase(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.ContainsAny(s, " \t\r\n") {
		return "", fmt.Errorf("the xAPI base %q must be an http or https IRI with a host and no query, e.g. https://lrs.example.org/ward/", s)
	}
	base := u.String()
	if !strings.HasSuffix(base, "/") { // with no query or fragment, the end of the path
		base += "/"
	}
	return base, nil
}

// xapiShift is what the export reads of one shift: its patients' reviews as the shift ended,
// and every message said in it, which ties the ward clock to the wall's.
type xapiShift struct {
	info    persist.SessionInfo
	reports []aar.Report
	chat    []memory.Message // oldest first
}

// shiftStatements are a shift's statements, patient by patient, each patient's in the order
// they happened.
func shiftStatements(names XAPINames, s xapiShift) []Statement {
	base, trainee, home := names.Base, s.info.Trainee, names.HomePage
	if home == "" {
		home = base
	}
	shiftIRI := base + "shifts/" + url.PathEscape(s.info.ID)
	shared := caseWriter{
		base: base, shiftIRI: shiftIRI, registration: nameUUID(shiftIRI),
		actor: agent(home, trainee),
		shift: Activity{ObjectType: "Activity", ID: shiftIRI, Definition: &ActivityDefinition{
			Name: en(fmt.Sprintf("Shift %s of %s UTC", shiftName(s.info.Shift), s.info.CreatedAt.UTC().Format("2006-01-02 15:04")))}},
		clock: wallClock{said: s.chat, start: s.info.CreatedAt},
	}
	out := []Statement{}
	members := teamMembers(s.chat)
	if len(members) == 0 {
		for _, r := range s.reports {
			c := shared
			out = append(out, c.statements(r)...)
		}
		return out
	}
	// A team's shift: each member's statements of every case, the team in their context.
	team := &Group{ObjectType: "Group", Name: trainee, Account: Account{HomePage: home, Name: trainee}}
	for _, m := range members {
		team.Member = append(team.Member, agent(home, m.name))
	}
	for _, m := range members {
		for _, r := range s.reports {
			c := shared
			c.actor, c.team, c.member = agent(home, m.name), team, m
			out = append(out, c.statements(r)...)
		}
	}
	return out
}

// agent is the person named, by their account on home.
func agent(home, name string) Agent {
	return Agent{ObjectType: "Agent", Name: name, Account: Account{HomePage: home, Name: name}}
}

// member is one member of a team's shift: their name and role.
type member struct{ name, role string }

// teamMembers are the members who spoke in a team's shift, in the order they first did; none in
// a shift of one.
func teamMembers(chat []memory.Message) []member {
	var out []member
	for _, m := range chat {
		if m.TeamRole != "" && !slices.ContainsFunc(out, func(o member) bool { return o.name == m.By }) {
			out = append(out, member{m.By, m.TeamRole})
		}
	}
	return out
}

// caseWriter writes one patient's statements.
type caseWriter struct {
	base, shiftIRI, registration string
	actor                        Agent
	team                         *Group // a team's shift: the team, and the member the statements are of
	member                       member
	shift                        Activity
	clock                        wallClock
	r                            aar.Report
	caseActivity                 Activity
	out                          []timed
}

// timed is a statement and the ward time it happened at, to put a case's in order.
type timed struct {
	ward float64
	Statement
}

// statements are the patient's scored events as they stand, then the case's once the patient
// has gone. An event is written only when what it says can no longer change, so its id
// always names the same statement: a critical action once done (or, when the case closed, not
// done), a critical error when made, the diagnosis and the disposition when the case closed.
func (c *caseWriter) statements(r aar.Report) []Statement {
	if !r.Attempted {
		return nil // a patient never attended is not attempted: nothing of theirs passed or failed
	}
	c.r = r
	c.caseActivity = Activity{ObjectType: "Activity", ID: c.base + "scenarios/" + url.PathEscape(r.Scenario),
		Definition: &ActivityDefinition{Name: en(r.Title), Description: en(r.Presentation), Type: adlActivities + "simulation"}}
	c.criticalActions()
	c.criticalErrors()
	if r.Disposition != nil {
		c.diagnosis()
		c.disposition()
		c.reflections()
		c.arrest()
		c.caseEnd()
	}
	sort.SliceStable(c.out, func(i, j int) bool { return c.out[i].ward < c.out[j].ward })
	out := make([]Statement, len(c.out))
	for i, t := range c.out {
		out[i] = t.Statement
	}
	return out
}

// criticalActions: passed when done in time (or in order), failed when done late or not at all.
func (c *caseWriter) criticalActions() {
	closed := c.r.Disposition != nil
	for _, o := range c.r.CriticalActions {
		if !o.Done && (!closed || o.Moot) { // not done yet, or never due
			continue
		}
		res := &Result{Success: &o.Met, Score: scoreOf(0, o.Points)}
		if o.Met {
			res.Score = scoreOf(o.Points, o.Points)
		}
		var at float64
		if o.Done {
			at = c.r.Arrived + *o.At
		} else {
			at = c.r.Disposition.T // not done by the time the patient left
		}
		key := "critical-actions/" + o.ID
		c.add(key, at, passedOr(o.Met), c.event(key, o.Description, o.Rule, "objective"), res)
	}
}

// criticalErrors: each one made, failed; the same error made twice is two statements.
func (c *caseWriter) criticalErrors() {
	for i, er := range c.r.CriticalErrors {
		c.add("critical-errors/"+strconv.Itoa(i+1), er.T, verbFailed,
			c.event("critical-errors/"+er.ID, "Critical error to avoid: "+er.Description, "", "objective"), &Result{Success: ptr(false)})
	}
}

// diagnosis is the last working diagnosis, scored against the case's key; answered, with no
// verdict, when the case has none.
func (c *caseWriter) diagnosis() {
	part, scored := scorePart(c.r.Score, aar.PartDiagnosis)
	n := len(c.r.Diagnoses)
	if n == 0 && !scored {
		return
	}
	at, res, verb := c.r.Disposition.T, &Result{}, verbAnswered
	if n > 0 {
		at, res.Response = c.r.Diagnoses[n-1].T, c.r.Diagnoses[n-1].Text
	}
	if scored {
		right := part.Points == part.Max
		verb, res.Success, res.Score = passedOr(right), &right, scoreOf(part.Points, part.Max)
	}
	c.add("diagnosis", at, verb, c.event("diagnosis", "Working diagnosis", "The last diagnosis committed to", "question"), res)
}

// disposition is where the patient went, scored against the case's key. A case the instructor
// ended had none, which fails where the case called for one, as the review scores it.
func (c *caseWriter) disposition() {
	d := c.r.Disposition
	part, scored := scorePart(c.r.Score, aar.PartDisposition)
	res, verb := &Result{Response: d.Place}, verbAnswered
	if c.endedByInstructor() {
		if !scored {
			return
		}
		res.Response = ""
	}
	if scored {
		verb, res.Success, res.Score = passedOr(d.Accepted), &d.Accepted, scoreOf(part.Points, part.Max)
	}
	c.add("disposition", d.T, verb, c.event("disposition", "Disposition", "Where the patient was sent", "question"), res)
}

// reflections: each reflective answer, answered, with the key points it named (its score) and
// those it missed; the same question answered twice is two statements.
func (c *caseWriter) reflections() {
	for i, o := range c.r.Reflections {
		key := "reflections/" + strconv.Itoa(o.Number)
		res := &Result{Response: o.Answer, Score: scoreOf(len(o.Named), len(o.Named)+len(o.Missed))}
		c.add("reflections/answers/"+strconv.Itoa(i+1), o.T, verbAnswered, c.event(key, o.Question, "A reflective question", "question"), res)
		res.Extensions[c.base+"extensions/key-points-named"] = o.Named
		res.Extensions[c.base+"extensions/key-points-missed"] = o.Missed
	}
}

// arrest is the cardiac arrest as the review measured it, when there was one: the compression
// fraction, the longest pause and the times from the collapse to CPR, the first shock and each
// drug, in extensions. The review's fraction and pauses count sim time, as the engine does;
// pauses that took none (the clock paused) are counted apart.
func (c *caseWriter) arrest() {
	v := c.r.Arrest
	if v == nil {
		return
	}
	ext := func(name string) string { return c.base + "extensions/arrest-" + name }
	drugs := make([]map[string]any, len(v.Drugs))
	for i, d := range v.Drugs {
		drugs[i] = map[string]any{"drug": d.Drug, "seconds-from-collapse": d.At, "verdict": d.Verdict}
	}
	res := &Result{Response: v.Outcome}
	c.add("arrest", c.r.Arrived+v.Collapse, verbCompleted, c.event("arrest", "Cardiac arrest", "Resuscitation measured against the ALS algorithm (RCUK 2021)", "performance"), res)
	for name, value := range map[string]any{
		"compression-fraction": v.Fraction, "longest-pause-seconds": v.LongestPause, "pauses-without-sim-time": v.InstantPauses,
		"seconds-to-recognition": v.Recognised, "seconds-to-cpr": v.FirstCPR, "seconds-to-first-shock": v.FirstShock,
		"shockable": v.Shockable, "shocks": v.Shocks, "drugs": drugs,
	} {
		res.Extensions[ext(name)] = value
	}
}

// endedByInstructor: the instructor closed the case from the board before the trainee sent the
// patient anywhere.
func (c *caseWriter) endedByInstructor() bool { return c.r.Disposition.Place == physio.PlaceEnded }

// caseEnd is the case as its review scores it: completed when the trainee sent the patient
// on; scored, and not completed, when the instructor ended it first. ward sets no pass mark, so
// it says nothing of success. Its duration is the sim time from arrival to leaving, the time the
// case took as the trainee played it (a paused clock or a /wait makes wall time say nothing of
// it); the wall time goes in an extension beside the ward clock's seconds.
func (c *caseWriter) caseEnd() {
	arrived, left := c.clock.at(c.r.Arrived), c.clock.at(c.r.Disposition.T)
	finished, verb := !c.endedByInstructor(), verbCompleted
	if !finished {
		verb = verbScored
	}
	sim := time.Duration((c.r.Disposition.T - c.r.Arrived) * float64(time.Second))
	res := &Result{Score: scoreOf(c.r.Score.Total, c.r.Score.Max), Completion: &finished, Duration: isoDuration(sim),
		Extensions: map[string]any{c.base + "extensions/ward-seconds": c.r.Duration,
			c.base + "extensions/wall-duration": isoDuration(left.Sub(arrived))}}
	s := c.statement("case", c.r.Disposition.T, verb, c.caseActivity, res)
	s.Context.ContextActivities = ContextActivities{Parent: []Activity{c.shift}}
	c.out = append(c.out, timed{c.r.Disposition.T, s})
}

// event is a scored event of the case: a sub-activity under its IRI.
func (c *caseWriter) event(key, name, description, kind string) Activity {
	def := &ActivityDefinition{Name: en(name), Type: adlActivities + kind}
	if description != "" {
		def.Description = en(description)
	}
	return Activity{ObjectType: "Activity", ID: c.caseActivity.ID + "/" + key, Definition: def}
}

// add records a scored event at ward time at: the case is its parent, the shift groups it, and
// the ward clock's seconds since arrival go in an extension.
func (c *caseWriter) add(key string, at float64, verb Verb, object Activity, res *Result) {
	res.Extensions = map[string]any{c.base + "extensions/ward-seconds": at - c.r.Arrived}
	s := c.statement(key, at, verb, object, res)
	s.Context.ContextActivities = ContextActivities{Parent: []Activity{c.caseActivity}, Grouping: []Activity{c.shift}}
	c.out = append(c.out, timed{at, s})
}

// statement is the trainee's statement of an event of this patient (named by key), at the wall
// time the ward clock passed at.
func (c *caseWriter) statement(key string, at float64, verb Verb, object Activity, res *Result) Statement {
	id, extensions := c.shiftIRI, map[string]any{c.base + "extensions/patient": c.r.PatientID}
	if c.team != nil {
		id += "/members/" + url.PathEscape(c.member.name)
		extensions[c.base+"extensions/team-role"] = c.member.role
	}
	return Statement{
		ID:    nameUUID(id + "/patients/" + url.PathEscape(c.r.PatientID) + "/" + key),
		Actor: c.actor, Verb: verb, Object: object, Result: res,
		Context: Context{Registration: c.registration, Team: c.team, Platform: "ward", Language: xapiLanguage,
			Extensions: extensions},
		Timestamp: c.clock.at(at).UTC().Format("2006-01-02T15:04:05.000Z"),
	}
}

// The verbs, from ADL's vocabulary.
var (
	verbCompleted = adlVerb("completed")
	verbPassed    = adlVerb("passed")
	verbFailed    = adlVerb("failed")
	verbAnswered  = adlVerb("answered")
	verbScored    = adlVerb("scored")
)

func adlVerb(name string) Verb { return Verb{ID: adlVerbs + name, Display: en(name)} }

func passedOr(passed bool) Verb {
	if passed {
		return verbPassed
	}
	return verbFailed
}

func scorePart(s aar.Score, name string) (aar.ScorePart, bool) {
	for _, p := range s.Parts {
		if p.Name == name {
			return p, true
		}
	}
	return aar.ScorePart{}, false
}

// scoreOf is raw points out of most, held to 0..most as the review holds its score; nil when
// there were none to score.
func scoreOf(raw, most int) *ResultScore {
	if most <= 0 {
		return nil
	}
	raw = min(max(raw, 0), most)
	return &ResultScore{Scaled: float64(raw) / float64(most), Raw: raw, Min: 0, Max: most}
}

func en(s string) LangMap { return LangMap{xapiLanguage: s} }

func ptr[T any](v T) *T { return &v }

// nameUUID is the name-based (SHA-1, version 5) UUID of an IRI in RFC 4122's URL namespace: the
// same IRI always gives the same UUID.
func nameUUID(iri string) string {
	h := sha1.New()
	h.Write(urlNamespace[:])
	h.Write([]byte(iri))
	u := h.Sum(nil)[:16]
	u[6] = u[6]&0x0f | 0x50
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// urlNamespace is RFC 4122's namespace for names that are URLs (6ba7b811-9dad-11d1-80b4-00c04fd430c8).
var urlNamespace = [16]byte{0x6b, 0xa7, 0xb8, 0x11, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8}

// isoDuration writes d as ISO 8601 (PT1H2M3.45S), to the hundredth of a second xAPI keeps.
func isoDuration(d time.Duration) string {
	d = max(d, 0).Round(10 * time.Millisecond)
	h, m := d/time.Hour, d%time.Hour/time.Minute
	sec := (d % time.Minute).Seconds()
	return fmt.Sprintf("PT%dH%dM%sS", h, m, strconv.FormatFloat(sec, 'f', -1, 64))
}

// wallClock tells when, in wall time, the ward clock passed a time: at the first message written
// at or after it, in the turn that moved the clock there.
type wallClock struct {
	said  []memory.Message // oldest first
	start time.Time        // the shift's start, for a shift where nothing was said
}

func (c wallClock) at(ward float64) time.Time {
	for _, m := range c.said {
		if m.Sim >= ward {
			return m.At
		}
	}
	if n := len(c.said); n > 0 {
		return c.said[n-1].At
	}
	return c.start
}
