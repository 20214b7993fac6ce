package ollamatest

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/template"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/agents/ollama"
)

// ModelName is the name CreateTinyModel gives the tiny model in the server.
const ModelName = "ward-tiny"

// Template renders a chat in the tiny model's control tokens. It ranges over .Messages, so
// Ollama renders the whole conversation (the prefix that the KV cache reuses), and it
// mentions .Tools, so Show reports the "tools" capability; its ToolCalls block tells Ollama how to
// parse a tool call out of a reply.
const Template = `{{- if .Tools }}<|system|>Tools:
{{ range .Tools }}{{ json . }}
{{ end }}<|end|>
{{ end }}
{{- range .Messages }}<|{{ .Role }}|>{{ .Content }}
{{- range .ToolCalls }}{"name": "{{ .Function.Name }}", "arguments": {{ json .Function.Arguments }}}{{ end }}<|end|>
{{ end }}<|assistant|>`

// Render is the prompt text the server builds from ward's request with Template (Ollama's own
// template package, so consecutive messages of one role are joined as the server joins them).
// The tiny model's vocabulary spends one token per byte, except the role markers, which are one
// token each.
func Render(req llm.Request) (string, error) {
	tmpl, err := template.Parse(Template)
	if err != nil {
		return "", err
	}
	wire := ollama.Wire(ModelName, req)
	var b strings.Builder
	err = tmpl.Execute(&b, template.Values{Messages: wire.Messages, Tools: wire.Tools})
	return b.String(), err
}

// CreateTinyModel writes the tiny model, uploads it as a blob and creates it under name.
func CreateTinyModel(ctx context.Context, client *api.Client, name string) error {
	f, err := os.CreateTemp("", "ward-tiny-*.gguf")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	defer f.Close()

	if err := WriteTinyModel(f); err != nil {
		return fmt.Errorf("write tiny model: %w", err)
	}
	digest, err := sha256Digest(f)
	if err != nil {
		return err
	}
	if err := client.CreateBlob(ctx, digest, f); err != nil {
		return fmt.Errorf("upload tiny model blob: %w", err)
	}

	req := &api.CreateRequest{
		Model:      name,
		Files:      map[string]string{"ward-tiny.gguf": digest},
		Template:   Template,
		Parameters: map[string]any{"stop": []string{"<|end|>"}},
	}
	if err := client.Create(ctx, req, func(api.ProgressResponse) error { return nil }); err != nil {
		return fmt.Errorf("create %s: %w", name, err)
	}
	return nil
}

// sha256Digest hashes f from its start and leaves it rewound, ready to upload.
func sha256Digest(f *os.File) (string, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	return fmt.Sprintf("sha256:%x", h.Sum(nil)), nil
}
