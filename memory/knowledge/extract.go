package knowledge

import (
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// extractSentences is how many sentences an extractive answer quotes, and extractPassages how
// many of the top passages it considers.
const (
	extractSentences = 2
	extractPassages  = 3
)

// quantities pairs a kind of question that asks for a number with the kind of number that
// answers it: a dose, a time, or a level such as a target or a score.
var quantities = []struct{ asks, states func() *regexp.Regexp }{
	{
		lazyRegexp(`(?i)\b(doses?|dosage|dosing|how much|how many|mg|micrograms?|mcg|amount)\b`),
		lazyRegexp(`(?i)\d\s*(mg|micrograms?|mcg|g|ml|units?|mmol)\b`),
	},
	{
		lazyRegexp(`(?i)\b(how long|how often|how soon|within|after how|how many (minutes|hours|days)|when)\b`),
		lazyRegexp(`(?i)\d\s*(seconds?|minutes?|mins?|hours?|hrs?|days?)\b`),
	},
	{
		lazyRegexp(`(?i)\b(targets?|range|thresholds?|scores?|level|rate|flow|saturations?|sats|spo2|percent)\b`),
		lazyRegexp(`(?i)\d\s*(%|–\s*\d|-\s*\d|mmol|kpa|mmhg|per minute|/min|l/min|°c|or more|or less|or fewer)|\bscores? \d`),
	},
}

// quantityWeight is what stating the kind of number a question asks for is worth, in
// matched words: the sentence with the dose answers a dose question.
const quantityWeight = 2

// Extract answers a question without a model, by quoting: among the top passages it takes
// the one whose best sentence matches the question best, and quotes that passage's best
// sentences (at most two) in their order, followed by its citation. It reports false when there is no
// passage.
//
// A sentence scores a point for each of the question's words it holds, half a point for each
// other question word in its card's title or section heading (the context it is read in), and
// quantityWeight when the question asks for a number and the sentence states one of that kind.
// Ranking sentences this way corrects the full-text ranking, which favours short sections that
// repeat the question's words over the section that states the dose.
func Extract(question string, ps []Passage) (string, bool) {
	if len(ps) == 0 {
		return "", false
	}
	want := map[string]bool{}
	for _, t := range terms(question) {
		want[t] = true
	}
	var asked []*regexp.Regexp
	for _, q := range quantities {
		if q.asks().MatchString(question) {
			asked = append(asked, q.states())
		}
	}
	var (
		bestPassage  Passage
		bestScored   []scoredSentence
		bestSentence = -1.0
	)
	for _, p := range ps[:min(extractPassages, len(ps))] {
		scored := scoreSentences(p, want, asked)
		if top := scored[0].score; top > bestSentence {
			bestPassage, bestScored, bestSentence = p, scored, top
		}
	}
	return quote(splitSentences(bestPassage.Text), bestScored) + " [" + strconv.Itoa(bestPassage.N) + "]", true
}

// quote joins the best extractSentences sentences in the passage's order, list items on lines
// of their own. A runner-up scoring under half the best is left out, and a sentence that
// introduces a list ("…the Sepsis Six:") brings the list.
func quote(sentences []sentence, scored []scoredSentence) string {
	picked := map[int]bool{}
	for _, s := range scored[:min(extractSentences, len(scored))] {
		if s.score < scored[0].score/2 {
			break
		}
		picked[s.i] = true
		if !strings.HasSuffix(sentences[s.i].text, ":") {
			continue
		}
		for j := s.i + 1; j < len(sentences) && sentences[j].item; j++ {
			picked[j] = true
		}
	}
	var b strings.Builder
	for i, s := range sentences {
		switch {
		case !picked[i]:
			continue
		case s.item:
			b.WriteString("\n- ")
		case b.Len() > 0:
			b.WriteString(" ")
		}
		b.WriteString(s.text)
	}
	return strings.TrimPrefix(b.String(), "\n")
}

type scoredSentence struct {
	i     int // position in the passage
	score float64
}

// scoreSentences returns the passage's sentences, best first (ties in passage order).
func scoreSentences(p Passage, want map[string]bool, asked []*regexp.Regexp) []scoredSentence {
	context := map[string]bool{}
	for _, t := range terms(p.Title + " " + p.Section) {
		if want[t] {
			context[t] = true
		}
	}
	sentences := splitSentences(p.Text)
	out := make([]scoredSentence, len(sentences))
	for i, sen := range sentences {
		s := sen.text
		found := map[string]bool{}
		for _, t := range terms(s) {
			if want[t] {
				found[t] = true
			}
		}
		score := float64(len(found))
		for t := range context {
			if !found[t] {
				score += 0.5
			}
		}
		if slices.ContainsFunc(asked, func(states *regexp.Regexp) bool { return states.MatchString(s) }) {
			score += quantityWeight
		}
		out[i] = scoredSentence{i, score}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].score > out[b].score })
	return out
}

// sentenceEnd is a full stop, question or exclamation mark followed by a space and a capital
// letter or digit, so that "0.5 mg" and "e.g. a" do not end a sentence.
var sentenceEnd = lazyRegexp(`([.!?])\s+([A-Z0-9])`)

type sentence struct {
	text string
	item bool // a list item
}

// splitSentences cuts a section into sentences: each list item is one, and prose is cut at
// sentence ends. Markdown list markers and emphasis are dropped. A section's text is never
// empty, so neither is the result.
func splitSentences(text string) []sentence {
	var (
		out   []sentence
		prose []string
	)
	flush := func(item bool) {
		joined := strings.Join(prose, " ")
		prose = nil
		marked := sentenceEnd().ReplaceAllString(joined, "$1\x00$2")
		for _, s := range strings.Split(marked, "\x00") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, sentence{s, item})
			}
		}
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.ReplaceAll(strings.TrimSpace(line), "**", "")
		item, isItem := listItem(line)
		switch {
		case line == "":
			flush(false)
		case isItem:
			flush(false)
			prose = append(prose, item)
			flush(true)
		default:
			prose = append(prose, line)
		}
	}
	flush(false)
	if len(out) == 0 {
		out = append(out, sentence{strings.TrimSpace(text), false})
	}
	return out
}

// listItem strips a markdown list marker ("- ", "* ", "1. ").
func listItem(line string) (string, bool) {
	for _, m := range []string{"- ", "* ", "+ "} {
		if rest, ok := strings.CutPrefix(line, m); ok {
			return rest, true
		}
	}
	if i := strings.Index(line, ". "); i > 0 && i <= 3 {
		if _, err := strconv.Atoi(line[:i]); err == nil {
			return line[i+2:], true
		}
	}
	return "", false
}
