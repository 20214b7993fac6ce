package knowledge

import (
	"context"
	"encoding/hex"
	"errors"
	"sort"
	"strings"
	"sync"
)

// Options configure a knowledge base.
type Options struct {
	Dir      string      // --knowledge: a folder of the user's .md and .txt cards; "" for none
	Embedder Embedder    // nil: lexical search only
	Model    string      // the embedding model (--embed-model); semantic search needs it and Embedder
	Store    VectorStore // keeps embeddings between runs; nil keeps them for this process only
}

// Progress reports an index build. Stage "index" counts chunks indexed for full-text search,
// "embed" counts chunks sent to the embedding model (only those no store held).
type Progress struct {
	Stage string
	Done  int
	Total int
}

type progressKey struct{}

// WithProgress returns a context under which a build, whichever call starts it (Build, or the
// first Retrieve), reports its progress to fn: the caller who waits is the one who is told.
func WithProgress(ctx context.Context, fn func(Progress)) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

func report(ctx context.Context, stage string, done, total int) {
	if fn, ok := ctx.Value(progressKey{}).(func(Progress)); ok {
		fn(Progress{Stage: stage, Done: done, Total: total})
	}
}

// KB is the knowledge base: the cards, a full-text index of their sections and, with an
// embedding model, their vectors. New does no work, so start-up is not slowed; the index is
// built on first use, and again only when the cards' content changes. It is safe for
// concurrent use.
type KB struct {
	opts    Options
	buildMu sync.Mutex // one build at a time
	mu      sync.Mutex // guards cur
	cur     *built
}

// built is one immutable state of the knowledge base; a rebuild replaces it whole.
type built struct {
	lib         Library
	chunks      []chunk
	fingerprint [32]byte
	lexical     *lexicalIndex
	vectors     [][]float32 // a unit vector per chunk; nil when semantic search is off
	semanticErr error       // why semantic search is off although it was configured
}

// New returns a knowledge base that reads its cards on first use.
func New(opts Options) *KB { return &KB{opts: opts} }

// Hash is a SHA-256 digest of the cards as passages show them, built-in and the user's: a trace
// records it, because a replay with other cards would send other prompts. It reads the cards.
func (kb *KB) Hash() (string, error) {
	lib, err := Load(kb.opts.Dir)
	if err != nil {
		return "", err
	}
	fp := lib.fingerprint(lib.chunks())
	return hex.EncodeToString(fp[:]), nil
}

// EmbedModel is the embedding model semantic search asks, "" for full-text search only.
func (kb *KB) EmbedModel() string { return kb.opts.Model }

func (kb *KB) semanticConfigured() bool { return kb.opts.Embedder != nil && kb.opts.Model != "" }

// Build reads the cards again and rebuilds the index if their content changed since the last
// build, or if embedding failed last time. It reports whether it rebuilt. Only an unreadable
// --knowledge directory or a cancelled context is an error; a failing embedding model leaves
// lexical search working and is reported in each Retrieval's Note.
func (kb *KB) Build(ctx context.Context) (bool, error) {
	kb.buildMu.Lock()
	defer kb.buildMu.Unlock()
	lib, err := Load(kb.opts.Dir)
	if err != nil {
		return false, err
	}
	chunks := lib.chunks()
	fp := lib.fingerprint(chunks)
	if old := kb.current(); old != nil && old.fingerprint == fp && old.semanticErr == nil {
		return false, nil
	}
	b := &built{lib: lib, chunks: chunks, fingerprint: fp}
	b.lexical, err = buildLexical(ctx, lib, chunks, func(done int) { report(ctx, "index", done, len(chunks)) })
	if err != nil {
		return false, err
	}
	if kb.semanticConfigured() {
		b.vectors, b.semanticErr = embedChunks(ctx, lib, chunks, kb.opts, func(done, total int) { report(ctx, "embed", done, total) })
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
	}
	kb.mu.Lock()
	kb.cur = b
	kb.mu.Unlock()
	return true, nil
}

func (kb *KB) current() *built {
	kb.mu.Lock()
	defer kb.mu.Unlock()
	return kb.cur
}

