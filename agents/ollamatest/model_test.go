package ollamatest

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/fs/ggml"
	"github.com/ollama/ollama/template"
)

func TestTinyModelDecodesAsLlama(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "tiny.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := WriteTinyModel(f); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	m, _, err := ggml.Decode(f, -1)
	if err != nil {
		t.Fatal(err)
	}

	kv := m.KV()
	for _, c := range []struct {
		name      string
		got, want uint64
	}{
		{"block_count", kv.BlockCount(), blockCount},
		{"embedding_length", kv.EmbeddingLength(), embeddingLength},
		{"head_count", kv.HeadCount(), headCount},
		{"context_length", kv.ContextLength(), contextLength},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	if a := kv.Architecture(); a != "llama" {
		t.Errorf("architecture = %q", a)
	}
	if kv.Float("rope.freq_base") != ropeFreqBase {
		t.Errorf("rope.freq_base = %v", kv.Float("rope.freq_base"))
	}

	tokens := kv.Strings("tokenizer.ggml.tokens")
	for c := '!'; c <= '~'; c++ {
		if !slices.Contains(tokens, string(c)) {
			t.Errorf("printable %q missing from vocabulary", c)
		}
	}
	for _, tok := range []string{"▁", "<0x0A>", "<s>", "</s>", "<unk>", "<|end|>"} {
		if !slices.Contains(tokens, tok) {
			t.Errorf("%q missing from vocabulary", tok)
		}
	}

	want := 3 + 9*blockCount
	if n := len(m.Tensors().Items()); n != want {
		t.Errorf("%d tensors, want %d", n, want)
	}
	embd := m.Tensors().GroupLayers()["token_embd"]["weight"]
	if embd == nil || embd.Shape[0] != embeddingLength || embd.Shape[1] != uint64(len(tokens)) {
		t.Errorf("token_embd.weight = %+v, want ggml shape [%d %d]", embd, embeddingLength, len(tokens))
	}
}

func TestTinyModelIsDeterministic(t *testing.T) {
	write := func() []byte {
		f, err := os.Create(filepath.Join(t.TempDir(), "tiny.gguf"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := WriteTinyModel(f); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if !bytes.Equal(write(), write()) {
		t.Fatal("two writes of the tiny model differ")
	}
}

func TestTemplateRendersMessagesAndTools(t *testing.T) {
	tmpl, err := template.Parse(Template)
	if err != nil {
		t.Fatal(err)
	}
	if vars := tmpl.Vars(); !slices.Contains(vars, "messages") || !slices.Contains(vars, "tools") {
		t.Fatalf("template vars %v: want messages and tools", vars)
	}

	var tool api.Tool
	tool.Type = "function"
	tool.Function.Name = "check_vitals"
	msgs := []api.Message{
		{Role: "system", Content: "static"},
		{Role: "user", Content: "hello"},
		{Role: "assistant", ToolCalls: []api.ToolCall{{Function: api.ToolCallFunction{
			Name: "check_vitals", Arguments: api.ToolCallFunctionArguments{"patient_id": "p1"}}}}},
		{Role: "tool", Content: "HR 80"},
	}
	var b strings.Builder
	if err := tmpl.Execute(&b, template.Values{Messages: msgs, Tools: []api.Tool{tool}}); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		`"name":"check_vitals"`,
		"<|system|>static<|end|>",
		"<|user|>hello<|end|>",
		`<|assistant|>{"name": "check_vitals", "arguments": {"patient_id":"p1"}}<|end|>`,
		"<|tool|>HR 80<|end|>",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("rendered prompt lacks %q:\n%s", want, got)
		}
	}
	if !strings.HasSuffix(got, "<|assistant|>") {
		t.Errorf("rendered prompt does not end by opening the assistant turn:\n%s", got)
	}
}
