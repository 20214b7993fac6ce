package scenario

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// What the patient says never names the case's diagnosis: ward leaves a word that names it out of
// the patient's history, answers, allergies, signs and lines (the session's persona), so a line
// written with one is heard with a hole ("Did I go hypo?" is said "Did I go ?"). DiagnosisTerms
// are those words; Namings lists what a case gives the patient to say that holds one, which
// `ward scenarios check` refuses ("unsaid").

// titleHead is the part of a scenario's title before what the case adds to the diagnosis:
// "Anaphylaxis" of "Anaphylaxis after eating peanuts".
var titleHead = regexp.MustCompile(`(?i)^(.+?)(?:\s+(?:after|in|with|from|on|following)\s.*)?$`)

// severities are state names that grade an illness without naming it.
var severities = []string{"mild", "moderate", "severe", "acute", "critical"}

// DiagnosisTerms are the words that name s's diagnosis, lower case: its accepted names when it
// gives them, else the head of its title, and the states whose names say the diagnosis (the
// hyphenated ones, and those the title names that are more than a grade). What the presentation
// or the chief complaint says is told to the trainee at admission, and is no secret.
func (s *Scenario) DiagnosisTerms() []string {
	var terms []string
	if s.Diagnosis != nil {
		terms = append(terms, s.Diagnosis.Accepted...)
	}
	terms = append(terms, titleHead.FindStringSubmatch(s.Title)[1])
	for _, name := range s.StateNames() {
		if strings.Contains(name, "-") || ContainsWord(strings.ToLower(s.Title), name) && !slices.Contains(severities, name) {
			terms = append(terms, name, strings.ReplaceAll(name, "-", " "))
		}
	}
	told := strings.ToLower(s.Presentation + "\n" + s.ChiefComplaint)
	var out []string
	for _, t := range terms {
		if t = strings.ToLower(strings.TrimSpace(t)); t != "" && !strings.Contains(told, t) && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// Naming is something a case gives the patient to say that names its diagnosis.
type Naming struct {
	Path string // where it is written: history[0], disclosures[2].text, states.recovering.lines[0]
	Text string
	Term string // the diagnosis term it holds
}

// Namings lists what s gives the patient to say that names its diagnosis.
func (s *Scenario) Namings() []Naming {
	terms := s.DiagnosisTerms()
	var out []Naming
	s.eachSaid(func(path, text string) {
		lower := strings.ToLower(text)
		if i := slices.IndexFunc(terms, func(t string) bool { return ContainsWord(lower, t) }); i >= 0 {
			out = append(out, Naming{Path: path, Text: text, Term: terms[i]})
		}
	})
	return out
}

// eachSaid calls fn with everything the persona gives the patient to say, at its path.
func (s *Scenario) eachSaid(fn func(path, text string)) {
	list := func(path string, texts []string) {
		for i, t := range texts {
			fn(fmt.Sprintf("%s[%d]", path, i), t)
		}
	}
	fn("lines.opening", s.Lines.Opening)
	list("lines.generic", s.Lines.Generic)
	list("history", s.History)
	for i, d := range s.Disclosures {
		fn(fmt.Sprintf("disclosures[%d].text", i), d.Text)
	}
	for i, a := range s.Allergies {
		fn(fmt.Sprintf("allergies[%d].reaction", i), a.Reaction)
	}
	for _, name := range s.StateNames() {
		if st := s.States[name]; st != nil {
			list("states."+name+".signs", st.Signs)
			list("states."+name+".lines", st.Lines)
		}
	}
}

// ContainsWord reports whether term occurs in text (both lower case) as whole words.
func ContainsWord(text, term string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], term)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(term)
		if (start == 0 || !isWordByte(text[start-1])) && (end == len(text) || !isWordByte(text[end])) {
			return true
		}
		i = start + 1
	}
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}
