package analyzer

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/ward-sim/ward/memory/words"
)

// MaxPatientIDLen bounds an ID: it becomes a bbolt key, goes in prompts and on the roster, and
// no ward numbers its patients past sixteen digits ("patient_" and 16 digits is 24).
const MaxPatientIDLen = 24

// NormalizeID finds the one patient ID that text names, rewritten into the
// pattern's form ("Patient_6", "pt #6", "patient id 6" → "patient_6";
// "mrn 1234567" → "MRN1234567"). ok is false when text names no ID or two
// different ones. The result always matches pattern.
func NormalizeID(text string, pattern *regexp.Regexp) (id string, ok bool) {
	ids := findIDs(words.Texts(words.Split(text)), shapeOf(pattern))
	if len(ids) != 1 {
		return "", false
	}
	return ids[0], true
}

// idShape is what the normaliser knows about one pattern.
type idShape struct {
	pattern *regexp.Regexp
	// aliases maps a lowercase word that may introduce an ID ("patient",
	// "pt", "mrn") to the literal prefixes the pattern's IDs start with.
	aliases []idAlias
}

type idAlias struct {
	word     string
	prefixes []string
}

// genericAliases introduce an ID whatever the pattern: they stand for every
// prefix the pattern allows.
var genericAliases = []string{"id", "patient", "pt"}

var shapes sync.Map // pattern source → *idShape

func shapeOf(pattern *regexp.Regexp) *idShape {
	if s, ok := shapes.Load(pattern.String()); ok {
		return s.(*idShape)
	}
	s := &idShape{pattern: pattern, aliases: aliasesFor(literalPrefixes(pattern))}
	shapes.Store(pattern.String(), s)
	return s
}

// aliasesFor derives the words that introduce an ID. A prefix's own word
// ("mrn" for "MRN") stands for that prefix only, so "mrn 1234567" is not
// ambiguous under ^(patient_[0-9]+|MRN[0-9]{7})$; a generic word stands for
// every prefix.
func aliasesFor(prefixes []string) []idAlias {
	byWord := map[string][]string{}
	for _, p := range prefixes {
		if word := prefixWord(p); word != "" {
			byWord[word] = append(byWord[word], p)
		}
	}
	for _, word := range genericAliases {
		if _, own := byWord[word]; !own {
			byWord[word] = prefixes
		}
	}
	aliases := make([]idAlias, 0, len(byWord))
	for word, ps := range byWord {
		aliases = append(aliases, idAlias{word: word, prefixes: ps})
	}
	slices.SortFunc(aliases, func(a, b idAlias) int { return strings.Compare(a.word, b.word) })
	return aliases
}

// prefixWord is the lowercase word a literal prefix spells ("patient_" →
// "patient"), or "" when it is not a plain word.
func prefixWord(prefix string) string {
	word := strings.ToLower(strings.TrimRightFunc(prefix, func(r rune) bool { return !unicode.IsLetter(r) }))
	if word == "" || strings.IndexFunc(word, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0 {
		return ""
	}
	return word
}

// maxPrefixes keeps a pattern with many alternatives from multiplying the
// candidates; past it the normaliser only accepts IDs typed in full.
const maxPrefixes = 16

// literalPrefixes returns the literal text each alternative of the pattern
// starts with: ^patient_[0-9]+$ → ["patient_"], ^(patient_[0-9]+|MRN[0-9]{7})$
// → ["patient_", "MRN"].
func literalPrefixes(pattern *regexp.Regexp) []string {
	re, err := syntax.Parse(pattern.String(), syntax.Perl)
	if err != nil {
		return []string{""}
	}
	prefixes, _ := prefixesOf(re)
	if len(prefixes) > maxPrefixes {
		return []string{""}
	}
	return prefixes
}

// prefixesOf returns the literal prefixes of re, and whether re is entirely
// those literals (so a concatenation may continue past it).
func prefixesOf(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{string(re.Rune)}, true
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpBeginText:
		return []string{""}, true
	case syntax.OpCapture:
		return prefixesOf(re.Sub[0])
	case syntax.OpAlternate:
		var all []string
		complete := true
		for _, sub := range re.Sub {
			ps, whole := prefixesOf(sub)
			all = append(all, ps...)
			complete = complete && whole
		}
		return all, complete
	case syntax.OpConcat:
		out := []string{""}
		for _, sub := range re.Sub {
			ps, whole := prefixesOf(sub)
			out = crossJoin(out, ps)
			if !whole || len(out) > maxPrefixes {
				return out, false
			}
		}
		return out, true
	}
	return []string{""}, false
}

func crossJoin(heads, tails []string) []string {
	out := make([]string, 0, len(heads)*len(tails))
	for _, h := range heads {
		for _, t := range tails {
			out = append(out, h+t)
		}
	}
	return out
}

// maxTokenLen skips tokens no ID could come from, so pasted blobs stay cheap.
const maxTokenLen = 2 * MaxPatientIDLen

