package analyzer

import (
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/ward-sim/ward/memory/words"
)

// Patient is what the registry knows of a patient that a trainee may call them by instead of an
// ID: "Mr Chen", "bed 4", "the first patient", "the asthmatic", "the other one".
type Patient struct {
	ID   string
	Name string // "Eleanor Price"
	Sex  string // M or F, for the title the question uses
	Bed  string // "Resus 3"
	// Condition is what the patient presents with, in the patient's words: the complaint
	// ("central chest pain"). A model's prompt lists it.
	Condition string
	// Case names the case ("opioid overdose") for the rules to match "the overdose" against. It
	// says the diagnosis, so it stays in code: no prompt carries it.
	Case string
}

// Title is how ward names the patient in a question: "Ms Price in Majors 2".
func (p Patient) Title() string {
	name := p.Name
	if last := lastWord(p.Name); last != "" {
		switch p.Sex {
		case "M":
			name = "Mr " + last
		case "F":
			name = "Ms " + last
		}
	}
	if name == "" {
		name = p.ID
	}
	if p.Bed != "" {
		name += " in " + p.Bed
	}
	return name
}

func lastWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

var (
	titles     = []string{"mr", "mrs", "ms", "miss", "dr", "mx"}
	bedWords   = []string{"bed", "bay", "cubicle", "resus", "majors", "minors", "room", "trolley", "chair"}
	personWord = []string{"patient", "one", "man", "woman", "lady", "gentleman", "guy", "chap", "boy", "girl", "bed"}
	ordinals   = map[string]int{"first": 0, "second": 1, "third": 2, "fourth": 3, "fifth": 4, "last": -1, "latest": -1, "newest": -1}
	// conditionFiller are words too common in a condition to pick one patient out by themselves.
	conditionFiller = []string{"the", "and", "with", "for", "from", "acute", "severe", "pain", "after", "patient"}
)

// referred finds whom a text names without an ID: the patients it can mean, and what in the
// text named them. None found is (nil, "").
func referred(tokens []words.Token, in AnalyzerInput) ([]string, string) {
	lower := words.Lower(tokens)
	for _, find := range []func([]words.Token, []string, AnalyzerInput) ([]string, string){
		byBed, byName, byOrder, byOther, byCondition,
	} {
		ids, how := find(tokens, lower, in)
		// A roster kept from before PATIENT_ID_PATTERN changed may hold IDs it no longer allows.
		ids = slices.DeleteFunc(ids, func(id string) bool { return !in.pattern().MatchString(id) })
		if len(ids) > 0 {
			return ids, how
		}
	}
	return nil, ""
}

// byBed: "bed 4", "resus 3", or a bed named as the registry writes it.
func byBed(_ []words.Token, lower []string, in AnalyzerInput) ([]string, string) {
	var padded string
	var ids []string
	for _, p := range in.Patients {
		bed := wordsOfBed(p.Bed)
		// Both ways of naming the bed say its last word, which most texts do not.
		if len(bed) == 0 || !slices.Contains(lower, bed[len(bed)-1]) {
			continue
		}
		if padded == "" {
			padded = words.Padded(lower)
		}
		number := bed[len(bed)-1]
		if words.HasPhrase(padded, []string{strings.Join(bed, " ")}) || (isNumber(number) && hasBedNumber(lower, number)) {
			ids = append(ids, p.ID)
		}
	}
	return ids, "the bed"
}

// wordsOfBed are a bed's words, lower case, split once a bed: every line a trainee types is
// checked against every bed on the roster. Beds come from the shifts and admissions, so the
// cache stays small; the lock is for a server's many shifts.
func wordsOfBed(bed string) []string {
	wordsOfBedCache.RLock()
	w, ok := wordsOfBedCache.m[bed]
	wordsOfBedCache.RUnlock()
	if !ok {
		w = words.Lower(words.Split(bed))
		wordsOfBedCache.Lock()
		wordsOfBedCache.m[bed] = w
		wordsOfBedCache.Unlock()
	}
	return w
}

var wordsOfBedCache = struct {
	sync.RWMutex
	m map[string][]string
}{m: map[string][]string{}}

// hasBedNumber reports whether the text says a bed word followed by number.
func hasBedNumber(lower []string, number string) bool {
	for i := 0; i+1 < len(lower); i++ {
		if slices.Contains(bedWords, lower[i]) && lower[i+1] == number {
			return true
		}
	}
	return false
}

func isNumber(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool { return !unicode.IsDigit(r) }) < 0
}

