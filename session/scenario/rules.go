package scenario

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

var idRe = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// checkScenario checks what the YAML structure alone cannot: references,
// vocabularies and ranges.
func (c *checker) checkScenario(s *Scenario) {
	if s.ID != "" && !idRe.MatchString(s.ID) {
		c.at("id", "id %q must be lowercase letters, digits, - or _", s.ID)
	}
	if a := s.Demographics.Age; a < 0 || a > 120 {
		c.at("demographics.age", "age %d is outside 0–120", a)
	}
	if sex := s.Demographics.Sex; sex != "" && sex != "F" && sex != "M" && sex != "X" {
		c.at("demographics.sex", "sex %q must be F, M or X", sex)
	}
	c.checkPresentation(s)
	c.checkSetting(s)
	if s.Side != "" && s.Side != "left" && s.Side != "right" {
		c.at("side", "side %q must be left or right (or left out)", s.Side)
	}
	if s.Access != "" && s.Access != "iv" && s.Access != "io" {
		c.at("access", "access %q must be iv or io (or left out: none)", s.Access)
	}
	c.checkNEWS2(s.NEWS2)
	c.checkVariants(s)
	for i, m := range s.Medications {
		p := fmt.Sprintf("medications[%d]", i)
		if m.Class != "" && !KnownClass(m.Class) {
			c.at(p+".class", "unknown drug class %q", m.Class)
		}
		if m.LastTakenHours != nil && *m.LastTakenHours < 0 {
			c.at(p+".last_taken_hours", "last_taken_hours cannot be negative")
		}
	}
	for i, a := range s.Allergies {
		c.checkAllergy(a, fmt.Sprintf("allergies[%d]", i))
	}
	c.checkDisclosures(s.Disclosures, "disclosures")
	if s.Bystander != nil {
		c.checkDisclosures(s.Bystander.Disclosures, "bystander.disclosures")
	}
	c.checkStates(s)
	c.checkFindings(s)
	c.checkLimb(s)
	c.checkCourses(s)
	c.checkRhythms(s)
	c.checkArrest(s)
	c.checkTeamRoles(s)
	for i, t := range s.Transitions {
		c.checkTransition(s, t, fmt.Sprintf("transitions[%d]", i))
	}
	for i, iv := range s.Interventions {
		p := fmt.Sprintf("interventions[%d]", i)
		c.checkMatch(iv.Match, p+".match")
		c.checkEffects(iv.Effects, p+".effects")
		if len(iv.Effects) == 0 {
			c.at(p, "an intervention needs at least one effect")
		}
	}
	for i, ci := range s.Contraindications {
		p := fmt.Sprintf("contraindications[%d]", i)
		if len(ci.Drug) == 0 && len(ci.Class) == 0 {
			c.at(p, "a contraindication needs a drug or a class")
		}
		c.checkDrugs(ci.Drug, ci.Class, p)
		c.checkLevel(ci.Level, p+".level")
		c.checkEffects(ci.Effects, p+".effects")
	}
	c.checkCriticalActions(s)
	c.checkCriticalErrors(s)
	c.checkMonitoring(s.Monitoring)
	for i, r := range s.Rescue {
		p := fmt.Sprintf("rescue[%d]", i)
		c.checkMatch(r.Match, p+".match")
		c.checkStateNames(s, r.States, p+".states")
	}
	c.checkScoring(s)
	c.checkTeaching(s)
	if len(s.LearningObjectives) == 0 {
		c.at("learning_objectives", "at least one learning objective is needed")
	}
}

// presentationMax keeps the presentation to what a header line and a triage note hold.
const presentationMax = 110

