// Package authoring helps an educator write a scenario: a commented starting file copied from an
// existing one, and a check that plays the file's review paths with no model and lists what in
// the file can never happen.
package authoring

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/ward-sim/ward/session/aar"
	"github.com/ward-sim/ward/session/action"
	"github.com/ward-sim/ward/session/physio"
	sc "github.com/ward-sim/ward/session/scenario"
)

// Checks, as a problem names them.
const (
	CheckParse       = "parse"         // the file does not parse or validate
	CheckReview      = "review"        // the review is missing, unreadable, or says what the engine does not do
	CheckUnreached   = "unreached"     // a state no transition reaches
	CheckNeverFires  = "never-fires"   // a transition that can never fire
	CheckUnmet       = "unmet"         // a critical action the treated-well path never meets
	CheckUnfound     = "unfound"       // a disclosure no question finds
	CheckNoFindings  = "no-findings"   // a state without examination findings (validation finds it)
	CheckNotInFormul = "not-formulary" // a drug the case asks for that the formulary does not dose
	CheckTeamRoles   = "team-roles"    // a role the case names that every team has already
	CheckConcludes   = "concludes"     // a finding that names the diagnosis or a state, or says what to do
	CheckMeasures    = "measures"      // a finding that states a vital sign, which the engine owns
	CheckUnsaid      = "unsaid"        // a patient's line that names the diagnosis, said with it left out
)

// Problem is one thing in a scenario file that cannot happen as written, at its file and line
// (the review's, for a review's row; line 0 when it is the whole file's).
type Problem struct {
	Check string
	File  string
	Line  int
	Text  string
}

// String is the problem as an editor or a compiler's reader expects it: FILE:LINE: check: text.
func (p Problem) String() string {
	if p.Line == 0 {
		return fmt.Sprintf("%s: %s: %s", p.File, p.Check, p.Text)
	}
	return fmt.Sprintf("%s:%d: %s: %s", p.File, p.Line, p.Check, p.Text)
}

// PathPlay is one review path as the engine played it, minute by minute.
type PathPlay struct {
	Name  string
	Steps []physio.Step
}

// Report is what checking one scenario file found.
type Report struct {
	File     string
	Paths    []PathPlay
	Problems []Problem
}

// Check reads a scenario file and its review beside it (ID.review.md for ID.yaml), plays the
// review's paths, and lists every problem.
func Check(file string) (Report, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return Report{File: file}, err
	}
	review, err := os.ReadFile(reviewFile(file))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return Report{File: file}, err
	}
	return CheckSource(file, data, review), nil
}

// CheckLibrary checks every scenario of the library, the built-ins included, from its source.
func CheckLibrary(lib *sc.Library) []Report {
	var out []Report
	for _, s := range lib.List() {
		data, review, _ := lib.Source(s.ID)
		out = append(out, CheckSource(s.Source, data, review))
	}
	return out
}

// CheckSource checks a scenario named file from its text and its review's (nil when it has
// none).
func CheckSource(file string, data, review []byte) Report {
	r := Report{File: file}
	s, errs := sc.ParseAll(data) // the scenario despite its errors, so every check runs in one go
	for _, e := range errs {
		var at sc.Error
		if errors.As(e, &at) {
			r.add(parseCheck(e), at.Line, "%s", at.Msg)
		} else {
			r.add(parseCheck(e), 0, "%v", e)
		}
	}
	if review == nil {
		r.add(CheckReview, 0, "no review beside the scenario (%s)", reviewFile(r.File))
	}
	if s == nil {
		return r
	}
	g := reachable(s)
	r.playReview(s, review)
	r.unreached(s, g)
	r.neverFires(s, g)
	r.unfound(s, g)
	r.notInFormulary(s)
	r.teamRoles(s)
	r.concludes(s)
	r.measures(s)
	r.unsaid(s)
	return r
}

// unsaid lists each thing the patient is given to say that names the diagnosis
// (Scenario.Namings): ward leaves the word out when the patient says it, so it is heard with a
// hole where the word was.
func (r *Report) unsaid(s *sc.Scenario) {
	for _, n := range s.Namings() {
		r.add(CheckUnsaid, s.Line(n.Path), "%s names the diagnosis (%q): %q is said with it left out; say it as the patient would", n.Path, n.Term, n.Text)
	}
}

// concludes lists each examination finding that concludes where it should describe
// (Scenario.Conclusions): the examiner finds the signs, and naming what they mean and what to do
// about them is what the case asks of the trainee.
func (r *Report) concludes(s *sc.Scenario) {
	for _, c := range s.Conclusions() {
		r.add(CheckConcludes, s.Line(c.Path), "%s %s: %q; say what the examiner finds", c.Path, c.Why, c.Finding)
	}
}

