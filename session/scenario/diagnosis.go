package scenario

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ward-sim/ward/memory/words"
)

// Verdicts of a working diagnosis against a scenario's key.
const (
	VerdictAccepted     = "accepted"     // names the case's diagnosis, or a synonym of it
	VerdictDifferential = "differential" // names a diagnosis reasonable to hold, but not this case
	VerdictWrong        = "wrong"        // names neither
)

// DiagnosisMatch is how a working diagnosis compares with the key: the verdict and, unless it is
// wrong, the term of the key it matched.
type DiagnosisMatch struct {
	Verdict string `json:"verdict"`
	Term    string `json:"term,omitempty"`
	// Rank is the place the matched item held in a ranked differential (1: first); 0 when the
	// trainee committed to one diagnosis.
	Rank int `json:"rank,omitempty"`
}

// MatchDifferential reads a working diagnosis that may be a ranked differential: items in the
// order written, apart by a new line, a semicolon, a comma, ">", "or", "then" or a number ("1. PE
// 2. pneumonia"). The case's diagnosis anywhere in it is accepted at its rank, so a hedge that
// names it ("pneumonia or PE", and it was PE) is credited as the second place, never "not this
// case"; otherwise the first differential named stands. One item is MatchDiagnosis.
func MatchDifferential(key *DiagnosisKey, text string) DiagnosisMatch {
	items := differentialItems(text)
	if len(items) < 2 {
		return MatchDiagnosis(key, text)
	}
	best := DiagnosisMatch{Verdict: VerdictWrong}
	for i, item := range items {
		m := MatchDiagnosis(key, item)
		m.Rank = i + 1
		switch {
		case m.Verdict == VerdictAccepted:
			return m
		case m.Verdict == VerdictDifferential && best.Verdict == VerdictWrong:
			best = m
		}
	}
	return best
}

