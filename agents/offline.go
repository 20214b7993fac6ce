package agents

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"strings"

	"github.com/ollama/ollama/api"
)

// Offline answers with no model, from Request.Scene and the last user
// message only. The same request always gives the same reply.
//
// Its Response.Metrics stay zero: nothing was evaluated, and zero is how the
// session knows to report prompt_eval_count as null. Token estimates come
// from Request.Sections, which the session fills for every backend.
type Offline struct{}

func NewOffline() *Offline { return &Offline{} }

func (*Offline) Name() string  { return "offline" }
func (*Offline) Model() string { return "" }

// offlineChunks is how many pieces the reply streams in, so the UI's
// streaming path runs the same way as with a model.
const offlineChunks = 4

func (o *Offline) Chat(ctx context.Context, req Request, onDelta func(string)) (Response, error) {
	reply := offlineReply(req)
	if req.Format != nil {
		reply = structured(reply, req.Scene)
	}
	for _, chunk := range splitChunks(reply, offlineChunks) {
		if err := ctx.Err(); err != nil {
			return Response{}, err
		}
		if onDelta != nil {
			onDelta(chunk)
		}
	}
	return Response{
		Message:    api.Message{Role: "assistant", Content: reply},
		DoneReason: "stop",
	}, nil
}

// structured wraps a reply in the agent output format, with the scene's entity delta, so the
// session parses offline answers exactly as it parses a model's.
func structured(reply string, scene *Scene) string {
	out := struct {
		Reply string `json:"reply"`
		EntityDelta
	}{Reply: reply}
	if scene != nil {
		out.EntityDelta = scene.Entities
	}
	if out.Conversation == nil {
		out.Conversation = map[string]any{}
	}
	if out.Derived == nil {
		out.Derived = map[string]any{}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return reply // an unencodable delta value: the reply alone still gets through
	}
	return string(b)
}

// offlineReply picks what to say: a team member's reading of the engine's
// facts, or the patient's voice with whatever the engine decided happens
// this turn.
func offlineReply(req Request) string {
	scene := req.Scene
	if scene == nil {
		scene = &Scene{}
	}
	if reply, ok := OfflineTeamReply(req.Agent, scene.Team); ok {
		return reply
	}
	var parts []string
	for _, r := range scene.Reactions {
		parts = append(parts, "_"+strings.TrimSpace(r)+"_")
	}
	if scene.Persona == nil {
		return strings.Join(append(parts, "No patient is active. Name a patient to begin."), "\n\n")
	}
	if !hasAssistantMessage(req.Messages) && scene.Persona.Opening != "" {
		parts = append(parts, scene.Persona.Opening)
	}
	for _, d := range scene.Disclosures {
		parts = append(parts, d.Text)
	}
	if len(parts) == 0 {
		parts = append(parts, inCharacterLine(scene.Persona, lastUserText(req.Messages)))
	}
	return strings.Join(parts, "\n\n")
}

// inCharacterLine chooses a generic line by hashing the input, so replies
// vary with what the trainee typed yet replay identically.
func inCharacterLine(p *Persona, input string) string {
	if len(p.Lines) == 0 {
		if p.ChiefComplaint != "" {
			return "It's still my " + p.ChiefComplaint + "."
		}
		return "I'm not sure what you mean."
	}
	h := fnv.New32a()
	h.Write([]byte(input))
	return p.Lines[h.Sum32()%uint32(len(p.Lines))]
}

func hasAssistantMessage(msgs []api.Message) bool {
	for _, m := range msgs {
		if m.Role == "assistant" {
			return true
		}
	}
	return false
}

func lastUserText(msgs []api.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			return msgs[i].Content
		}
	}
	return ""
}

// splitChunks cuts text at word boundaries into at most n pieces whose
// concatenation is text.
func splitChunks(text string, n int) []string {
	words := strings.SplitAfter(text, " ")
	per := (len(words) + n - 1) / n
	var chunks []string
	for start := 0; start < len(words); start += per {
		end := min(start+per, len(words))
		chunks = append(chunks, strings.Join(words[start:end], ""))
	}
	return chunks
}