// findIDs returns the distinct pattern-valid IDs the tokens name, in order.
func findIDs(tokens []string, shape *idShape) []string {
	var ids []string
	for i, tok := range tokens {
		tok = cleanToken(tok)
		if tok == "" || len(tok) > maxTokenLen {
			continue
		}
		for _, id := range shape.candidates(tokens, i, tok) {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// candidates are the rewrites of token i that match the pattern: the token
// as typed (in any case), the token with its alias replaced by the pattern's
// prefix ("pt#6"), and a bare value after an alias word ("patient 6").
func (s *idShape) candidates(tokens []string, i int, tok string) []string {
	var found []string
	try := func(c string) {
		if len(c) <= MaxPatientIDLen && s.pattern.MatchString(c) && !slices.Contains(found, c) {
			found = append(found, c)
		}
	}
	typed, n := caseVariants(tok)
	for _, c := range typed[:n] {
		try(c)
	}
	lower := strings.ToLower(tok)
	for _, a := range s.aliases {
		rest, ok := strings.CutPrefix(lower, a.word)
		if !ok || !startsWithSeparatorOrDigit(rest) {
			continue
		}
		if len(lower) == len(tok) {
			rest = tok[len(a.word):] // keep the typed case when byte offsets agree
		}
		cores, n := caseVariants(trimSeparator(rest))
		for _, core := range cores[:n] {
			for _, p := range a.prefixes {
				try(p + core)
			}
		}
	}
	if a, ok := s.aliasBefore(tokens, i); ok && !isMeasurement(tokens, i) {
		cores, n := caseVariants(trimSeparator(tok))
		for _, core := range cores[:n] {
			for _, p := range a.prefixes {
				try(p + core)
			}
		}
	}
	return found
}

// numberWords may sit between an alias and its value: "patient # 6", "pt no. 6".
var numberWords = []string{"#", "no", "nr", "number"}

// aliasBefore finds an alias word just before token i, skipping one number word.
func (s *idShape) aliasBefore(tokens []string, i int) (idAlias, bool) {
	for back := 1; back <= 2 && i-back >= 0; back++ {
		word := strings.TrimRight(strings.ToLower(cleanToken(tokens[i-back])), "#.")
		for _, a := range s.aliases {
			if a.word == word {
				return a, true
			}
		}
		if !slices.Contains(numberWords, word) {
			break
		}
	}
	return idAlias{}, false
}

// unitWords after a number mean a measurement, not an ID: "pt 45 yo".
var unitWords = []string{"yo", "y", "yr", "yrs", "year", "years", "kg", "lb", "lbs", "mg", "mcg", "g", "ml", "l", "min", "mins", "minutes", "hours", "hrs", "days", "weeks", "%", "mmhg", "bpm"}

func isMeasurement(tokens []string, i int) bool {
	return i+1 < len(tokens) && slices.Contains(unitWords, strings.ToLower(cleanToken(tokens[i+1])))
}

// cleanToken drops what surrounds an ID in prose: quotes, a final full stop,
// a possessive.
func cleanToken(tok string) string {
	tok = strings.Trim(tok, "'‘’")
	for _, suffix := range []string{"'s", "’s"} {
		tok = strings.TrimSuffix(tok, suffix)
	}
	return strings.TrimRight(tok, ".")
}

// caseVariants are s as typed, lowered and raised, each once: the first n of v. An array, not a
// slice, because every token of every line the trainee types has its variants tried.
func caseVariants(s string) (v [3]string, n int) {
	v[0], n = s, 1
	for _, c := range [2]string{strings.ToLower(s), strings.ToUpper(s)} {
		if !slices.Contains(v[:n], c) {
			v[n] = c
			n++
		}
	}
	return v, n
}

// trimSeparator drops the one separator between an alias and its value ("pt#6", "patient-6").
// Only one: "patient_-1" names no patient, not patient_1.
func trimSeparator(s string) string {
	if s != "" && strings.ContainsRune("#_-.:", rune(s[0])) {
		return s[1:]
	}
	return s
}

func startsWithSeparatorOrDigit(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return s != "" && (unicode.IsDigit(r) || strings.ContainsRune("#_-.", r))
}

// LookAlike returns the ID among ids that id could be mistaken for: one that differs from it only
// in letter case or in zeros leading a number ("patient_01" and "patient_1", "MRN0012" and
// "mrn12"). "" when none does, or when id is among them.
func LookAlike(id string, ids []string) string {
	key := lookKey(id)
	for _, other := range ids {
		if other != id && lookKey(other) == key {
			return other
		}
	}
	return ""
}

// leadingZeros finds the zeros that open a number and change nothing of its value.
var leadingZeros = regexp.MustCompile(`(^|[^0-9])0+([0-9])`)

// lookKey is id in lower case with each number's leading zeros dropped.
func lookKey(id string) string {
	return leadingZeros.ReplaceAllString(strings.ToLower(id), "$1$2")
}
