package analyzer

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ward-sim/ward/memory/knowledge"
	"github.com/ward-sim/ward/memory/words"
)

// RulesAnalyzer decides deterministically, with no model. Decide also says
// whether the rules are sure; Analyze uses the decision either way.
type RulesAnalyzer struct{}

// Immediate is Analyze: the rules never need to wait for anything.
func (r RulesAnalyzer) Immediate(in AnalyzerInput) (Decision, bool) {
	return r.Analyze(context.Background(), in), true
}

func (r RulesAnalyzer) Analyze(_ context.Context, in AnalyzerInput) Decision {
	start := time.Now()
	d, _ := r.Decide(in)
	d.Elapsed = time.Since(start)
	return d
}

var clearPhrases = []string{"clear", "clear patient", "clear context", "clear patient context"}

// IsClearPhrase reports whether text is an exact clear command (trimmed,
// any case), which the session runs without asking the analyzer.
func IsClearPhrase(text string) bool {
	return slices.Contains(clearPhrases, strings.ToLower(strings.TrimSpace(text)))
}

// Decide applies the rules in order; the first that fits decides. sure is
// false where a reader could take the text more than one way: the decision
// is then the safe guess (nothing changes) and the LLM should be asked.
func (RulesAnalyzer) Decide(in AnalyzerInput) (d Decision, sure bool) {
	d, sure = decide(in)
	d.Source = SourceRules
	return d, sure
}

func decide(in AnalyzerInput) (Decision, bool) {
	if IsClearPhrase(in.Text) {
		return Decision{Action: ActionClear, Reasoning: "exact clear command"}, true
	}
	tokens := words.Split(in.Text)
	lower := words.Lower(tokens)
	shape := shapeOf(in.pattern())
	if ids := findIDs(words.Texts(tokens), shape); len(ids) > 0 {
		if mentionsClear(lower) {
			return in.keep("clear wording next to a patient ID"), false
		}
		return decideByID(in, ids)
	}
	switch {
	case isClearIntent(lower):
		return Decision{Action: ActionClear, Reasoning: "asks to clear the patient context"}, true
	case mentionsClear(lower):
		return in.keep("clear wording without a clear request"), false
	case isRosterQuestion(lower):
		return in.keep("question about the roster"), true
	}
	if ids, how := referred(tokens, in); len(ids) > 0 {
		return decideByReference(in, ids, how)
	}
	if mentionsPatient(lower, shape) {
		return decideWithoutID(in, words.Texts(tokens), lower, shape)
	}
	switch {
	case isShort(in.Text):
		return in.keep("short message"), true
	case hasAnyPhrase(lower, cuePhrases):
		return in.keep("mentions switching or context without a patient"), false
	}
	return in.keep("nothing about patient context"), true
}

// decideByID: an explicit, valid ID is a request for that patient.
func decideByID(in AnalyzerInput, ids []string) (Decision, bool) {
	if len(ids) > 1 {
		return in.keep("names several patients: " + strings.Join(ids, ", ")), false
	}
	id := ids[0]
	d := Decision{Action: in.actionFor(id), PatientID: id}
	switch d.Action {
	case ActionUnchanged:
		d.Reasoning = id + " is already active"
	case ActionSwitchExisting:
		d.Reasoning = "names " + id + ", who is in the roster"
	default:
		d.Reasoning = "names " + id + ", who is new"
	}
	return d, true
}

// decideByReference: a patient named by bed, name, order or condition is a request for them, as
// an ID is. A reference that fits several is not decided: the trainee is asked which (a model,
// when there is one, gets a say first).
func decideByReference(in AnalyzerInput, ids []string, how string) (Decision, bool) {
	if len(ids) > 1 {
		return Decision{Action: ActionSwitchExisting, Candidates: ids,
			Reasoning: fmt.Sprintf("%s fits %d patients: %s", how, len(ids), strings.Join(ids, ", "))}, false
	}
	d, _ := decideByID(in, ids)
	d.Reasoning = fmt.Sprintf("names %s by %s", ids[0], how)
	return d, true
}

// actionFor is what asking for a valid id does, by the registry's view of it.
func (in AnalyzerInput) actionFor(id string) Action {
	switch {
	case id == in.ActivePatient:
		return ActionUnchanged
	case slices.Contains(in.Roster, id):
		return ActionSwitchExisting
	}
	return ActionActivateNew
}

// decideWithoutID: the text speaks of a patient but gives no valid ID.
// Asking for another patient is an activation with no ID, which the session
// answers with the expected format. When the roster holds someone else,
// "back to the first patient" may still name them, so the LLM gets a say.
func decideWithoutID(in AnalyzerInput, texts, words []string, shape *idShape) (Decision, bool) {
	activation := Decision{Action: ActionActivateNew, Reasoning: "asks for a patient without a valid ID"}
	othersInRoster := slices.ContainsFunc(in.Roster, func(id string) bool { return id != in.ActivePatient })
	asks := hasAnyPhrase(words, changePhrases) || hasAnyPhrase(words, reviewPhrases)
	if attempt := idAttempt(texts, words, shape); asks && attempt != "" {
		// "review patient_1a" asks for a patient ward cannot find: it goes to no one, least of all
		// to the active patient as bedside talk, and the trainee is asked for a valid ID.
		activation.Invalid = attempt
		activation.Reasoning = "asks for " + attempt + ", which is not a valid ID (" + in.pattern().String() + ")"
		return activation, true
	}
	switch {
	case hasAnyPhrase(words, changePhrases):
		return activation, !othersInRoster
	case hasAnyPhrase(words, reviewPhrases) && in.ActivePatient == "":
		return activation, !othersInRoster
	}
	// "check on the patient" may mean the active one.
	return in.keep("mentions a patient without an ID"), false
}

