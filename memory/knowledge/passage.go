package knowledge

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Passage is one retrieved section, numbered for citation. It travels in an agent's facts as
// JSON; how it was found stays out of the prompt.
type Passage struct {
	N       int     `json:"n"` // the citation number, [N]
	CardID  string  `json:"card"`
	Title   string  `json:"title"` // the card's title
	Section string  `json:"section"`
	Source  string  `json:"source"` // guideline, body and year, or the user's file
	Text    string  `json:"text"`
	Score   float64 `json:"-"` // the fused score; higher is better
	Why     Why     `json:"-"`
}

// Why says how a passage was found: its rank and score in each ranking (rank 0: not found by
// that ranking).
type Why struct {
	LexicalRank  int
	LexicalScore float64 // the full-text index's tf-idf score (fulltext.go)
	SemanticRank int
	Similarity   float64 // cosine similarity of the embeddings
}

func (w Why) fused() float64 {
	var s float64
	if w.LexicalRank > 0 {
		s += 1 / float64(rrfK+w.LexicalRank)
	}
	if w.SemanticRank > 0 {
		s += 1 / float64(rrfK+w.SemanticRank)
	}
	return s
}

// String reads "lexical #1 (2.31) + semantic #4 (0.78)", for the inspector.
func (w Why) String() string {
	var parts []string
	if w.LexicalRank > 0 {
		parts = append(parts, fmt.Sprintf("lexical #%d (%.2f)", w.LexicalRank, w.LexicalScore))
	}
	if w.SemanticRank > 0 {
		parts = append(parts, fmt.Sprintf("semantic #%d (%.2f)", w.SemanticRank, w.Similarity))
	}
	return strings.Join(parts, " + ")
}

// Label reads "Title › Section — Source", as the chat shows a source under a message.
func (p Passage) Label() string {
	return p.Title + " › " + p.Section + " — " + p.Source
}

// Citations is a reply checked against what was retrieved.
type Citations struct {
	Text    string    // the reply with every citation of an unretrieved number removed
	Cited   []Passage // the passages cited, in order of first citation
	Removed int       // how many citations were removed
}

// Sources lists the cited passages for display under the message: "[1] Title › Section — Source".
func (c Citations) Sources() []string {
	out := make([]string, len(c.Cited))
	for i, p := range c.Cited {
		out[i] = fmt.Sprintf("[%d] %s", p.N, p.Label())
	}
	return out
}

// citation matches "[1]" and "[1, 3]", with any space before it. Numbers of more than three
// digits are left alone: "[2021]" is a year, not a citation.
var citation = lazyRegexp(`[ \t]*\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]`)

// CheckCitations keeps the reply's citations of retrieved passages and removes the others,
// counting them, so a reply never cites a source ward did not give it.
func CheckCitations(reply string, ps []Passage) Citations {
	byN := map[int]Passage{}
	for _, p := range ps {
		byN[p.N] = p
	}
	c := Citations{Text: reply}
	for {
		// Removing "[3]" from "[[3]7]" leaves a new "[7]", so repeat until nothing is removed;
		// each pass shortens the text.
		text, cited, removed := checkOnce(c.Text, byN)
		c.Text, c.Cited, c.Removed = text, cited, c.Removed+removed
		if removed == 0 {
			return c
		}
	}
}

func checkOnce(reply string, byN map[int]Passage) (string, []Passage, int) {
	var (
		cited   []Passage
		removed int
	)
	text := citation().ReplaceAllStringFunc(reply, func(m string) string {
		lead := m[:strings.Index(m, "[")]
		var keep []string
		fields := strings.Split(strings.Trim(m[len(lead):], "[]"), ",")
		for _, f := range fields {
			n, _ := strconv.Atoi(strings.TrimSpace(f)) // the pattern admits only digits
			p, ok := byN[n]
			if !ok {
				removed++
				continue
			}
			keep = append(keep, strconv.Itoa(n))
			if !slices.ContainsFunc(cited, func(q Passage) bool { return q.N == n }) {
				cited = append(cited, p)
			}
		}
		switch len(keep) {
		case len(fields):
			return m // all retrieved: leave the reply as written
		case 0:
			return ""
		}
		return lead + "[" + strings.Join(keep, ", ") + "]"
	})
	return text, cited, removed
}