// checkPresentation keeps the trainee's first sight of the case free of its answer: one short
// line that does not repeat the title or name a state.
func (c *checker) checkPresentation(s *Scenario) {
	p := strings.TrimSpace(s.Presentation)
	lower := strings.ToLower(p)
	switch {
	case s.Presentation == "":
		return // reported as a missing field, or an empty one below
	case p == "":
		c.at("presentation", "presentation is empty")
	case strings.ContainsAny(p, "\n\r"):
		c.at("presentation", "presentation must be one line")
	case len([]rune(p)) > presentationMax:
		c.at("presentation", "presentation is %d characters; keep it to %d", len([]rune(p)), presentationMax)
	case s.Title != "" && strings.Contains(lower, strings.ToLower(s.Title)):
		c.at("presentation", "presentation repeats the title, which the trainee must not see")
	}
	for _, name := range s.StateNames() {
		if strings.Contains(name, "-") && strings.Contains(lower, name) {
			c.at("presentation", "presentation names the state %q, which the trainee must not see", name)
		}
	}
}

func (c *checker) checkDisclosures(list []Disclosure, path string) {
	for i, d := range list {
		p := fmt.Sprintf("%s[%d]", path, i)
		if d.Topic != "" && !slices.Contains(Topics, d.Topic) {
			c.at(p+".topic", "unknown topic %q (want one of %v)", d.Topic, Topics)
		}
		if d.Reveal != "" && d.Reveal != RevealAlways && d.Reveal != RevealWhenAsked {
			c.at(p+".reveal", "reveal %q must be always or when_asked", d.Reveal)
		}
	}
}

// checkScoring makes the weights add up to ScoreMax, so a perfect run scores exactly that.
func (c *checker) checkScoring(s *Scenario) {
	w := s.Scoring
	total := w.Trajectory + w.AllergiesFirst + w.Reassessment + w.Reflection
	for i, a := range s.CriticalActions {
		if a.Points < 0 {
			c.at(fmt.Sprintf("critical_actions[%d].points", i), "points cannot be negative")
		}
		total += a.Points
	}
	for i, e := range s.CriticalErrors {
		if e.Penalty < 0 {
			c.at(fmt.Sprintf("critical_errors[%d].penalty", i), "a penalty is a positive number of points to take off")
		}
	}
	if w.Reflection > 0 && len(s.Reflection) == 0 {
		c.at("scoring.reflection", "the reflection is weighted but the case asks no reflective question")
	}
	for _, v := range []int{w.Trajectory, w.AllergiesFirst, w.Reassessment, w.Reflection, w.HardStop, w.Warning} {
		if v < 0 {
			c.at("scoring", "scoring weights cannot be negative")
			break
		}
	}
	if total != ScoreMax {
		own := w.Trajectory + w.AllergiesFirst + w.Reassessment + w.Reflection
		c.at("scoring", "the critical actions' points (%d) and scoring's trajectory, allergies_first, reassessment and reflection (%d) add up to %d, not %d",
			total-own, own, total, ScoreMax)
	}
}

func (c *checker) checkNEWS2(n NEWS2Config) {
	switch {
	case n.Scale != 1 && n.Scale != 2:
		c.at("news2.scale", "news2 scale must be 1 or 2, not %d", n.Scale)
	case n.Scale == 2 && !n.HypercapnicTarget:
		c.at("news2.scale", "scale 2 is only for hypercapnic patients: set hypercapnic_target: true")
	case n.Scale == 2 && len(n.HypercapniaFrom) == 0:
		c.at("news2.scale", "scale 2 needs hypercapnia_from: the tests or topics that document it")
	}
	for _, from := range n.HypercapniaFrom {
		if _, test := Tests[from]; !test && !slices.Contains(Topics, from) {
			c.at("news2.hypercapnia_from", "%q is neither a test nor a topic", from)
		}
	}
}

func (c *checker) checkAllergy(a Allergy, p string) {
	if a.Severity != "" && !slices.Contains(Severities, a.Severity) {
		c.at(p+".severity", "severity %q must be one of %v", a.Severity, Severities)
	}
	if a.DrugClass != "" && !KnownClass(a.DrugClass) {
		c.at(p+".drug_class", "unknown drug class %q", a.DrugClass)
	}
	if d, isDrug := LookupDrug(a.Agent); isDrug {
		switch {
		case a.DrugClass == "":
			c.at(p, "allergy to the drug %q needs a drug_class (one of %v) so cross-reactions are checked", a.Agent, d.Classes)
		case KnownClass(a.DrugClass) && !d.Is(a.DrugClass):
			c.at(p+".drug_class", "%s is not in class %q (its classes: %v)", d.Name, a.DrugClass, d.Classes)
		}
	}
	c.checkEffects(a.Effects, p+".effects")
}

