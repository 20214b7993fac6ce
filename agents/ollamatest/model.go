// Package ollamatest runs a real `ollama serve` with a tiny random-weight llama model, so that
// ward's Ollama code can be tested against the real server, its scheduler and its KV cache,
// on a CPU, in seconds, with nothing downloaded.
package ollamatest

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	"github.com/ollama/ollama/fs/ggml"
)

// Shape of the tiny model. Small enough to load in well under a second; the context is long
// enough for full-history prompts at ward's default num_ctx of 8192. The wide feed-forward layer
// makes the per-token weight work outweigh attention over a few thousand tokens of context, as in
// real models, so prompt timings (and so KV-cache savings) scale with the tokens evaluated.
const (
	embeddingLength = 64
	blockCount      = 2
	headCount       = 4
	feedForward     = 8192
	contextLength   = 16384
	ropeFreqBase    = 10000
	weightSeed      = 20250405
)

// Token types of llama.cpp's SentencePiece loader (tokenizer.ggml.token_type).
const (
	tokenNormal  int32 = 1
	tokenUnknown int32 = 2
	tokenControl int32 = 3
	tokenByte    int32 = 6
)

// Chat control tokens used by Template. They are single tokens, so role markers cost one
// token each and never split the cacheable prefix in odd places.
var controlTokens = []string{"<|system|>", "<|user|>", "<|assistant|>", "<|tool|>", "<|end|>"}

const (
	unkID = 0
	bosID = 1
	eosID = 2
)

// vocab is a byte-level SentencePiece vocabulary: the special tokens, one <0xXX> token per byte
// (the SPM byte fallback, so any UTF-8 text tokenizes), then "▁" (SentencePiece's space) and
// every other printable ASCII character as a normal token.
type vocab struct {
	tokens []string
	scores []float32
	types  []int32
}

func newVocab() vocab {
	var v vocab
	add := func(token string, kind int32) {
		v.tokens = append(v.tokens, token)
		v.scores = append(v.scores, -float32(len(v.scores)))
		v.types = append(v.types, kind)
	}
	add("<unk>", tokenUnknown)
	add("<s>", tokenControl)
	add("</s>", tokenControl)
	for _, t := range controlTokens {
		add(t, tokenControl)
	}
	for b := range 256 {
		add(fmt.Sprintf("<0x%02X>", b), tokenByte)
	}
	add("▁", tokenNormal)
	for c := '!'; c <= '~'; c++ {
		add(string(c), tokenNormal)
	}
	return v
}

func (v vocab) id(token string) uint32 {
	for i, t := range v.tokens {
		if t == token {
			return uint32(i)
		}
	}
	panic("ollamatest: token not in vocabulary: " + token)
}

// WriteTinyModel writes the tiny llama model as GGUF. The weights are random but fixed by a
// seed, so every run serves the same model.
//
// Dimension 0 of every token embedding is a constant "anchor", and the output projection reads a
// per-token bias from it: printable tokens get a positive bias, byte and control tokens a negative
// one. So the random model writes mostly printable ASCII, which keeps its replies readable, its
// JSON-constrained strings short, and its re-tokenized replies identical to what it generated.
func WriteTinyModel(w io.WriteSeeker) error {
	v := newVocab()
	kv := ggml.KV{
		"general.architecture":                   "llama",
		"general.name":                           ModelName,
		"general.file_type":                      uint32(0), // all F32
		"llama.vocab_size":                       uint32(len(v.tokens)),
		"llama.context_length":                   uint32(contextLength),
		"llama.embedding_length":                 uint32(embeddingLength),
		"llama.block_count":                      uint32(blockCount),
		"llama.feed_forward_length":              uint32(feedForward),
		"llama.attention.head_count":             uint32(headCount),
		"llama.attention.head_count_kv":          uint32(headCount),
		"llama.attention.layer_norm_rms_epsilon": float32(1e-5),
		"llama.rope.dimension_count":             uint32(embeddingLength / headCount),
		"llama.rope.freq_base":                   float32(ropeFreqBase),
		"tokenizer.ggml.model":                   "llama",
		"tokenizer.ggml.tokens":                  v.tokens,
		"tokenizer.ggml.scores":                  v.scores,
		"tokenizer.ggml.token_type":              v.types,
		"tokenizer.ggml.bos_token_id":            uint32(bosID),
		"tokenizer.ggml.eos_token_id":            uint32(eosID),
		"tokenizer.ggml.unknown_token_id":        uint32(unkID),
		"tokenizer.ggml.eot_token_id":            v.id("<|end|>"),
		"tokenizer.ggml.add_bos_token":           true,
		"tokenizer.ggml.add_eos_token":           false,
	}
	return ggml.WriteGGUF(w, kv, tinyTensors(v))
}

