package session

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	sc "github.com/ward-sim/ward/session/scenario"
)

// caseMask is what a trainee's screen may not show: "[masked]" in place of the words that name the
// diagnosis of any patient on the roster.
const caseMask = "[masked]"

// caseMasker masks a roster's case terms in one pass over a message, whatever the roster's size.
// A turn masks the reasoning it shows twice; matching every term of every patient with its own
// regular expression made that grow with the roster. The masker is built when the roster's
// scenarios change: their terms, each once, and one case-folded automaton that finds which of
// them a message holds. Only those are then replaced, by their whole-word patterns, so the result
// is what replacing every term in roster order gives (mask_test.go holds it to that):
//   - a term applied a second time finds nothing its first application left, and a term the
//     message does not hold can only match across an inserted mask, which it could only do if it
//     holds a bracket or lies inside "[masked]"; such terms are always tried;
//   - folding each rune to the least of its case-fold orbit, as (?i) matches, keeps every
//     match a substring of the folded message.
type caseMasker struct {
	scenarios []string // the roster's scenario ids, each once, in roster order: what it was built for
	terms     []string // their terms, each once, in the order masking applies them
	always    []bool   // by term: tried whatever the message holds
	find      foldAutomaton
}

// caseMasker is the roster's masker, built on first use after the roster's scenarios change.
func (r *registry) caseMasker() *caseMasker {
	if r.masker == nil {
		r.masker = newCaseMasker(r.lib, r.rosterScenarios())
	}
	return r.masker
}

// rosterScenarios are the ids of the roster's scenarios, each once, in roster order.
func (r *registry) rosterScenarios() []string {
	var ids []string
	for _, id := range r.roster {
		if sid := scenarioOf(r.Patients[id].Facts); !slices.Contains(ids, sid) {
			ids = append(ids, sid)
		}
	}
	return ids
}

// forgetMaskerUnlessRoster drops the masker when the roster's scenarios are no longer those it was
// built for; a switch of patient keeps it.
func (r *registry) forgetMaskerUnlessRoster() {
	if r.masker != nil && !slices.Equal(r.masker.scenarios, r.rosterScenarios()) {
		r.masker = nil
	}
}

func newCaseMasker(lib *sc.Library, scenarios []string) *caseMasker {
	m := &caseMasker{scenarios: scenarios}
	for _, id := range scenarios {
		if scen, ok := lib.Get(id); ok {
			for _, t := range caseTerms(scen) {
				if !slices.Contains(m.terms, t) {
					m.terms = append(m.terms, t)
				}
			}
		}
	}
	folded := make([][]byte, len(m.terms))
	m.always = make([]bool, len(m.terms))
	mask := string(foldString(caseMask))
	for i, t := range m.terms {
		folded[i] = foldString(t)
		f := string(folded[i])
		m.always[i] = strings.ContainsAny(f, "[]") || len(f) > 0 && strings.Contains(mask, f)
	}
	m.find = newFoldAutomaton(folded)
	return m
}

// mask replaces each term the text holds, as whole words, with caseMask.
func (m *caseMasker) mask(text string) string {
	held := m.find.holds(text, len(m.terms))
	for i, t := range m.terms {
		if held != nil && held[i] || m.always[i] {
			if re := termPattern(t, false); re.MatchString(text) {
				text = re.ReplaceAllLiteralString(text, caseMask)
			}
		}
	}
	return text
}

// foldAutomaton is an Aho–Corasick automaton over case-folded terms: one pass over a text finds
// every term it holds.
type foldAutomaton struct {
	root  [256]int32 // the root's transitions, dense: most bytes of a text begin nothing
	nodes []foldNode
}

type foldNode struct {
	next  []foldEdge // sorted by byte
	fail  int32
	terms []int32 // the terms that end here, by their own path or a suffix of it
}

type foldEdge struct {
	b  byte
	to int32
}

func newFoldAutomaton(terms [][]byte) foldAutomaton {
	a := foldAutomaton{nodes: []foldNode{{}}}
	for i, t := range terms {
		if len(t) == 0 {
			continue
		}
		n := int32(0)
		for _, b := range t {
			to, ok := a.nodes[n].edge(b)
			if !ok {
				to = int32(len(a.nodes))
				a.nodes = append(a.nodes, foldNode{})
				a.nodes[n].next = insertEdge(a.nodes[n].next, foldEdge{b, to})
			}
			n = to
		}
		a.nodes[n].terms = append(a.nodes[n].terms, int32(i))
	}
	for _, e := range a.nodes[0].next {
		a.root[e.b] = e.to
	}
	queue := make([]int32, 0, len(a.nodes))
	for _, e := range a.nodes[0].next {
		queue = append(queue, e.to)
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, e := range a.nodes[n].next {
			f := a.step(a.nodes[n].fail, e.b)
			a.nodes[e.to].fail = f
			a.nodes[e.to].terms = append(a.nodes[e.to].terms, a.nodes[f].terms...)
			queue = append(queue, e.to)
		}
	}
	return a
}

func insertEdge(edges []foldEdge, e foldEdge) []foldEdge {
	i, _ := slices.BinarySearchFunc(edges, e.b, func(x foldEdge, b byte) int { return int(x.b) - int(b) })
	return slices.Insert(edges, i, e)
}

func (n *foldNode) edge(b byte) (int32, bool) {
	for _, e := range n.next {
		if e.b == b {
			return e.to, true
		}
	}
	return 0, false
}

// step follows b from node n, falling back along the failure links.
func (a *foldAutomaton) step(n int32, b byte) int32 {
	for n != 0 {
		if to, ok := a.nodes[n].edge(b); ok {
			return to
		}
		n = a.nodes[n].fail
	}
	return a.root[b]
}

// holds reports, by term, which of the terms the text holds once folded; nil when it holds none,
// which is most messages, so they cost no allocation.
func (a *foldAutomaton) holds(text string, terms int) []bool {
	var held []bool
	var buf [utf8.UTFMax]byte
	n := int32(0)
	visit := func(b byte) {
		n = a.step(n, b)
		if ts := a.nodes[n].terms; len(ts) > 0 {
			if held == nil {
				held = make([]bool, terms)
			}
			for _, t := range ts {
				held[t] = true
			}
		}
	}
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf {
			visit(foldASCII(c))
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		for _, b := range utf8.AppendRune(buf[:0], foldRune(r)) {
			visit(b)
		}
		i += size
	}
	return held
}

// foldRune is the least rune of r's case-fold orbit: two runes (?i) matches alike fold alike.
func foldRune(r rune) rune {
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		least = min(least, f)
	}
	return least
}

// foldASCII is foldRune for an ASCII byte: a letter's orbit is least in upper case ('k' and the
// Kelvin sign K fold to 'K', 's' and the long s to 'S').
func foldASCII(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// foldString folds every rune of s.
func foldString(s string) []byte {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		out = utf8.AppendRune(out, foldRune(r))
	}
	return out
}