func (c *checker) checkStates(s *Scenario) {
	initial, ok := s.States[s.InitialState]
	if s.InitialState != "" && !ok {
		c.at("initial_state", "initial_state %q is not one of the states", s.InitialState)
	}
	if ok {
		for _, v := range requiredVitals {
			if _, set := initial.Vitals[v.String()]; !set {
				c.at("states."+s.InitialState+".vitals", "the initial state must set %s", v)
			}
		}
	}
	for _, name := range s.StateNames() {
		st, p := s.States[name], "states."+name
		if st == nil {
			c.at(p, "state %q is empty", name)
			continue
		}
		c.checkDisclosures(st.Disclosures, p+".disclosures")
		for test := range st.Results {
			switch _, ok := Tests[test]; {
			case !ok:
				c.at(p+".results."+test, "unknown test %q (want one of %v)", test, slices.Sorted(maps.Keys(Tests)))
			case test == "weight":
				c.at(p+".results.weight", "the weight is demographics.weight_kg, which every dose per kg is worked out from; a state gives no result for it")
			}
		}
		for vn, val := range st.Vitals {
			v, known := ParseVital(vn)
			if !known {
				c.at(p+".vitals."+vn, "unknown vital %q", vn)
			} else if r := Range[v]; val < r[0] || val > r[1] {
				c.at(p+".vitals."+vn, "%s %g is outside %g–%g", vn, val, r[0], r[1])
			}
		}
		for vn, tau := range st.Tau {
			if _, known := ParseVital(vn); !known && vn != "default" {
				c.at(p+".tau."+vn, "unknown vital %q in tau", vn)
			}
			if tau <= 0 {
				c.at(p+".tau."+vn, "tau must be positive")
			}
		}
	}
}

func (c *checker) checkTransition(s *Scenario, t Transition, p string) {
	for i, from := range t.From {
		if _, ok := s.States[from]; !ok {
			c.at(fmt.Sprintf("%s.from[%d]", p, i), "unknown state %q in from", from)
		}
		if from == t.To {
			c.at(p+".to", "a transition cannot lead from %q to itself", from)
		}
	}
	if _, ok := s.States[t.To]; t.To != "" && !ok {
		c.at(p+".to", "unknown state %q in to", t.To)
	}
	if t.Mode != "" && t.Mode != "any" && t.Mode != "all" {
		c.at(p+".mode", "mode %q must be any or all", t.Mode)
	}
	if len(t.When) == 0 {
		c.at(p, "a transition needs at least one condition in when")
	}
	for i, cond := range t.When {
		c.checkCondition(cond, fmt.Sprintf("%s.when[%d]", p, i))
	}
}

func (c *checker) checkCondition(cond Condition, p string) {
	kinds := 0
	if cond.TimeInState != nil {
		kinds++
		if *cond.TimeInState <= 0 {
			c.at(p+".time_in_state", "time_in_state must be positive")
		}
	}
	if cond.Action != nil {
		kinds++
		c.checkMatch(*cond.Action, p+".action")
	}
	if cond.Done != nil {
		kinds++
		c.checkMatch(*cond.Done, p+".done")
	}
	if cond.Vital != "" {
		kinds++
		if _, ok := ParseVital(cond.Vital); !ok {
			c.at(p+".vital", "unknown vital %q", cond.Vital)
		}
		if (cond.Below == nil) == (cond.Above == nil) {
			c.at(p, "a vital condition needs exactly one of below or above")
		}
	} else if cond.Below != nil || cond.Above != nil || cond.For != 0 {
		c.at(p, "below, above and for belong to a vital condition")
	}
	if cond.For < 0 {
		c.at(p+".for", "for cannot be negative")
	}
	if kinds != 1 {
		c.at(p, "a condition needs exactly one of time_in_state, action, done or vital")
	}
}

