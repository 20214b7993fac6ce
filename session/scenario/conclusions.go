package scenario

import (
	"fmt"
	"regexp"
	"strings"
)

// A finding is what an examiner finds: signs, measurements, what is seen, heard and felt, and
// what is found on the patient (a steroid card, a fetal heart rate). It never concludes what the
// case is there to teach: its diagnosis, the state of its course, or what to do and how soon. A
// finding that ends "— adrenal crisis; steroid emergency card" or "decompress now" hands the
// trainee the answer the case tests, and a case that plays wrong teaches wrong.

// Conclusion is a finding that concludes where it should describe.
type Conclusion struct {
	Path    string // where it is written: findings.focused, states.shock.findings.focused
	Finding string
	Why     string // what it concludes, quoting the words
}

// Conclusions lists every finding of s, the baseline's and each state's, that names the case's
// diagnosis or one of its states, or says what to do or how soon.
func (s *Scenario) Conclusions() []Conclusion {
	var out []Conclusion
	s.eachFinding(func(path, finding string) {
		if why := s.concludes(finding); why != "" {
			out = append(out, Conclusion{Path: path, Finding: finding, Why: why})
		}
	})
	return out
}

// eachFinding calls fn with every finding written, the baseline's and then each state's, at its
// path (findings.focused, states.shock.findings.focused).
func (s *Scenario) eachFinding(fn func(path, finding string)) {
	look := func(path string, f Findings) {
		for _, region := range Regions {
			if f[region] != "" {
				fn(path+"."+region, f[region])
			}
		}
	}
	look("findings", s.Findings)
	for _, name := range s.StateNames() {
		if st := s.States[name]; st != nil {
			look("states."+name+".findings", st.Findings)
		}
	}
}

// concludes says why a finding is a conclusion, or "" when it describes.
func (s *Scenario) concludes(finding string) string {
	if finding == "" {
		return ""
	}
	if s.Diagnosis != nil {
		if term, ok := namesTerm(finding, s.Diagnosis.Accepted); ok {
			return fmt.Sprintf("names the diagnosis (%q)", term)
		}
	}
	if id, ok := s.namedState(finding); ok {
		return fmt.Sprintf("names the state %s", id)
	}
	if order := orders.FindString(finding); order != "" {
		return fmt.Sprintf("says what to do or how soon (%q)", strings.TrimSpace(order))
	}
	return ""
}

// namesTerm is the first of terms whose words text says together, in any order and with the
// slips MatchDiagnosis allows: "fast AF for three days" names "fast AF". A term's words spread
// over a sentence ("shock" in one clause, "haemorrhage" in another) do not name it.
func namesTerm(text string, terms []string) (string, bool) {
	said := diagnosisWords(text)
	for _, term := range terms {
		w := diagnosisWords(term)
		for i := 0; len(w) > 0 && i+len(w) <= len(said); i++ {
			if _, ok := matchWords(said[i:i+len(w)], w); ok {
				return term, true
			}
		}
	}
	return "", false
}

// namedState is the state of s that text names, written as its id is ("septic-shock") or in
// words ("septic shock"), or its author's description. A one-word id ("sepsis", "bleeding") is
// also a clinical word, and BedsideWords are what an examiner sees, so neither is looked for.
func (s *Scenario) namedState(text string) (string, bool) {
	lower := strings.ToLower(text)
	for _, id := range s.StateNames() {
		if strings.ContainsAny(id, "-_") && !BedsideWords[id] && stateWords(id).MatchString(lower) {
			return id, true
		}
		if d := strings.ToLower(strings.TrimSpace(s.States[id].Description)); d != "" && strings.Contains(lower, d) {
			return id, true
		}
	}
	return "", false
}

// stateWords matches a written state id, its hyphens and underscores as written or as spaces.
func stateWords(id string) *regexp.Regexp {
	parts := strings.FieldsFunc(strings.ToLower(id), func(r rune) bool { return r == '-' || r == '_' })
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile(`\b` + strings.Join(parts, `[-_ ]`) + `\b`)
}

// BedsideWords are written state ids that are also what a nurse sees and says: a patient drowsy
// after a witnessed fit is post-ictal.
var BedsideWords = map[string]bool{"post-ictal": true}

// orders are the words by which a finding would say what to do or how soon. Each is an order, a
// plan or a clock, never a sign; words that can describe are left out or narrowed: "now" only
// where it ends a clause ("a synchronised DC shock now", "theatre now or never"; "now drowsy"
// describes), "for" only before a treatment or a place ("for CPAP", "for PICU review", "for the
// burns centre"; "for 12 minutes" is how long). "Give" and "keep" are left out: "cannot give a
// history" and "cannot keep his eyes open" are signs.
var orders = regexp.MustCompile(`(?i)\b(?:now\s*(?:[.;:,!—–]|$|or never)|(?:` + strings.Join([]string{
	`cannot wait`, `can't wait`,
	`needs?`, `needed`, `needing`, // "needs a pacemaker", "is needed now", "large fluid needs"
	`start`, `starts`, // "acetylcysteine starts now", "start heparin"
	`watch`, `watched`, // "watch for bleeding": an instruction, not what is seen
	`is due`, `to be (?:given|added|started|seen)`, `worth giving`,
	`for (?:an? |the )?(?:[\w-]+ )?(?:admission|cpap|ventilation|intubation|icu|picu|hdu|theatre|surgery|repair|delivery|endoscopy|laparoscopy|thrombolysis|thrombectomy|anticoagulation|anaesthesia|evacuation|drain|review|centre)`,
	// a clock or a prognosis
	`peri-arrest`, `(?:close|about) to (?:arrest|vf)`, `arrest is close`, `until proven otherwise`,
	`before anything else`, `every minute`, `within the hour`,
}, "|") + `)\b)`)