// measures lists each examination finding that states a vital sign's value
// (Scenario.Measurements): the engine moves the vitals with the course and every drug, and the
// trainee reads them from its observations; a number written in a finding stays when they move.
func (r *Report) measures(s *sc.Scenario) {
	for _, m := range s.Measurements() {
		r.add(CheckMeasures, s.Line(m.Path), "%s states %q: %q; the engine gives the vital signs", m.Path, m.Number, m.Finding)
	}
}

// teamRoles lists each role the case names that is one every resuscitation team has (aar.Roles),
// or that holds work one of those roles holds: ward team would offer it twice, or take the
// work from its role.
func (r *Report) teamRoles(s *sc.Scenario) {
	for i, role := range s.TeamRoles {
		if aar.IsRole(role.Name) {
			r.add(CheckTeamRoles, s.Line(fmt.Sprintf("team_roles[%d]", i)), "%s is a role every team has (%s): name the case's own", role.Name, strings.Join(aar.Roles, ", "))
		}
		for _, k := range role.Holds {
			if every := aar.RoleOf(action.Action{Kind: k}); every != "" {
				r.add(CheckTeamRoles, s.Line(fmt.Sprintf("team_roles[%d]", i)), "%s holds %s, which is the %s's work in every team", role.Name, k, every)
			}
		}
	}
}

// parseCheck files a validation error under the check it is about, so an unknown drug reads as
// one the formulary cannot dose and a state that finds nothing on an examination as a state
// without findings (scenario validation resolves every region, the pupils from the state's).
func parseCheck(err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "unknown drug "), strings.Contains(msg, "formulary"):
		return CheckNotInFormul
	case strings.Contains(msg, "finding"):
		return CheckNoFindings
	}
	return CheckParse
}

func (r *Report) add(check string, line int, format string, args ...any) {
	r.Problems = append(r.Problems, Problem{Check: check, File: r.File, Line: line, Text: fmt.Sprintf(format, args...)})
}

// reviewFile is the review beside a scenario file.
func reviewFile(file string) string {
	for _, ext := range []string{".yaml", ".yml"} {
		if base, ok := strings.CutSuffix(file, ext); ok {
			return base + ".review.md"
		}
	}
	return file + ".review.md"
}

// playReview plays each path minute by minute, reports where the review and the engine differ,
// and the critical actions the treated-well path never meets; then, if the case as written
// passes, the same for the patients its variants can be (Scenario.Extreme), each named, since
// the review must hold for every patient the case may draw.
func (r *Report) playReview(s *sc.Scenario, review []byte) {
	if review == nil {
		return // CheckSource says so
	}
	paths, errs := physio.ParseReview(string(review))
	for _, e := range errs {
		r.add(CheckReview, 0, "%s: %v", reviewFile(r.File), e)
	}
	for _, p := range paths {
		steps := r.playPath(s, p, "")
		r.Paths = append(r.Paths, PathPlay{Name: p.Name, Steps: steps})
	}
	if len(r.Problems) > 0 {
		return // the case as written first; its variants would repeat each problem
	}
	for i := range s.Extremes() {
		who := s.Extreme(i)
		for _, p := range paths {
			r.playPath(s.As(who), p, fmt.Sprintf("as %s: ", who))
		}
	}
}

// playPath plays one review path as scenario s, and reports each problem prefixed by as (which
// names the variant played, or is empty for the case as written).
func (r *Report) playPath(s *sc.Scenario, p physio.ReviewPath, as string) []physio.Step {
	steps, e := physio.PlayPath(s, p, true)
	for _, st := range steps {
		if row := st.Row; row != nil && (st.State != row.State || st.NEWS2 != row.NEWS2) {
			r.Problems = append(r.Problems, Problem{Check: CheckReview, File: reviewFile(r.File), Line: row.Line + 1,
				Text: fmt.Sprintf("%s%s, %s %q: the engine is in %s with %s; the review says %s with %s", as, p.Name, physio.SimTime(row.At), row.Say, st.State, st.NEWS2, row.State, row.NEWS2)})
		}
	}
	if p.Name != "Treated well" || len(p.Rows) == 0 {
		return steps
	}
	for i, o := range aar.Of(e).CriticalActions {
		if !o.Met {
			r.add(CheckUnmet, s.Line(fmt.Sprintf("critical_actions[%d]", i)), "%scritical action %s (%s) is not met on the treated-well path (%s)", as, o.ID, o.Description, o.Rule)
		}
	}
	return steps
}