// differentialItems are the items of a ranked differential, in the order written.
func differentialItems(text string) []string {
	text = rankNumber.ReplaceAllString(text, ";")
	var out []string
	for _, item := range differentialBreak.Split(text, -1) {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

var (
	rankNumber        = regexp.MustCompile(`(?:^|\s)\(?\d{1,2}[.)]\s+`)
	differentialBreak = regexp.MustCompile(`(?i)[;\n,>]|\s+(?:or|then|versus|vs\.?)\s+`)
)

// DiagnosisCredit is the share of the diagnosis part a differential earns when the case's
// diagnosis holds place rank in it: the reciprocal of the rank (1, 1/2, 1/3), as mean reciprocal
// rank scores a ranked answer (Voorhees, The TREC-8 Question Answering Track Report, NIST 1999),
// and nothing below the third place, the depth at which a differential's accuracy is judged
// (Semigran et al., Evaluation of symptom checkers for self diagnosis and triage, BMJ
// 2015;351:h3480: the right diagnosis first, and within the first three). A single diagnosis
// (rank 0) is the first place.
func DiagnosisCredit(rank int) (num, den int) {
	switch {
	case rank <= 1:
		return 1, 1
	case rank <= 3:
		return 1, rank
	}
	return 0, 1
}

// MatchDiagnosis compares what the trainee wrote with the key, deterministically. A term of the
// key matches when each of its words is among the trainee's, allowing a spelling slip (see
// sameWord) and ignoring word order and filler ("acute exacerbation of COPD" matches "COPD
// exacerbation"). When terms of both lists match, the one naming more words wins, so "cardiac
// asthma" is not taken for "asthma"; on a tie the accepted diagnosis wins. A diagnosis that
// hedges, naming a differential in other words beside the accepted one ("asthma or
// anaphylaxis"), is not a commitment: it counts as the differential.
func MatchDiagnosis(key *DiagnosisKey, text string) DiagnosisMatch {
	said := diagnosisWords(text)
	best, bestWords, bestUsed := DiagnosisMatch{Verdict: VerdictWrong}, 0, []bool(nil)
	try := func(terms []string, verdict string) {
		for _, term := range terms {
			w := diagnosisWords(term)
			if used, ok := matchWords(said, w); ok && len(w) > bestWords {
				best, bestWords, bestUsed = DiagnosisMatch{Verdict: verdict, Term: term}, len(w), used
			}
		}
	}
	if key == nil || len(said) == 0 {
		return best
	}
	try(key.Accepted, VerdictAccepted)
	try(key.Differentials, VerdictDifferential)
	if best.Verdict == VerdictAccepted {
		if hedge, ok := alsoNamed(said, bestUsed, key.Differentials); ok {
			return DiagnosisMatch{Verdict: VerdictDifferential, Term: hedge}
		}
	}
	return best
}

// alsoNamed is a term of terms that the words left unused name on their own.
func alsoNamed(said []diagWord, used []bool, terms []string) (string, bool) {
	var rest []diagWord
	for i, w := range said {
		if !used[i] {
			rest = append(rest, w)
		}
	}
	for _, term := range terms {
		if _, ok := matchWords(rest, diagnosisWords(term)); ok && len(rest) > 0 {
			return term, true
		}
	}
	return "", false
}

// filler are words a diagnosis may carry without changing what it names.
var filler = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "with": true, "and": true, "in": true, "to": true,
	"due": true, "from": true, "secondary": true, "likely": true, "probable": true, "possible": true,
	"query": true, "suspected": true, "presumed": true, "working": true, "diagnosis": true, "is": true,
}

// diagWord is one word of a diagnosis, lowered; exact when the key writes it in capitals, as an
// abbreviation ("STEMI" must not take "NSTEMI").
type diagWord struct {
	text  string
	exact bool
}

// diagnosisWords are the words of a diagnosis without filler, hyphens and apostrophes splitting
// words ("life-threatening" is "life threatening", as many write it).
func diagnosisWords(text string) []diagWord {
	var out []diagWord
	for _, tok := range words.Split(text) {
		if tok.Kind != words.Word {
			continue
		}
		for _, part := range strings.FieldsFunc(tok.Text, func(r rune) bool { return r == '-' || r == '\'' || r == '’' || r == '/' }) {
			lower := strings.ToLower(part)
			if !filler[lower] {
				out = append(out, diagWord{text: lower, exact: len([]rune(part)) > 1 && part == strings.ToUpper(part) && lower != part})
			}
		}
	}
	return out
}

// matchWords matches every word of term to a different word of said, and says which were used.
func matchWords(said, term []diagWord) ([]bool, bool) {
	used := make([]bool, len(said))
	for _, w := range term {
		found := false
		for i, s := range said {
			if !used[i] && (s.text == w.text || !w.exact && sameWord(s.text, w.text)) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			return nil, false
		}
	}
	return used, len(term) > 0
}

// sameWord allows a spelling slip in proportion to the word: none in a word of up to four
// letters (abbreviations such as PE, DKA, AKI, STEMI must be exact), one edit up to eight, two
// beyond ("anaphylaxsis", "hypoglycemia", "pnuemonia"). An edit is an insertion, deletion,
// substitution or swap of two neighbouring letters (Damerau-Levenshtein, restricted).
func sameWord(a, b string) bool {
	n := min(len([]rune(a)), len([]rune(b)))
	allowed := 0
	switch {
	case n > 8:
		allowed = 2
	case n > 4:
		allowed = 1
	}
	return EditDistance(a, b, allowed) <= allowed
}

// EditDistance is the restricted Damerau-Levenshtein distance between a and b, or limit+1 as
// soon as it must exceed limit.
func EditDistance(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > limit || -d > limit {
		return limit + 1
	}
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// Dispositions are where a patient may go at the end of a case.
var Dispositions = append([]string{"resus", "icu", "hdu", "ward", "cath-lab", "theatre", "home"}, Conveyances...)

// Conveyances are where an ambulance crew takes a patient (JRCALC), a prehospital case's
// disposition; an ECLS centre is one that can rewarm on extracorporeal life support, where
// RCUK 2021 sends a hypothermic patient at risk of arrest or in arrest.
var Conveyances = []string{"major-trauma-centre", "emergency-department", "obstetric-unit", "ecls-centre"}

// Difficulties are how hard a case is, easiest first.
var Difficulties = []string{"foundation", "intermediate", "advanced"}

// DefaultWeights split the score when a scenario does not: the diagnosis 35, the disposition 20
// and the actions 45 of 100.
var DefaultWeights = Weights{Diagnosis: 35, Disposition: 20, Actions: 45}

// Weights are the three parts of the score, out of ScoreMax.
type Weights struct {
	Diagnosis   int `json:"diagnosis"`
	Disposition int `json:"disposition"`
	Actions     int `json:"actions"`
}

// Weights are the scenario's own split of the score, or the default; a part the scenario has no
// key for (no diagnosis, no disposition) gives its weight to the actions.
func (s *Scenario) Weights() Weights {
	w := DefaultWeights
	if sw := s.Scoring; sw.Diagnosis+sw.Disposition+sw.Actions > 0 {
		w = Weights{Diagnosis: sw.Diagnosis, Disposition: sw.Disposition, Actions: sw.Actions}
	}
	if s.Diagnosis == nil {
		w.Actions, w.Diagnosis = w.Actions+w.Diagnosis, 0
	}
	if s.Disposition == nil {
		w.Actions, w.Disposition = w.Actions+w.Disposition, 0
	}
	return w
}

// KeyPointNamed reports whether an answer names a reflective question's key point: at least half
// of the point's words, one of them not a number, each as MatchDiagnosis allows a slip or sharing
// a stem of seven letters ("exhausted" names "exhaustion"), so "salbutamol nebuliser" names
// "nebulised salbutamol" and "RR over 25" names "respiratory rate 25 or more" only by its number,
// which is not enough.
func KeyPointNamed(answer, point string) bool {
	said := diagnosisWords(answer)
	want, found, word := 0, 0, false
	for _, w := range diagnosisWords(point) {
		if pointFiller[w.text] {
			continue
		}
		want++
		if slices.ContainsFunc(said, func(s diagWord) bool { return s.text == w.text || sameWord(s.text, w.text) || sameStem(s.text, w.text) }) {
			found++
			word = word || !isNumber(w.text)
		}
	}
	return word && 2*found >= want
}

// stemLen is how many first letters two words of a key point share to be taken as one word.
const stemLen = 7

func sameStem(a, b string) bool {
	ra, rb := []rune(a), []rune(b)
	if len(ra) < stemLen || len(rb) < stemLen {
		return false
	}
	return string(ra[:stemLen]) == string(rb[:stemLen])
}

func isNumber(w string) bool {
	_, err := strconv.ParseFloat(w, 64)
	return err == nil
}

// pointFiller are words of a key point that say how, not what: comparisons and units, which an
// answer naming something else would share ("mg/kg" names no drug).
var pointFiller = map[string]bool{"or": true, "more": true, "less": true, "than": true, "above": true, "below": true,
	"at": true, "least": true, "for": true, "on": true, "by": true, "if": true, "within": true, "every": true, "when": true,
	"not": true, "no": true, "only": true, "mg": true, "kg": true, "g": true, "micrograms": true, "mcg": true, "ml": true,
	"l": true, "min": true, "minutes": true, "hours": true, "percent": true, "%": true}