func tinyTensors(v vocab) []ggml.Tensor {
	rng := rand.New(rand.NewPCG(weightSeed, weightSeed))
	normal := func(rows, cols int, std float64) []float32 {
		d := make([]float32, rows*cols)
		for i := range d {
			d[i] = float32(rng.NormFloat64() * std)
		}
		return d
	}
	ones := func(n int) []float32 {
		d := make([]float32, n)
		for i := range d {
			d[i] = 1
		}
		return d
	}
	n := len(v.tokens)

	embd := normal(n, embeddingLength, 0.3)
	output := normal(n, embeddingLength, 0.2)
	for tok := range n {
		embd[tok*embeddingLength] = 1
		output[tok*embeddingLength] = outputBias(v.types[tok], tok)
	}

	ts := []ggml.Tensor{
		tensor("token_embd.weight", embd, n, embeddingLength),
		tensor("output_norm.weight", ones(embeddingLength), embeddingLength),
		tensor("output.weight", output, n, embeddingLength),
	}
	// Attention and feed-forward add small updates to the residual stream, so the anchor
	// dimension keeps steering the output; ffn_down sums feedForward terms, hence its smaller scale.
	const std = 0.05
	downStd := std / math.Sqrt(feedForward/128)
	for b := range blockCount {
		name := func(s string) string { return fmt.Sprintf("blk.%d.%s.weight", b, s) }
		ts = append(ts,
			tensor(name("attn_norm"), ones(embeddingLength), embeddingLength),
			tensor(name("attn_q"), normal(embeddingLength, embeddingLength, std), embeddingLength, embeddingLength),
			tensor(name("attn_k"), normal(embeddingLength, embeddingLength, std), embeddingLength, embeddingLength),
			tensor(name("attn_v"), normal(embeddingLength, embeddingLength, std), embeddingLength, embeddingLength),
			tensor(name("attn_output"), normal(embeddingLength, embeddingLength, std), embeddingLength, embeddingLength),
			tensor(name("ffn_norm"), ones(embeddingLength), embeddingLength),
			tensor(name("ffn_gate"), normal(feedForward, embeddingLength, std), feedForward, embeddingLength),
			tensor(name("ffn_up"), normal(feedForward, embeddingLength, std), feedForward, embeddingLength),
			tensor(name("ffn_down"), normal(embeddingLength, feedForward, downStd), embeddingLength, feedForward),
		)
	}
	return ts
}

// outputBias is the weight on the anchor dimension: after the final RMS norm the anchor is about
// 3, so ±2 here moves a logit by about ±6. End-of-sequence stays neutral: rare, but possible.
func outputBias(kind int32, tok int) float32 {
	switch {
	case tok == eosID:
		return 0
	case kind == tokenNormal:
		return 2
	default:
		return -2
	}
}

// tensor names an F32 tensor. Shape is row-major (outermost first), as ggml.WriteGGUF expects:
// it writes the dimensions reversed, in ggml's innermost-first order.
func tensor(name string, data []float32, shape ...int) ggml.Tensor {
	dims := make([]uint64, len(shape))
	for i, s := range shape {
		dims[i] = uint64(s)
	}
	return ggml.Tensor{Name: name, Kind: 0, Shape: dims, WriterTo: f32s(data)}
}

type f32s []float32

func (d f32s) WriteTo(w io.Writer) (int64, error) {
	if err := binary.Write(w, binary.LittleEndian, []float32(d)); err != nil {
		return 0, err
	}
	return int64(4 * len(d)), nil
}
