package knowledge

import (
	"context"
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	porterstemmer "github.com/blevesearch/go-porterstemmer"
	"github.com/rivo/uniseg"
)

// The lexical index is a small in-memory inverted index over the chunks' three fields, scored
// as Lucene's classic TF-IDF: for each query term found in a field, √tf × field norm × idf,
// times the term's query weight (its field's boost × idf × the query norm), summed and scaled
// by the share of the query's terms the field matched; the fields' scores are summed and
// scaled by the share of fields that matched. It replaced bleve's in-memory index with the
// English analyzer, and ranks as that did: compared over every eval question, every line of
// the prompt regression and every card's title, headings, sections and sentences (676
// queries), the analysed terms and the top 20 were the same, the scores equal but for the last
// bits of a sum bleve adds in another order (ranks, not scores, decide what is retrieved).
// bleve and what it pulled in (a 136 MB module download, protobuf, geometry) were a quarter of
// a cold build, for a hundred sections (BENCHMARKS.md, "Cold build").

// Fields of an indexed chunk, and how much a match in each counts. The card's title is shared
// by all its sections and a heading is a few words, so a match there counts half as much as
// one in the text.
var fieldBoosts = []struct {
	name  string
	boost float64
}{
	{"title", 0.5},
	{"section", 0.5},
	{"text", 1},
}

// indexBatch is how many chunks are analysed between two progress reports.
const indexBatch = 64

type lexicalIndex struct {
	docs   int
	fields []fieldIndex // as fieldBoosts
}

// fieldIndex is one field of every chunk: each term's postings, and each chunk's length norm.
type fieldIndex struct {
	postings map[string][]posting // in chunk order
	norms    []float64
}

type posting struct {
	chunk, freq int
}

type lexicalHit struct {
	chunk int
	score float64
}

// buildLexical indexes every chunk, reporting how many are done after each batch.
func buildLexical(ctx context.Context, lib Library, chunks []chunk, progress func(done int)) (*lexicalIndex, error) {
	l := &lexicalIndex{docs: len(chunks), fields: make([]fieldIndex, len(fieldBoosts))}
	for f := range l.fields {
		l.fields[f] = fieldIndex{postings: map[string][]posting{}, norms: make([]float64, len(chunks))}
	}
	for start := 0; start < len(chunks); start += indexBatch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		end := min(start+indexBatch, len(chunks))
		for i := start; i < end; i++ {
			c := lib.Cards[chunks[i].card]
			s := c.Sections[chunks[i].section]
			for f, text := range []string{c.Title, s.Heading, s.Text} {
				l.fields[f].add(i, terms(text))
			}
		}
		progress(end)
	}
	return l, nil
}

func (fi *fieldIndex) add(chunk int, words []string) {
	// Stored at single precision, as Lucene and bleve store it; the ranking follows from it.
	fi.norms[chunk] = float64(float32(1 / math.Sqrt(float64(len(words)))))
	freq := map[string]int{}
	for _, w := range words {
		freq[w]++
	}
	for w, n := range freq {
		fi.postings[w] = append(fi.postings[w], posting{chunk, n})
	}
}

// search returns up to n chunks matching any word of q, best first; equal scores keep the
// library's order.
func (l *lexicalIndex) search(ctx context.Context, q string, n int) ([]lexicalHit, error) {
	words := terms(q)
	if len(words) == 0 || n <= 0 {
		return nil, ctx.Err()
	}
	idf := func(f int, w string) float64 {
		return 1 + math.Log(float64(l.docs)/float64(len(l.fields[f].postings[w])+1))
	}
	// The query norm, summed field by field as the nested query adds its weights.
	var squares float64
	for f, fb := range fieldBoosts {
		var field float64
		for _, w := range words {
			x := fb.boost * idf(f, w)
			field += x * x
		}
		squares += field
	}
	queryNorm := 1 / math.Sqrt(squares)
	scores, fieldsMatched := map[int]float64{}, map[int]int{}
	for f, fb := range fieldBoosts {
		sums, matched := map[int]float64{}, map[int]int{}
		for _, w := range words {
			i := idf(f, w)
			weight := fb.boost * i * queryNorm
			for _, p := range l.fields[f].postings[w] {
				sums[p.chunk] += math.Sqrt(float64(p.freq)) * l.fields[f].norms[p.chunk] * i * weight
				matched[p.chunk]++
			}
		}
		for c, sum := range sums {
			scores[c] += sum * (float64(matched[c]) / float64(len(words)))
			fieldsMatched[c]++
		}
	}
	hits := make([]lexicalHit, 0, len(scores))
	for c, s := range scores {
		hits = append(hits, lexicalHit{chunk: c, score: s * (float64(fieldsMatched[c]) / float64(len(fieldBoosts)))})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		return hits[i].chunk < hits[j].chunk
	})
	return hits[:min(n, len(hits))], ctx.Err()
}

// terms returns the analysed words of s, as the index analyses every field and every query:
// the words by Unicode's word boundaries (UAX #29), a possessive 's cut, lower case, English
// stop words out, each reduced to its Porter stem.
func terms(s string) []string {
	var out []string
	for rest := s; rest != ""; {
		var word string
		word, rest, _ = uniseg.FirstWordInString(rest, -1)
		if !strings.ContainsFunc(word, isWordRune) {
			continue // space and punctuation
		}
		word = strings.ToLower(cutPossessive(word))
		if stopWords[word] {
			continue
		}
		out = append(out, string(porterstemmer.StemWithoutLowerCasing([]rune(word))))
	}
	return out
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }

// cutPossessive drops a final 's, with any of the apostrophes English text is typed with.
func cutPossessive(w string) string {
	last, size := utf8.DecodeLastRuneInString(w)
	if last != 's' && last != 'S' {
		return w
	}
	before, size2 := utf8.DecodeLastRuneInString(w[:len(w)-size])
	if before == '\'' || before == '’' || before == '＇' {
		return w[:len(w)-size-size2]
	}
	return w
}

// stopWords are the Snowball project's English stop words: words too common to tell one
// passage from another.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`i me my myself we our ours ourselves you your yours yourself
		yourselves he him his himself she her hers herself it its itself they them their theirs
		themselves what which who whom this that these those am is are was were be been being have
		has had having do does did doing would should could ought i'm you're he's she's it's we're
		they're i've you've we've they've i'd you'd he'd she'd we'd they'd i'll you'll he'll she'll
		we'll they'll isn't aren't wasn't weren't hasn't haven't hadn't doesn't don't didn't won't
		wouldn't shan't shouldn't can't cannot couldn't mustn't let's that's who's what's here's
		there's when's where's why's how's a an the and but if or because as until while of at by
		for with about against between into through during before after above below to from up
		down in out on off over under again further then once here there when where why how all
		any both each few more most other some such no nor not only own same so than too very`) {
		m[w] = true
	}
	return m
}()