// byName: a title and a surname ("Mr Chen"), or a first or last name written with its capital.
func byName(tokens []words.Token, lower []string, in AnalyzerInput) ([]string, string) {
	var said []string
	for i, t := range tokens {
		if t.Kind != words.Word || slices.Contains(titles, t.Lower) {
			continue
		}
		afterTitle := i > 0 && tokens[i-1].Kind == words.Word && slices.Contains(titles, tokens[i-1].Lower)
		opensSentence := i == 0 || tokens[i-1].Kind == words.SentenceBreak
		// A capital names someone, unless it only opens a sentence ("Will you…").
		if afterTitle || (unicode.IsUpper([]rune(t.Text)[0]) && !opensSentence) {
			said = append(said, strings.TrimSuffix(t.Lower, "'s"))
		}
	}
	if len(said) == 0 {
		return nil, ""
	}
	var ids []string
	for _, p := range in.Patients {
		for _, n := range strings.Fields(strings.ToLower(p.Name)) {
			if slices.Contains(said, n) {
				ids = append(ids, p.ID)
				break
			}
		}
	}
	return ids, "the name"
}

// byOrder: "the first patient", "the second one", "the last man", by order of arrival.
func byOrder(_ []words.Token, lower []string, in AnalyzerInput) ([]string, string) {
	for i := 0; i+1 < len(lower); i++ {
		n, ok := ordinals[lower[i]]
		if !ok || !slices.Contains(personWord, lower[i+1]) {
			continue
		}
		if n < 0 {
			n = len(in.Patients) - 1
		}
		if n >= 0 && n < len(in.Patients) { // "the last" of no patients is none
			return []string{in.Patients[n].ID}, "the order of arrival"
		}
	}
	return nil, ""
}

// byOther: "the other one" — with two patients, whoever is not active.
func byOther(_ []words.Token, lower []string, in AnalyzerInput) ([]string, string) {
	padded := words.Padded(lower)
	if !words.HasPhrase(padded, []string{"other one", "other patient", "other man", "other woman", "other lady", "other bed"}) {
		return nil, ""
	}
	var others []string
	for _, p := range in.Patients {
		if p.ID != in.ActivePatient {
			others = append(others, p.ID)
		}
	}
	return others, "the other patient"
}

// byCondition: "the asthmatic", "the overdose", "the chest pain patient": the patients whose
// condition shares the most words with what follows "the". A word shared by every patient
// picks no one out.
func byCondition(_ []words.Token, lower []string, in AnalyzerInput) ([]string, string) {
	said := conditionWordsAfterThe(lower)
	if len(said) == 0 {
		return nil, ""
	}
	best, bestScore := []string(nil), 0
	for _, p := range in.Patients {
		score := 0
		condition := words.Lower(words.Split(p.Case + " " + p.Condition))
		for _, w := range said {
			for _, c := range condition {
				if len(c) >= 4 && !slices.Contains(conditionFiller, c) && (strings.HasPrefix(w, c) || strings.HasPrefix(c, w)) {
					score++
					break
				}
			}
		}
		switch {
		case score > bestScore:
			best, bestScore = []string{p.ID}, score
		case score == bestScore && score > 0:
			best = append(best, p.ID)
		}
	}
	if len(best) == len(in.Patients) && len(best) > 1 {
		return nil, ""
	}
	return best, "the condition"
}

// conditionWordsAfterThe are the words of a noun phrase that names a patient by their
// condition: "the" and one or two words, then a person word ("the chest pain patient" gives
// chest, pain), or a condition used as a noun ("the asthmatic", "the overdose"). "the chest" in
// "listen to the chest" names no one.
func conditionWordsAfterThe(lower []string) []string {
	var out []string
	for i, w := range lower {
		if w != "the" {
			continue
		}
		for n := 1; n <= 2 && i+n < len(lower); n++ {
			phrase := lower[i+1 : i+1+n]
			next := ""
			if i+1+n < len(lower) {
				next = lower[i+1+n]
			}
			if slices.Contains(personWord, next) || (n == 1 && isConditionNoun(phrase[0])) {
				for _, c := range phrase {
					if len(c) >= 4 && !slices.Contains(conditionFiller, c) {
						out = append(out, c)
					}
				}
				break
			}
		}
	}
	return out
}

// conditionNouns are conditions a trainee calls a patient by on their own; words ending in -ic
// ("asthmatic", "diabetic", "septic") are too.
var conditionNouns = []string{"overdose", "anaphylaxis", "fracture", "hypo", "stemi", "copd", "asthma", "sepsis", "collapse", "fall"}

func isConditionNoun(w string) bool {
	return slices.Contains(conditionNouns, w) || (len(w) > 5 && strings.HasSuffix(w, "ic"))
}