func (c *checker) checkMatch(m Match, p string) {
	for _, k := range m.Kind {
		if !slices.Contains(ActionKinds, ActionKind(k)) {
			c.at(p+".kind", "unknown action kind %q (want one of %v)", k, ActionKinds)
		}
	}
	c.checkDrugs(m.Drug, m.Class, p)
	for _, r := range m.Route {
		if !slices.Contains(Routes, r) {
			c.at(p+".route", "unknown route %q (want one of %v)", r, Routes)
		}
	}
	for _, d := range m.Device {
		if !slices.Contains(Devices, d) {
			c.at(p+".device", "unknown device %q (want one of %v)", d, Devices)
		}
	}
	for _, t := range m.Topic {
		if !slices.Contains(Topics, t) {
			c.at(p+".topic", "unknown topic %q (want one of %v)", t, Topics)
		}
	}
	for _, t := range m.Test {
		if _, ok := Tests[t]; !ok {
			c.at(p+".test", "unknown test %q (want one of %v)", t, slices.Sorted(maps.Keys(Tests)))
		}
	}
	c.checkRhythmNames(m.Rhythm, p+".rhythm")
	for _, pos := range m.Position {
		if !slices.Contains(Positions, pos) {
			c.at(p+".position", "unknown position %q (want one of %v)", pos, Positions)
		}
	}
	for _, team := range m.Team {
		if !slices.Contains(Teams, team) {
			c.at(p+".team", "unknown team %q (want one of %v)", team, Teams)
		}
	}
	for _, r := range m.Region {
		if !slices.Contains(Regions, r) {
			c.at(p+".region", "unknown examination region %q (want one of %v)", r, Regions)
		}
	}
	if m.MaxDoseMg > 0 && m.MinDoseMg > m.MaxDoseMg {
		c.at(p+".min_dose_mg", "min_dose_mg is above max_dose_mg")
	}
	if m.MaxFiO2 > 0 && m.MinFiO2 > m.MaxFiO2 {
		c.at(p+".min_fio2", "min_fio2 is above max_fio2")
	}
}

// checkDrugs insists on canonical names so matches compare exactly with
// what the parser produces.
func (c *checker) checkDrugs(drugNames, classNames Names, p string) {
	for _, n := range drugNames {
		d, ok := LookupDrug(n)
		switch {
		case !ok:
			c.at(p+".drug", "unknown drug %q", n)
		case d.Name != n:
			c.at(p+".drug", "write the drug as %q, not %q", d.Name, n)
		}
	}
	for _, cl := range classNames {
		if !KnownClass(cl) {
			c.at(p+".class", "unknown drug class %q", cl)
		}
	}
}

func (c *checker) checkLevel(level, p string) {
	if level != "" && level != HardStop && level != Warn {
		c.at(p, "level %q must be hard_stop or warn", level)
	}
}

func (c *checker) checkEffects(effects []Effect, p string) {
	for i, e := range effects {
		ep := fmt.Sprintf("%s[%d]", p, i)
		v, ok := ParseVital(e.Vital)
		if e.Vital != "" && !ok {
			c.at(ep+".vital", "unknown vital %q", e.Vital)
		}
		if e.Delta == 0 {
			c.at(ep+".delta", "delta must not be 0")
		}
		if e.Onset < 0 || e.Duration < 0 {
			c.at(ep, "onset and duration cannot be negative")
		}
		if ok && e.Cap != nil {
			if r := Range[v]; *e.Cap < r[0] || *e.Cap > r[1] {
				c.at(ep+".cap", "cap %g is outside %g–%g", *e.Cap, r[0], r[1])
			}
		}
	}
}

