package knowledge

import (
	"cmp"
	"context"
	"errors"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ward-sim/ward/persist"
)

// fakeEmbedder is a deterministic embedding model: a hashed bag of the analysed words, so
// texts sharing words are similar. alias maps a text to another whose vector it takes, to
// make a query semantically close to a passage it shares no word with.
type fakeEmbedder struct {
	mu       sync.Mutex
	alias    map[string]string
	failAll  error // every call fails
	failOne  error // single-text calls (queries) fail
	dims     int   // 64 when zero
	embedded []string
}

func (f *fakeEmbedder) Embed(_ context.Context, _ string, texts []string) ([][]float32, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failAll != nil {
		return nil, f.failAll
	}
	if f.failOne != nil && len(texts) == 1 {
		return nil, f.failOne
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		f.embedded = append(f.embedded, t)
		if a, ok := f.alias[t]; ok {
			t = a
		}
		dims := cmp.Or(f.dims, 64)
		v := make([]float32, dims)
		for _, w := range terms(t) {
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%uint32(dims)]++
		}
		v[dims-1] += 0.01 // never the zero vector
		out[i] = v
	}
	return out, nil
}

func (f *fakeEmbedder) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.embedded)
}

func (f *fakeEmbedder) reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.embedded = nil
}

func openStore(t *testing.T) *persist.Store {
	t.Helper()
	s, err := persist.Open(filepath.Join(t.TempDir(), "ward.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

var _ VectorStore = (*persist.Store)(nil)

func writeCard(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func retrieve(t *testing.T, kb *KB, q string, k int) Retrieval {
	t.Helper()
	r, err := kb.Retrieve(context.Background(), q, k)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestNewDoesNoWorkAndTheFirstRetrieveBuilds(t *testing.T) {
	var events []Progress
	kb := New(Options{})
	if kb.current() != nil {
		t.Fatal("New built the index; start-up must not pay for it")
	}
	ctx := WithProgress(context.Background(), func(p Progress) { events = append(events, p) })
	r, err := kb.Retrieve(ctx, "naloxone dose", 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Passages) != 3 || r.Passages[0].CardID != "opioid-toxicity" || r.Passages[0].Section != "Naloxone dose" {
		t.Fatalf("passages %+v, want opioid-toxicity › Naloxone dose first", r.Passages)
	}
	last := events[len(events)-1]
	if last.Stage != "index" || last.Done != last.Total || last.Total == 0 {
		t.Errorf("progress %+v, want index progress ending at its total", events)
	}
	for i, p := range r.Passages {
		if p.N != i+1 || p.Why.LexicalRank != i+1 || p.Why.SemanticRank != 0 || r.Semantic {
			t.Errorf("passage %d numbered %d with why %+v; lexical only", i, p.N, p.Why)
		}
	}
}

func TestBuildRebuildsOnlyWhenContentChanges(t *testing.T) {
	dir := t.TempDir()
	writeCard(t, dir, "ward.md", "## Visiting\nVisitors may stay until zebra o'clock.\n")
	kb := New(Options{Dir: dir})
	ctx := context.Background()
	for i, want := range []bool{true, false, false} {
		if rebuilt, err := kb.Build(ctx); err != nil || rebuilt != want {
			t.Fatalf("build %d: rebuilt %v, %v; want %v", i, rebuilt, err, want)
		}
	}
	if got := retrieve(t, kb, "zebra", 1).Passages; len(got) != 1 || got[0].CardID != "ward" {
		t.Fatalf("zebra found %+v", got)
	}

	writeCard(t, dir, "ward.md", "## Visiting\nVisitors may stay until giraffe o'clock.\n")
	if rebuilt, err := kb.Build(ctx); err != nil || !rebuilt {
		t.Fatalf("edited card: rebuilt %v, %v", rebuilt, err)
	}
	if got := retrieve(t, kb, "zebra", 1).Passages; len(got) != 0 {
		t.Errorf("old text still found: %+v", got)
	}
	if got := retrieve(t, kb, "giraffe", 1).Passages; len(got) != 1 {
		t.Errorf("new text not found")
	}

	writeCard(t, dir, "ward.md", "---\nsource: {body: Ward 7}\n---\n## Visiting\nVisitors may stay until giraffe o'clock.\n")
	if rebuilt, _ := kb.Build(ctx); !rebuilt {
		t.Error("a changed source did not rebuild, so passages would cite the old one")
	}
	if err := os.Remove(filepath.Join(dir, "ward.md")); err != nil {
		t.Fatal(err)
	}
	if rebuilt, _ := kb.Build(ctx); !rebuilt {
		t.Error("a removed card did not rebuild")
	}
	if got := retrieve(t, kb, "giraffe", 1).Passages; len(got) != 0 {
		t.Errorf("removed card still found: %+v", got)
	}
}

func TestRetrieveFindsTheUsersCardsWithTheirSource(t *testing.T) {
	kb := New(Options{Dir: "testdata/cards"})
	r := retrieve(t, kb, "which antibiotic for urosepsis at Riverside?", 3)
	if len(r.Passages) == 0 || r.Passages[0].CardID != "local-sepsis" || r.Passages[0].Section != "Antibiotic choice" {
		t.Fatalf("passages %+v, want local-sepsis › Antibiotic choice first", r.Passages)
	}
	if got := r.Passages[0].Source; got != "Riverside Hospital, Adult sepsis pathway (2024)" {
		t.Errorf("source %q", got)
	}
	r = retrieve(t, kb, "night handover in the seminar room", 1)
	if len(r.Passages) != 1 || r.Passages[0].Source != "your file "+filepath.Join("testdata/cards", "sub", "handover-notes.txt") {
		t.Errorf("a card without a source cites its file: %+v", r.Passages)
	}
	if len(kb.Problems()) != 2 {
		t.Errorf("problems %v, want the two bad files", kb.Problems())
	}
}

func TestEmbeddingsAreStoredAndNeverComputedTwice(t *testing.T) {
	dir := t.TempDir()
	writeCard(t, dir, "a.md", "## One\nalpha text\n## Two\nbeta text\n")
	store := openStore(t)
	emb := &fakeEmbedder{}
	var embedEvents []Progress
	opts := Options{Dir: dir, Embedder: emb, Model: "fake-embed", Store: store}
	ctx := WithProgress(context.Background(), func(p Progress) {
		if p.Stage == "embed" {
			embedEvents = append(embedEvents, p)
		}
	})
	if _, err := New(opts).Build(ctx); err != nil {
		t.Fatal(err)
	}
	lib, _ := Load(dir)
	chunks := len(lib.chunks())
	if emb.count() != chunks {
		t.Fatalf("first build embedded %d texts, want every chunk (%d)", emb.count(), chunks)
	}
	if last := embedEvents[len(embedEvents)-1]; last.Done != chunks || last.Total != chunks {
		t.Errorf("embed progress ended at %+v, want %d/%d", last, chunks, chunks)
	}

	// A new process with the same store embeds nothing.
	emb.reset()
	kb := New(opts)
	if _, err := kb.Build(ctx); err != nil {
		t.Fatal(err)
	}
	if emb.count() != 0 {
		t.Errorf("second process embedded %d texts, want 0", emb.count())
	}

	// Editing one section embeds that section only.
	writeCard(t, dir, "a.md", "## One\nalpha text\n## Two\nbeta text, edited\n")
	if rebuilt, err := kb.Build(ctx); err != nil || !rebuilt {
		t.Fatalf("rebuilt %v, %v", rebuilt, err)
	}
	if emb.count() != 1 || !strings.Contains(emb.embedded[0], "beta text, edited") {
		t.Errorf("after one edit embedded %q, want the edited section alone", emb.embedded)
	}

	// Another model is another key.
	emb.reset()
	other := opts
	other.Model = "other-embed"
	if _, err := New(other).Build(ctx); err != nil {
		t.Fatal(err)
	}
	if emb.count() != chunks {
		t.Errorf("a new model embedded %d texts, want %d", emb.count(), chunks)
	}
}

func TestSemanticRankingIsFusedWithLexical(t *testing.T) {
	cards := builtin(t)
	ana, _ := Library{Cards: cards}.Card("anaphylaxis")
	query := "the jab for a swollen throat after satay"
	emb := &fakeEmbedder{alias: map[string]string{query: embedText(ana, ana.Sections[1])}}
	kb := New(Options{Embedder: emb, Model: "fake-embed"})
	r := retrieve(t, kb, query, 5)
	if !r.Semantic || r.Note != "" {
		t.Fatalf("semantic %v, note %q", r.Semantic, r.Note)
	}
	var hit *Passage
	for i := range r.Passages {
		if r.Passages[i].CardID == "anaphylaxis" && r.Passages[i].Section == "Adrenaline" {
			hit = &r.Passages[i]
		}
	}
	if hit == nil || hit.Why.SemanticRank != 1 || hit.Why.Similarity < 0.999 {
		t.Fatalf("anaphylaxis › Adrenaline not first by meaning: %+v", r.Passages)
	}
	for _, p := range r.Passages {
		if want := p.Why.fused(); p.Score != want {
			t.Errorf("%s score %v, want the reciprocal rank fusion %v", p.Section, p.Score, want)
		}
	}
	for i := 1; i < len(r.Passages); i++ {
		if r.Passages[i].Score > r.Passages[i-1].Score {
			t.Errorf("passages not in fused order: %+v", r.Passages)
		}
	}

	both := retrieve(t, kb, "naloxone dose opioid overdose", 1).Passages[0]
	if both.Why.LexicalRank != 1 || both.Why.SemanticRank == 0 || both.Score <= 1/float64(rrfK+1) {
		t.Errorf("a passage found both ways: %+v, want both ranks summed", both)
	}
}

func TestAFailingEmbeddingModelLeavesLexicalSearchWorking(t *testing.T) {
	emb := &fakeEmbedder{failAll: errors.New("model not found")}
	kb := New(Options{Embedder: emb, Model: "missing-model"})
	r := retrieve(t, kb, "glucagon dose", 3)
	if r.Semantic || len(r.Passages) == 0 || !strings.Contains(r.Note, "model not found") {
		t.Fatalf("semantic %v, %d passages, note %q", r.Semantic, len(r.Passages), r.Note)
	}
	emb.failAll = nil
	if rebuilt, err := kb.Build(context.Background()); err != nil || !rebuilt {
		t.Fatalf("after the model came back: rebuilt %v, %v; want a retry", rebuilt, err)
	}
	if r := retrieve(t, kb, "glucagon dose", 3); !r.Semantic {
		t.Errorf("semantic search still off: %q", r.Note)
	}

	emb.failOne = errors.New("timeout")
	r = retrieve(t, kb, "glucagon dose", 3)
	if r.Semantic || len(r.Passages) == 0 || !strings.Contains(r.Note, "timeout") {
		t.Errorf("query embedding failed: semantic %v, note %q", r.Semantic, r.Note)
	}
}

func TestBuildStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	kb := New(Options{})
	if _, err := kb.Build(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if kb.current() != nil {
		t.Error("a cancelled build was kept")
	}
}

func TestRetrieveWithNothingToLookFor(t *testing.T) {
	kb := New(Options{})
	for _, q := range []string{"", "   ", "the of and"} {
		if r := retrieve(t, kb, q, 3); len(r.Passages) != 0 {
			t.Errorf("%q found %d passages", q, len(r.Passages))
		}
	}
	if r := retrieve(t, kb, "naloxone", 0); len(r.Passages) != 0 {
		t.Error("k = 0 returned passages")
	}
}

func TestConcurrentRetrieveAndBuild(t *testing.T) {
	kb := New(Options{Embedder: &fakeEmbedder{}, Model: "fake-embed"})
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if i%4 == 0 {
				if _, err := kb.Build(context.Background()); err != nil {
					t.Error(err)
				}
				return
			}
			if r, err := kb.Retrieve(context.Background(), "oxygen target", 3); err != nil || len(r.Passages) != 3 {
				t.Errorf("retrieve: %d passages, %v", len(r.Passages), err)
			}
		}(i)
	}
	wg.Wait()
}
