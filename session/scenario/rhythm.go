package scenario

import (
	"slices"
	"strings"
	"unicode"
)

// Rhythm is the cardiac rhythm a state shows on the monitor: one of Rhythms. A state's `rhythm:`
// starts with one and may go on with detail a 12-lead would add ("sinus rhythm; ST elevation in
// II, III and aVF"); the engine, the strip and the arrest algorithm read only the rhythm.
type Rhythm string

// The rhythms, by the names a scenario writes. VT is ventricular tachycardia with a pulse.
const (
	SinusRhythm       Rhythm = "sinus rhythm"
	SinusTachycardia  Rhythm = "sinus tachycardia"
	SinusBradycardia  Rhythm = "sinus bradycardia"
	AtrialFib         Rhythm = "atrial fibrillation"
	SVT               Rhythm = "SVT"
	VT                Rhythm = "VT"
	PulselessVT       Rhythm = "pulseless VT"
	CoarseVF          Rhythm = "coarse VF"
	FineVF            Rhythm = "fine VF"
	Asystole          Rhythm = "asystole"
	PEA               Rhythm = "PEA"
	CompleteHeartBlck Rhythm = "complete heart block"
)

// Rhythms lists every rhythm, in a stable order.
var Rhythms = []Rhythm{
	SinusRhythm, SinusTachycardia, SinusBradycardia, AtrialFib, SVT, VT, PulselessVT, CoarseVF, FineVF,
	Asystole, PEA, CompleteHeartBlck,
}

// ParseRhythm reads the rhythm a state's text starts with: the longest name of Rhythms it opens
// with (in any case), ending at a word boundary. An empty text is sinus rhythm, which is what a
// state that says nothing shows.
func ParseRhythm(text string) (Rhythm, bool) {
	text = strings.TrimSpace(text)
	if text == "" {
		return SinusRhythm, true
	}
	best := Rhythm("")
	for _, r := range Rhythms {
		n := len(r)
		if len(text) >= n && strings.EqualFold(text[:n], string(r)) && wordEnds(text, n) && n > len(best) {
			best = r
		}
	}
	return best, best != ""
}

func wordEnds(text string, n int) bool {
	if n == len(text) {
		return true
	}
	c := rune(text[n])
	return !unicode.IsLetter(c) && !unicode.IsDigit(c)
}

// Shockable rhythms are treated with a shock: VF and pulseless VT (Resuscitation Council UK,
// Adult ALS guidelines 2021).
func (r Rhythm) Shockable() bool { return r == CoarseVF || r == FineVF || r == PulselessVT }

// Arrest reports whether the rhythm has no cardiac output: a cardiac arrest.
func (r Rhythm) Arrest() bool { return r.Shockable() || r == Asystole || r == PEA }

// RhythmKind is the state's rhythm, as ParseRhythm reads it.
func (st *State) RhythmKind() Rhythm { return st.rhythm }

// SaidVF is VF named without saying coarse or fine, which names either.
const SaidVF = "VF"

// checkRhythmNames insists a match's rhythms are ones a trainee can name.
func (c *checker) checkRhythmNames(names Names, p string) {
	for _, n := range names {
		if n != SaidVF && !slices.Contains(Rhythms, Rhythm(n)) {
			c.at(p, "unknown rhythm %q (want VF or one of %q)", n, Rhythms)
		}
	}
}

// checkRhythms insists every state's rhythm starts with one of Rhythms.
func (c *checker) checkRhythms(s *Scenario) {
	for _, name := range s.StateNames() {
		if st := s.States[name]; st != nil {
			if _, ok := ParseRhythm(st.Rhythm); !ok {
				c.at("states."+name+".rhythm", "rhythm %q must start with one of %q", st.Rhythm, Rhythms)
			}
		}
	}
}