// reached is the set of states some course of the case can reach from the initial state.
type reached map[string]bool

// reachable follows the transitions from the initial state, ignoring those that can never fire.
func reachable(s *sc.Scenario) reached {
	g := reached{s.InitialState: true}
	for grew := true; grew; {
		grew = false
		if a := s.Arrest; a != nil && a.CanSurvive() && !g[a.ROSC] && slices.ContainsFunc(s.StateNames(), func(n string) bool {
			return g[n] && s.States[n].RhythmKind().Arrest()
		}) {
			g[a.ROSC], grew = true, true // the engine's return of circulation, drawn at a shock or a check
		}
		for _, t := range s.Transitions {
			if g[t.To] || impossible(t) != "" || !slices.ContainsFunc(t.From, func(f string) bool { return g[f] }) {
				continue
			}
			g[t.To], grew = true, true
		}
	}
	return g
}

func (r *Report) unreached(s *sc.Scenario, g reached) {
	for _, name := range s.StateNames() {
		if !g[name] {
			r.add(CheckUnreached, s.Line("states."+name), "state %s: no transition that can fire reaches it from %s", name, s.InitialState)
		}
	}
}

// impossible says why a transition can never fire, whatever the trainee does: a vital threshold
// beyond what the body can show, or, when every condition must hold, two thresholds on one
// vital that cannot hold together. "" when it can.
func impossible(t sc.Transition) string {
	var whys []string
	lowest, highest := map[string]float64{}, map[string]float64{}
	for _, c := range t.When {
		if c.Vital == "" {
			if !t.AllRequired() {
				return "" // time or an action can always come
			}
			continue
		}
		lim := sc.Range[c.VitalIndex()]
		switch {
		case c.Below != nil && *c.Below <= lim[0]:
			whys = append(whys, fmt.Sprintf("%s below %g, which is at or under the lowest the body shows (%g)", c.Vital, *c.Below, lim[0]))
		case c.Above != nil && *c.Above >= lim[1]:
			whys = append(whys, fmt.Sprintf("%s above %g, which is at or over the highest the body shows (%g)", c.Vital, *c.Above, lim[1]))
		default:
			if !t.AllRequired() {
				return ""
			}
		}
		if c.Below != nil {
			lowest[c.Vital] = *c.Below
		}
		if c.Above != nil {
			highest[c.Vital] = *c.Above
		}
	}
	if t.AllRequired() {
		for v, below := range lowest {
			if above, ok := highest[v]; ok && above >= below {
				whys = append(whys, fmt.Sprintf("%s both below %g and above %g", v, below, above))
			}
		}
	}
	return strings.Join(whys, "; ")
}

func (r *Report) neverFires(s *sc.Scenario, g reached) {
	for i, t := range s.Transitions {
		name := fmt.Sprintf("transition %d (%s → %s)", i+1, strings.Join(t.From, ", "), t.To)
		line := s.Line(fmt.Sprintf("transitions[%d]", i))
		switch why := impossible(t); {
		case why != "":
			r.add(CheckNeverFires, line, "%s: %s", name, why)
		case !slices.ContainsFunc(t.From, func(f string) bool { return g[f] }):
			r.add(CheckNeverFires, line, "%s: the patient is never in a state it leaves from", name)
		case !slices.ContainsFunc(t.From, func(f string) bool { return g[f] && !shadowed(s, i, f) }):
			r.add(CheckNeverFires, line, "%s: an earlier transition always takes the patient out of %s first, on time alone",
				name, strings.Join(t.From, ", "))
		}
	}
}

// shadowed reports whether transition i can never fire from state from: an earlier transition
// from it fires on time alone by some time, and transition i needs at least that long there.
func shadowed(s *sc.Scenario, i int, from string) bool {
	leaves := -1.0 // the soonest an earlier transition is sure to take the patient out of from
	for _, t := range s.Transitions[:i] {
		if at, ok := firesBy(t); ok && slices.Contains(t.From, from) && (leaves < 0 || at < leaves) {
			leaves = at
		}
	}
	return leaves >= 0 && earliest(s.Transitions[i]) >= leaves
}

// firesBy is the time in state by which t fires whatever happens: its time condition, when it
// fires on any condition.
func firesBy(t sc.Transition) (float64, bool) {
	if t.AllRequired() {
		return 0, false
	}
	for _, c := range t.When {
		if c.TimeInState != nil {
			return float64(*c.TimeInState), true
		}
	}
	return 0, false
}

