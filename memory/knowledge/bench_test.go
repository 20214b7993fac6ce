package knowledge

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// corpus writes user cards that, with the built-in ones, make exactly n chunks: copies of the
// built-in sections, each made distinct by a line of its own.
func corpus(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	cards := builtin(b)
	total := len(Library{Cards: cards}.chunks())
	for i := 0; total < n; i++ {
		c := cards[i%len(cards)]
		var text strings.Builder
		fmt.Fprintf(&text, "---\nid: copy-%d\ntitle: %s (copy %d)\n---\n", i, c.Title, i)
		for _, s := range c.Sections {
			if total == n {
				break
			}
			fmt.Fprintf(&text, "## %s\n%s\nCopy %d of this section.\n\n", s.Heading, s.Text, i)
			total++
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("copy-%d.md", i)), []byte(text.String()), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	lib, err := Load(dir)
	if err != nil || len(lib.chunks()) != n || len(lib.Problems) > 0 {
		b.Fatalf("corpus of %d chunks, %v, %v", len(lib.chunks()), err, lib.Problems)
	}
	return dir
}

// BenchmarkRetrieve1000 measures one retrieval over 1,000 chunks and reports the 95th
// percentile of every iteration. "fused" adds semantic ranking with an in-process fake
// embedder of 768 dimensions (nomic-embed-text's size), so it measures ward's share of a
// query; the model's own time to embed the question comes on top.
func BenchmarkRetrieve1000(b *testing.B) {
	dir := corpus(b, 1000)
	qs, err := EvalQuestions()
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []struct {
		name string
		opts Options
	}{
		{"lexical", Options{Dir: dir}},
		{"fused", Options{Dir: dir, Embedder: &fakeEmbedder{dims: 768}, Model: "fake-embed"}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			kb := New(mode.opts)
			if _, err := kb.Build(context.Background()); err != nil {
				b.Fatal(err)
			}
			times := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				r, err := kb.Retrieve(context.Background(), qs[i%len(qs)].Question, 5)
				times = append(times, time.Since(start))
				if err != nil || len(r.Passages) == 0 || r.Semantic != (mode.opts.Embedder != nil) {
					b.Fatalf("retrieve: %+v, %v", r, err)
				}
			}
			b.StopTimer()
			slices.Sort(times)
			p95 := times[(len(times)*95+99)/100-1]
			b.ReportMetric(float64(p95.Microseconds())/1000, "p95-ms")
		})
	}
}

// BenchmarkBuild measures building the index on first use: the built-in cards alone, and
// 1,000 chunks.
func BenchmarkBuild(b *testing.B) {
	for _, c := range []struct {
		name string
		dir  string
	}{{"builtin", ""}, {"1000", corpus(b, 1000)}} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := New(Options{Dir: c.dir}).Build(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