// ensure builds on first use.
func (kb *KB) ensure(ctx context.Context) (*built, error) {
	if b := kb.current(); b != nil {
		return b, nil
	}
	if _, err := kb.Build(ctx); err != nil {
		return nil, err
	}
	return kb.current(), nil
}

// Problems lists the user files the last build skipped, each saying why.
func (kb *KB) Problems() []error {
	if b := kb.current(); b != nil {
		return b.lib.Problems
	}
	return nil
}

// Retrieval is what one query found.
type Retrieval struct {
	Query    string
	Passages []Passage // best first, numbered from 1 for citation
	Semantic bool      // semantic ranking took part
	Note     string    // why semantic search did not take part although it was configured
}

// fusionDepth is how far down each ranking reciprocal rank fusion looks.
const fusionDepth = 20

// rrfK damps the weight of the first ranks in reciprocal rank fusion; 60 is the usual choice
// and makes neither ranking dominate.
const rrfK = 60

// Retrieve returns the k passages that best answer q: the full-text ranking, fused by
// reciprocal rank fusion with the semantic ranking when an embedding model is configured
// and answers. The first call builds the index.
func (kb *KB) Retrieve(ctx context.Context, q string, k int) (Retrieval, error) {
	r := Retrieval{Query: q}
	if strings.TrimSpace(q) == "" || k <= 0 {
		return r, nil
	}
	b, err := kb.ensure(ctx)
	if err != nil {
		return r, err
	}
	depth := max(k, fusionDepth)
	lex, err := b.lexical.search(ctx, q, depth)
	if err != nil {
		return r, err
	}
	var sem []semanticHit
	if kb.semanticConfigured() {
		sem, err = kb.semanticSearch(ctx, b, q, depth)
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return r, err
		}
		if err != nil {
			r.Note = "semantic search off: " + err.Error()
		}
		r.Semantic = err == nil
	}
	r.Passages = b.fuse(lex, sem, k)
	return r, nil
}

func (kb *KB) semanticSearch(ctx context.Context, b *built, q string, n int) ([]semanticHit, error) {
	if b.semanticErr != nil {
		return nil, b.semanticErr
	}
	vecs, err := kb.opts.Embedder.Embed(ctx, kb.opts.Model, []string{q})
	if err != nil {
		return nil, err
	}
	if len(vecs) != 1 {
		return nil, errors.New("the embedding model returned no vector for the query")
	}
	qv, err := unit(vecs[0])
	if err != nil {
		return nil, err
	}
	return rankSemantic(b.vectors, qv, n), nil
}

// fuse merges the rankings by reciprocal rank fusion: each chunk scores the sum of
// 1/(rrfK+rank) over the rankings that hold it.
func (b *built) fuse(lex []lexicalHit, sem []semanticHit, k int) []Passage {
	why := map[int]*Why{}
	get := func(chunk int) *Why {
		if why[chunk] == nil {
			why[chunk] = &Why{}
		}
		return why[chunk]
	}
	for i, h := range lex {
		w := get(h.chunk)
		w.LexicalRank, w.LexicalScore = i+1, h.score
	}
	for i, h := range sem {
		w := get(h.chunk)
		w.SemanticRank, w.Similarity = i+1, h.similarity
	}
	order := make([]int, 0, len(why))
	for c := range why {
		order = append(order, c)
	}
	score := func(c int) float64 { return why[c].fused() }
	sort.Slice(order, func(i, j int) bool {
		a, c := order[i], order[j]
		if score(a) != score(c) {
			return score(a) > score(c)
		}
		return a < c
	})
	var out []Passage
	for i, c := range order[:min(k, len(order))] {
		card := b.lib.Cards[b.chunks[c].card]
		s := card.Sections[b.chunks[c].section]
		out = append(out, Passage{
			N: i + 1, CardID: card.ID, Title: card.Title, Section: s.Heading,
			Source: sourceLabel(card), Text: s.Text, Score: score(c), Why: *why[c],
		})
	}
	return out
}

// sourceLabel is what a passage cites: the card's source, or for a user's card without one,
// its file.
func sourceLabel(c Card) string {
	if s := c.Source.String(); s != "" {
		return s
	}
	return "your file " + c.Origin
}