func (c *checker) checkCriticalActions(s *Scenario) {
	list := s.CriticalActions
	ids := map[string]bool{}
	for _, a := range list {
		ids[a.ID] = true
	}
	seen := map[string]bool{}
	for i, a := range list {
		p := fmt.Sprintf("critical_actions[%d]", i)
		c.checkID(a.ID, p+".id", seen)
		c.checkMatch(a.Match, p+".match")
		c.checkStateNames(s, a.States, p+".states")
		switch {
		case (a.Within > 0) == (a.Before != ""):
			c.at(p, "a critical action needs exactly one of within or before")
		case a.Before == a.ID:
			c.at(p+".before", "a critical action cannot come before itself")
		case a.Before != "" && !ids[a.Before]:
			c.at(p+".before", "unknown critical action %q in before", a.Before)
		}
	}
}

func (c *checker) checkCriticalErrors(s *Scenario) {
	seen := map[string]bool{}
	for i, e := range s.CriticalErrors {
		p := fmt.Sprintf("critical_errors[%d]", i)
		c.checkID(e.ID, p+".id", seen)
		c.checkMatch(e.Match, p+".match")
		c.checkStateNames(s, e.States, p+".states")
	}
}

func (c *checker) checkStateNames(s *Scenario, names Names, p string) {
	for _, st := range names {
		if _, ok := s.States[st]; !ok {
			c.at(p, "unknown state %q", st)
		}
	}
}

func (c *checker) checkID(id, p string, seen map[string]bool) {
	if id == "" {
		return
	}
	if !idRe.MatchString(id) {
		c.at(p, "id %q must be lowercase letters, digits, - or _", id)
	}
	if seen[id] {
		c.at(p, "duplicate id %q", id)
	}
	seen[id] = true
}

// checkCourses: a course leads to another state, over a positive time.
func (c *checker) checkCourses(s *Scenario) {
	for _, name := range s.StateNames() {
		st, p := s.States[name], "states."+name+".course"
		if st == nil || st.Course == nil {
			continue
		}
		if _, ok := s.States[st.Course.To]; !ok || st.Course.To == name {
			c.at(p+".to", "a course leads to another of the states, not %q", st.Course.To)
		}
		if st.Course.Over <= 0 {
			c.at(p+".over", "a course takes a positive time")
		}
	}
}

// checkSetting: a prehospital case has a scene, its kit, drugs only from its kit, and a conveyance
// for its disposition; a hospital case has none of these.
func (c *checker) checkSetting(s *Scenario) {
	switch s.Setting {
	case "", Hospital:
		if s.Scene != "" || len(s.Kit) > 0 {
			c.at("setting", "a scene and a kit are for a prehospital case (setting: prehospital)")
		}
		if d := s.Disposition; d != nil && slices.ContainsFunc(d.Accepted, func(p string) bool { return slices.Contains(Conveyances, p) }) {
			c.at("disposition.accepted", "a conveyance (%s) is a prehospital case's disposition", strings.Join(Conveyances, ", "))
		}
		return
	case Prehospital:
	default:
		c.at("setting", "setting %q must be hospital or prehospital", s.Setting)
		return
	}
	if strings.TrimSpace(s.Scene) == "" {
		c.at("setting", "a prehospital case needs its scene")
	}
	if len(s.Kit) == 0 {
		c.at("setting", "a prehospital case needs its kit: the drugs the crew carries")
	}
	for i, k := range s.Kit {
		if _, ok := LookupDrug(k); !ok {
			c.at(fmt.Sprintf("kit[%d]", i), "unknown drug %q in the kit", k)
		}
	}
	inKit := func(drug string) bool {
		d, _ := LookupDrug(drug)
		return slices.ContainsFunc(s.Kit, func(k string) bool { kd, _ := LookupDrug(k); return kd.Name == d.Name })
	}
	for i, a := range s.CriticalActions {
		for _, d := range a.Match.Drug {
			if !inKit(d) {
				c.at(fmt.Sprintf("critical_actions[%d].match.drug", i), "%s is not in the crew's kit", d)
			}
		}
	}
	if d := s.Disposition; d != nil {
		for _, p := range d.Accepted {
			if !slices.Contains(Conveyances, p) && p != "home" {
				c.at("disposition.accepted", "a prehospital case conveys to %s (or leaves the patient at home), not %q", strings.Join(Conveyances, ", "), p)
			}
		}
	}
}
