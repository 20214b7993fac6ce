package analyzer

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
)

// exampleStreams feed the generated IDs' variable parts: the first example
// takes the shortest repetitions ("patient_4"), the second one more
// ("patient_15"), so the two differ the way real IDs do.
var exampleStreams = []struct {
	digits string
	repeat int
}{{"4827163950", 1}, {"1593726048", 2}}

// ExampleIDs returns up to two IDs that match pattern, for prompts and for
// the "expected format" reply: ^patient_[0-9]+$ → patient_4, patient_15;
// ^MRN[0-9]{7}$ → MRN4827163, MRN1593726. A pattern it cannot sample gives
// none.
func ExampleIDs(pattern *regexp.Regexp) []string {
	re, err := syntax.Parse(pattern.String(), syntax.Perl)
	if err != nil {
		return nil
	}
	var ids []string
	for _, s := range exampleStreams {
		g := exampleGen{digits: s.digits, repeat: s.repeat}
		g.walk(re)
		id := g.b.String()
		if len(id) <= MaxPatientIDLen && pattern.MatchString(id) && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// exampleGen writes one string the regexp accepts, choosing each variable
// character from digits in turn.
type exampleGen struct {
	b      strings.Builder
	digits string
	pos    int
	repeat int // how many times an open repetition (+, *, {n,}) runs
}

func (g *exampleGen) walk(re *syntax.Regexp) {
	switch re.Op {
	case syntax.OpLiteral:
		g.b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		g.b.WriteRune(g.pick(re.Rune))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		g.b.WriteRune(g.pick([]rune{'a', 'z'}))
	case syntax.OpCapture:
		g.walk(re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			g.walk(sub)
		}
	case syntax.OpAlternate:
		g.walk(re.Sub[0])
	case syntax.OpQuest:
		g.walk(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		g.times(re.Sub[0], g.repeat)
	case syntax.OpRepeat:
		n := max(re.Min, g.repeat)
		if re.Max >= 0 {
			n = min(n, re.Max)
		}
		g.times(re.Sub[0], n)
	}
}

func (g *exampleGen) times(re *syntax.Regexp, n int) {
	for range n {
		g.walk(re)
	}
}

// pick chooses a rune from a class given as lo-hi pairs: the next digit of
// the stream, counted into the class ([0-9] gives the digit itself).
func (g *exampleGen) pick(ranges []rune) rune {
	if len(ranges) == 0 {
		return 'x'
	}
	k := int(g.digits[g.pos%len(g.digits)] - '0')
	g.pos++
	var size int
	for i := 0; i+1 < len(ranges); i += 2 {
		size += int(ranges[i+1]-ranges[i]) + 1
	}
	k %= size
	for i := 0; i+1 < len(ranges); i += 2 {
		span := int(ranges[i+1]-ranges[i]) + 1
		if k < span {
			return ranges[i] + rune(k)
		}
		k -= span
	}
	return ranges[0]
}
