// Package backend makes the model backends the composition root (main) hands a shift: Ollama when
// it answers, the offline backend otherwise, and Ollama's embedding model for the protocol cards.
// It is the one package outside main that names both backends, so the turn (session) and the
// screens link neither.
package backend

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/agents/offline"
	"github.com/ward-sim/ward/agents/ollama"
	"github.com/ward-sim/ward/memory/knowledge"
)

// Choose honours --backend and reports whether the model can call tools. auto prefers
// Ollama and falls back to offline with a one-line notice that says why.
func Choose(ctx context.Context, backend, model string, stall time.Duration, notices func(string)) (llm.Backend, bool, error) {
	switch backend {
	case "offline":
		return offline.New(), false, nil
	case "auto", "ollama":
	default:
		return nil, false, fmt.Errorf("--backend must be auto, offline or ollama, not %q", backend)
	}
	m, err := ollama.FromEnvironment(model, ollama.Options{StallTimeout: stall})
	if err != nil {
		return nil, false, err
	}
	probeCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	caps, err := m.Probe(probeCtx)
	if err != nil {
		if backend == "ollama" {
			return nil, false, err
		}
		notices("using the offline backend: " + err.Error())
		return offline.New(), false, nil
	}
	return m, caps.Tools, nil
}

// Knowledge is the protocol cards, with the user's own from dir and semantic search on
// embedModel; store keeps the embeddings between runs (nil: for this process only). Nothing is
// read until first use.
func Knowledge(dir, embedModel string, store knowledge.VectorStore) (*knowledge.KB, error) {
	if dir != "" {
		if info, err := os.Stat(dir); err != nil || !info.IsDir() {
			return nil, fmt.Errorf("--knowledge %s: not a directory of cards", dir)
		}
	}
	opts := knowledge.Options{Dir: dir, Model: embedModel, Store: store}
	if embedModel != "" {
		m, err := ollama.FromEnvironment(embedModel, ollama.Options{})
		if err != nil {
			return nil, err
		}
		opts.Embedder = m
	}
	return knowledge.New(opts), nil
}