// idAttempt is what the text meant as a patient ID when no valid ID could be made of it (the
// caller found none): an alias glued to a value ("patient_1a", "pt#x", "patient_4" under an MRN
// pattern), or an alias word before a value with a digit in it ("patient 1a", "mrn 12"). "" when
// the text attempts none: "review the patient" speaks of a patient, not of an ID.
func idAttempt(texts, lower []string, shape *idShape) string {
	for i, w := range lower {
		w = cleanToken(w)
		for _, a := range shape.aliases {
			rest, ok := strings.CutPrefix(w, a.word)
			switch {
			case !ok:
			case rest != "" && startsWithSeparatorOrDigit(rest):
				return cleanToken(texts[i])
			case rest == "" && i+1 < len(lower) && strings.ContainsAny(lower[i+1], "0123456789") && !isMeasurement(lower, i+1):
				return cleanToken(texts[i]) + " " + cleanToken(texts[i+1])
			}
		}
	}
	return ""
}

// keep is the decision that changes nothing.
func (in AnalyzerInput) keep(reason string) Decision {
	d := Decision{Action: in.baseAction(), Reasoning: reason}
	if d.Action == ActionUnchanged {
		d.PatientID = in.ActivePatient
	}
	return d
}

var (
	clearVerbs   = []string{"clear", "reset", "wipe"}
	contextWords = []string{"context", "contexts"}
	patientNouns = []string{"patient", "patients", "pt", "pts"}
	// fillerWords may surround "clear patients" without changing its sense.
	fillerWords = []string{"please", "the", "all", "my", "this", "every", "now", "thanks", "of", "our"}
	// changePhrases ask to leave the current patient.
	changePhrases = []string{"switch", "change to", "move to", "go to", "back to", "next patient", "another patient", "new patient", "different patient", "other patient"}
	// reviewPhrases ask to work on a patient, possibly the current one.
	reviewPhrases = []string{"review", "open", "see", "check on", "start", "look at", "pull up", "load", "work on", "admit"}
	// cuePhrases make a message with no other rule worth a second opinion.
	// A patient meant without being named ("go back to the previous one") is a switch the rules
	// cannot place: unsure, so a model is asked, never a certain "nothing changes".
	cuePhrases = []string{"switch", "context", "roster", "previous one", "previous patient", "the previous",
		"go back to"}
)

// isClearIntent: a clear verb with "context", or a clear verb and
// "patient(s)" with only filler around them ("reset all patients"), so that
// "clear the patient's airway" stays clinical.
func isClearIntent(words []string) bool {
	if !hasAnyWord(words, clearVerbs) {
		return false
	}
	if hasAnyWord(words, contextWords) {
		return true
	}
	var verbs, targets int
	for _, w := range words {
		switch {
		case slices.Contains(clearVerbs, w):
			verbs++
		case w == "patient" || w == "patients":
			targets++
		case !slices.Contains(fillerWords, w):
			return false
		}
	}
	return verbs == 1 && targets == 1
}

// mentionsClear: clear wording that isClearIntent did not accept.
func mentionsClear(words []string) bool {
	return hasAnyWord(words, clearVerbs) && (hasAnyWord(words, patientNouns) || hasAnyWord(words, contextWords))
}

// IsRosterQuestion reports whether text asks who the patients are ("which
// patients have we discussed?", "who is active?"). Such questions are
// answered from the registry, never by the model. A question about the
// guidance that mentions patients ("what is the target SpO2 for most
// patients?") is not one.
func IsRosterQuestion(text string) bool {
	return isRosterQuestion(words.Lower(words.Split(text))) && !knowledge.IsProtocolQuestion(text)
}

func isRosterQuestion(words []string) bool {
	asks := hasAnyWord(words, []string{"which", "who", "what", "list", "how", "show"})
	switch {
	case hasAnyWord(words, []string{"roster"}):
		return true
	case hasAnyWord(words, []string{"patients"}) && asks:
		return true
	case hasAnyWord(words, []string{"who"}) && hasAnyWord(words, []string{"active"}):
		return true
	}
	return hasAnyPhrase(words, []string{"which patient"})
}

// mentionsPatient: a patient noun, or an alias glued to something that was
// meant as an ID but is not valid ("patient_4a", "pt#x").
func mentionsPatient(words []string, shape *idShape) bool {
	for _, w := range words {
		w = cleanToken(w)
		if slices.Contains(patientNouns, w) {
			return true
		}
		for _, a := range shape.aliases {
			rest, ok := strings.CutPrefix(w, a.word)
			if ok && startsWithSeparatorOrDigit(rest) {
				return true
			}
			if ok && rest == "" && !slices.Contains(genericAliases, a.word) {
				return true // the pattern's own word, such as "mrn"
			}
		}
	}
	return false
}

// isShort: a brief reply such as "ok" or "yes
// proceed" keeps the context.
func isShort(text string) bool {
	t := strings.ToLower(strings.TrimSpace(text))
	if utf8.RuneCountInString(t) > 15 {
		return false
	}
	return !strings.Contains(t, "patient") && !strings.Contains(t, "clear") && !strings.Contains(t, "switch")
}

func hasAnyWord(words, set []string) bool {
	for _, w := range words {
		if slices.Contains(set, w) {
			return true
		}
	}
	return false
}

// hasAnyPhrase matches whole words or runs of words.
func hasAnyPhrase(ws, phrases []string) bool {
	return words.HasPhrase(words.Padded(ws), phrases)
}