// earliest is the soonest time in state at which t could fire: 0 when an action or a vital may
// fire it at once, else its time condition (the longest, when every condition must hold).
func earliest(t sc.Transition) float64 {
	soonest := -1.0
	for _, c := range t.When {
		at := 0.0
		if c.TimeInState != nil {
			at = float64(*c.TimeInState)
		}
		switch {
		case soonest < 0:
			soonest = at
		case t.AllRequired():
			soonest = max(soonest, at)
		default:
			soonest = min(soonest, at)
		}
	}
	return max(soonest, 0)
}

// knownTopics are the facts a scenario lists that a question must be able to find.
var knownTopics = []struct {
	topic string
	has   func(*sc.Scenario) bool
}{
	{"allergies", func(s *sc.Scenario) bool { return len(s.Allergies) > 0 }},
	{"medications", func(s *sc.Scenario) bool { return len(s.Medications) > 0 }},
	{"history", func(s *sc.Scenario) bool { return len(s.History) > 0 }},
}

// unfound lists the disclosures no question can find: a known fact with no answer on its topic,
// a state's answer in a state never reached, and a bystander's answers when the patient can
// always give the history themselves.
func (r *Report) unfound(s *sc.Scenario, g reached) {
	answers := func(topic string) bool {
		return len(s.DisclosuresAbout(topic)) > 0 || (s.Bystander != nil && len(s.Bystander.DisclosuresAbout(topic)) > 0)
	}
	for _, k := range knownTopics {
		if k.has(s) && !answers(k.topic) {
			r.add(CheckUnfound, s.Line(k.topic), "the scenario lists %s, but no disclosure answers a question about %s", k.topic, k.topic)
		}
	}
	for _, name := range s.StateNames() {
		if st := s.State(name); !g[name] && len(st.Disclosures) > 0 {
			r.add(CheckUnfound, s.Line("states."+name+".disclosures"), "state %s's disclosures: the state is never reached", name)
		}
	}
	if s.Bystander == nil {
		return
	}
	for name := range g {
		if !physio.SpeechAt(int(s.State(name).Target(sc.GCS))).GivesHistory() {
			return
		}
	}
	r.add(CheckUnfound, s.Line("bystander"), "%s's disclosures: the patient gives the history in every state reached, so the bystander is never asked", s.Bystander.Name)
}

// notInFormulary lists each drug the case's matches name that is in the catalogue (validation
// reports one that is not) but that the formulary cannot dose.
func (r *Report) notInFormulary(s *sc.Scenario) {
	seen := map[string]bool{}
	check := func(m sc.Match, path, where string) {
		for _, d := range m.Drug {
			_, known := sc.LookupDrug(d)
			if _, ok := sc.LookupDoses(d); known && !ok && !seen[d] {
				seen[d] = true
				r.add(CheckNotInFormul, s.Line(path), "%s (in %s) has no entry in the formulary, so no dose of it can be checked", d, where)
			}
		}
	}
	for i, iv := range s.Interventions {
		check(iv.Match, fmt.Sprintf("interventions[%d]", i), "interventions")
	}
	for i, a := range s.CriticalActions {
		check(a.Match, fmt.Sprintf("critical_actions[%d]", i), "critical action "+a.ID)
	}
	for i, rs := range s.Rescue {
		check(rs.Match, fmt.Sprintf("rescue[%d]", i), "rescue")
	}
	for i, t := range s.Transitions {
		for _, c := range t.When {
			for _, m := range []*sc.Match{c.Action, c.Done} {
				if m != nil {
					check(*m, fmt.Sprintf("transitions[%d]", i), "transitions")
				}
			}
		}
	}
}

// Text is the report as `ward scenarios check` prints it: each path minute by minute, then the
// problems.
func (r Report) Text() string {
	var b strings.Builder
	for _, p := range r.Paths {
		fmt.Fprintf(&b, "%s — %s\n", r.File, p.Name)
		for _, st := range p.Steps {
			said := ""
			if st.Row != nil && st.Row.Say != "" {
				said = "  ← " + st.Row.Say
			}
			fmt.Fprintf(&b, "  %s  %-22s %s%s\n", physio.SimTime(st.At), st.State, st.NEWS2, said)
		}
	}
	if len(r.Problems) == 0 {
		fmt.Fprintf(&b, "%s: ok — every state, transition, critical action, disclosure, finding and drug can happen\n", r.File)
		return b.String()
	}
	fmt.Fprintf(&b, "%s: %d problem(s)\n", r.File, len(r.Problems))
	for _, p := range r.Problems {
		fmt.Fprintf(&b, "  %s\n", p)
	}
	return b.String()
}
