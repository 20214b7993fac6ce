package knowledge

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/index/upsidedown"
	"github.com/blevesearch/bleve/v2/index/upsidedown/store/gtreap"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/collector"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
)

// The lexical index is bleve's in-memory index (upsidedown on a gtreap store) with the English
// analyzer, driven through bleve's index, query and collector packages rather than its
// top-level package: that package also links the on-disk scorch engine, whose package
// initialisation alone made every start of ward about 4 ms slower (see BENCHMARKS.md).

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
	idx     index.Index
	mapping *mapping.IndexMappingImpl
}

type lexicalHit struct {
	chunk int
	score float64
}

// newMapping indexes the three fields for search only: nothing stored, no term vectors, no
// doc values and no composite _all field, since chunks are kept in memory and the index
// only ranks them.
func newMapping() *mapping.IndexMappingImpl {
	doc := mapping.NewDocumentStaticMapping()
	for _, f := range fieldBoosts {
		fm := mapping.NewTextFieldMapping()
		fm.Store, fm.IncludeTermVectors, fm.IncludeInAll, fm.DocValues = false, false, false, false
		doc.AddFieldMappingsAt(f.name, fm)
	}
	doc.AddSubDocumentMapping("_all", mapping.NewDocumentDisabledMapping())
	m := mapping.NewIndexMapping()
	m.DefaultAnalyzer = en.AnalyzerName
	m.DefaultMapping = doc
	return m
}

// buildLexical indexes every chunk, reporting how many are done after each batch.
func buildLexical(ctx context.Context, lib Library, chunks []chunk, progress func(done int)) (*lexicalIndex, error) {
	queue := index.NewAnalysisQueue(runtime.GOMAXPROCS(0))
	defer queue.Close() // analysis is only needed while indexing
	idx, err := upsidedown.NewUpsideDownCouch(gtreap.Name, map[string]any{"path": ""}, queue)
	if err != nil {
		return nil, err
	}
	if err := idx.Open(); err != nil {
		return nil, err
	}
	l := &lexicalIndex{idx: idx, mapping: newMapping()}
	for start := 0; start < len(chunks); start += indexBatch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		end := min(start+indexBatch, len(chunks))
		batch := index.NewBatch()
		for i := start; i < end; i++ {
			c := lib.Cards[chunks[i].card]
			s := c.Sections[chunks[i].section]
			doc := document.NewDocument(docID(i))
			fields := map[string]string{"title": c.Title, "section": s.Heading, "text": s.Text}
			if err := l.mapping.MapDocument(doc, fields); err != nil {
				return nil, fmt.Errorf("index %s › %s: %w", c.ID, s.Heading, err)
			}
			batch.Update(doc)
		}
		if err := idx.Batch(batch); err != nil {
			return nil, err
		}
		progress(end)
	}
	return l, nil
}

// docID orders documents as chunks are ordered, so ties in score keep the library's order.
func docID(chunk int) string { return fmt.Sprintf("%06d", chunk) }

// search returns up to n chunks matching any word of q, best first.
func (l *lexicalIndex) search(ctx context.Context, q string, n int) ([]lexicalHit, error) {
	var parts []query.Query
	for _, f := range fieldBoosts {
		m := query.NewMatchQuery(q)
		m.SetField(f.name)
		m.SetBoost(f.boost)
		parts = append(parts, m)
	}
	reader, err := l.idx.Reader()
	if err != nil {
		return nil, err
	}
	defer reader.Close()
	searcher, err := query.NewDisjunctionQuery(parts).Searcher(ctx, reader, l.mapping, search.SearcherOptions{})
	if err != nil {
		return nil, err
	}
	defer searcher.Close()
	top := collector.NewTopNCollector(n, 0, search.SortOrder{&search.SortScore{Desc: true}, &search.SortDocID{}})
	if err := top.Collect(ctx, searcher, reader); err != nil {
		return nil, err
	}
	var hits []lexicalHit
	for _, h := range top.Results() {
		i, err := strconv.Atoi(h.ID)
		if err != nil {
			return nil, fmt.Errorf("lexical index returned document %q", h.ID)
		}
		hits = append(hits, lexicalHit{chunk: i, score: h.Score})
	}
	return hits, nil
}

// englishAnalyzer is the index's analyzer, for matching a question's words to a sentence's
// words the same way the index does (stemmed, stop words out). It is made on first use, so
// linking this package adds nothing to ward's start-up.
var englishAnalyzer = sync.OnceValue(func() analysis.Analyzer {
	a, err := registry.NewCache().AnalyzerNamed(en.AnalyzerName)
	if err != nil {
		panic(err) // en registers itself when this package is linked
	}
	return a
})

// terms returns the analysed words of s.
func terms(s string) []string {
	var out []string
	for _, t := range englishAnalyzer().Analyze([]byte(s)) {
		out = append(out, string(t.Term))
	}
	return out
}
