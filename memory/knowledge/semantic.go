package knowledge

import (
	"context"
	"fmt"
	"math"
	"sort"
)

// Embedder turns texts into vectors with an embedding model, one vector per text in order
// (Ollama's /api/embed does this).
type Embedder interface {
	Embed(ctx context.Context, model string, texts []string) ([][]float32, error)
}

// VectorStore keeps embeddings between runs, keyed by model and the SHA-256 of the embedded
// text, so that no text is embedded twice with the same model. persist.Store implements it.
type VectorStore interface {
	Embeddings(model string, keys [][32]byte) (map[[32]byte][]float32, error)
	PutEmbeddings(model string, vectors map[[32]byte][]float32) error
}

// embedBatch is how many chunks go to the embedder in one call: small enough that progress
// moves and a failure loses little, large enough to amortise the call.
const embedBatch = 16

// embedChunks returns a unit vector for every chunk. Vectors the store holds are reused; the
// rest are embedded in batches, each batch stored as soon as it is back, with progress
// reported after each.
func embedChunks(ctx context.Context, lib Library, chunks []chunk, opts Options, progress func(done, total int)) ([][]float32, error) {
	var keys [][32]byte
	byHash := map[[32]byte]chunk{} // one chunk per text: two sections may read the same
	for _, c := range chunks {
		if _, ok := byHash[c.hash]; !ok {
			byHash[c.hash] = c
			keys = append(keys, c.hash)
		}
	}
	have := map[[32]byte][]float32{}
	if opts.Store != nil {
		stored, err := opts.Store.Embeddings(opts.Model, keys)
		if err != nil {
			return nil, fmt.Errorf("read stored embeddings: %w", err)
		}
		have = stored
	}
	var missing []chunk
	for _, k := range keys {
		if _, ok := have[k]; !ok {
			missing = append(missing, byHash[k])
		}
	}
	for start := 0; start < len(missing); start += embedBatch {
		if start == 0 {
			progress(0, len(missing))
		}
		batch := missing[start:min(start+embedBatch, len(missing))]
		texts := make([]string, len(batch))
		for i, c := range batch {
			card := lib.Cards[c.card]
			texts[i] = embedText(card, card.Sections[c.section])
		}
		vecs, err := opts.Embedder.Embed(ctx, opts.Model, texts)
		if err != nil {
			return nil, fmt.Errorf("embed with %s: %w", opts.Model, err)
		}
		if len(vecs) != len(texts) {
			return nil, fmt.Errorf("embed with %s: %d vectors for %d texts", opts.Model, len(vecs), len(texts))
		}
		fresh := map[[32]byte][]float32{}
		for i, c := range batch {
			fresh[c.hash] = vecs[i]
			have[c.hash] = vecs[i]
		}
		if opts.Store != nil {
			if err := opts.Store.PutEmbeddings(opts.Model, fresh); err != nil {
				return nil, fmt.Errorf("store embeddings: %w", err)
			}
		}
		progress(start+len(batch), len(missing))
	}
	out := make([][]float32, len(chunks))
	for i, c := range chunks {
		v, err := unit(have[c.hash])
		if err != nil {
			return nil, fmt.Errorf("embedding of %s › %s: %w", lib.Cards[c.card].ID, lib.Cards[c.card].Sections[c.section].Heading, err)
		}
		if i > 0 && len(v) != len(out[0]) {
			return nil, fmt.Errorf("model %s gave vectors of %d and %d dimensions", opts.Model, len(out[0]), len(v))
		}
		out[i] = v
	}
	return out, nil
}

// unit returns v scaled to length 1, so that a dot product is the cosine similarity.
func unit(v []float32) ([]float32, error) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 || math.IsNaN(sum) || math.IsInf(sum, 0) {
		return nil, fmt.Errorf("empty, zero or non-finite vector")
	}
	n := float32(1 / math.Sqrt(sum))
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = x * n
	}
	return out, nil
}

type semanticHit struct {
	chunk      int
	similarity float64
}

// rankSemantic returns the n chunks most similar to the unit vector q, best first.
func rankSemantic(vectors [][]float32, q []float32, n int) []semanticHit {
	hits := make([]semanticHit, 0, len(vectors))
	for i, v := range vectors {
		if len(v) != len(q) {
			continue
		}
		var dot float32
		for j := range v {
			dot += v[j] * q[j]
		}
		hits = append(hits, semanticHit{i, float64(dot)})
	}
	sort.SliceStable(hits, func(a, b int) bool { return hits[a].similarity > hits[b].similarity })
	return hits[:min(n, len(hits))]
}
