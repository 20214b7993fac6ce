// Package offline is the backend that answers with no model. It reads the prompt the session
// built, as a model would: the patient and engine facts under their headings, the window and the
// trainee's words. The same request always gives the same reply.
package offline

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"strings"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
)

// Backend answers from the facts in the prompt. Its Response.Metrics stay zero: nothing was
// evaluated, and zero is how the session knows to report prompt_eval_count as null.
type Backend struct{}

func New() *Backend { return &Backend{} }

func (*Backend) Name() string  { return "offline" }
func (*Backend) Model() string { return "" }

// InProcess: the answer is worked out here, from the prompt, with nothing to wait on.
func (*Backend) InProcess() {}

// offlineChunks is how many pieces the reply streams in, so the UI's
// streaming path runs the same way as with a model.
const offlineChunks = 4

func (o *Backend) Chat(ctx context.Context, req llm.Request, onDelta func(string)) (llm.Response, error) {
	facts := agents.ReadFacts(req.Messages)
	reply := replyTo(req, facts)
	if req.Format != nil {
		reply = structured(reply, entityDelta(req.Agent, facts))
	}
	for _, chunk := range splitChunks(reply, offlineChunks) {
		if err := ctx.Err(); err != nil {
			return llm.Response{}, err
		}
		if onDelta != nil {
			onDelta(chunk)
		}
	}
	return llm.Response{
		Message:    memory.Message{Role: memory.RoleAssistant, Content: reply},
		DoneReason: "stop",
	}, nil
}

// delta is an agent's entity update in the agent output format.
type delta struct {
	Conversation map[string]any `json:"entities_to_update"`
	Derived      map[string]any `json:"derived_entities_to_update"`
}

// structured wraps a reply in the agent output format, with the entity delta, so the session
// parses offline answers exactly as it parses a model's.
func structured(reply string, d delta) string {
	out := struct {
		Reply string `json:"reply"`
		delta
	}{Reply: reply, delta: d}
	b, err := json.Marshal(out)
	if err != nil {
		return reply // an unencodable delta value: the reply alone still gets through
	}
	return string(b)
}

// replyTo picks what to say: a team member's reading of the engine's facts, or the patient's
// voice, within what the patient can say now. What was done is the nurse's to confirm, not the
// patient's to recite.
func replyTo(req llm.Request, f agents.Facts) string {
	input := lastUserText(req.Messages)
	if reply, ok := teamReply(req.Agent, input, f.Turn); ok {
		return reply
	}
	p := f.Persona
	if p == nil {
		return "No patient is active. Name a patient to begin."
	}
	now := p.Looks[f.Turn.Look]
	switch f.Turn.Speech {
	case agents.SpeechWords, agents.SpeechSounds, agents.SpeechNone:
		return beyondWords(f.Turn, p, now, input)
	}
	var parts []string
	if f.Turn.FirstContact && p.Opening != "" {
		parts = append(parts, p.Opening)
	}
	for _, d := range f.Turn.Tells {
		if d.Again { // a real patient notices the question asked again
			parts = append(parts, "I told you — "+d.Text)
			continue
		}
		parts = append(parts, d.Text)
	}
	if len(parts) == 0 {
		parts = append(parts, inCharacterLine(p, now, input, req.Messages))
	}
	return strings.Join(parts, "\n\n")
}

// beyondWords is a patient who cannot talk in sentences: their opening on first contact or one
// of their lines, whichever fits what they can say now, or else what the trainee sees.
func beyondWords(t agents.TurnFacts, p *agents.Persona, now agents.Look, input string) string {
	if t.FirstContact && p.Opening != "" && agents.WithinSpeech(p.Opening, t.Speech) {
		return p.Opening
	}
	var fit []string
	for _, l := range now.Lines {
		if agents.WithinSpeech(l, t.Speech) {
			fit = append(fit, l)
		}
	}
	if len(fit) == 0 {
		return agents.Described(agents.JoinLooks(t.Looks, now.Signs))
	}
	return fit[byInput(len(fit), input)]
}

// inCharacterLine chooses a line by hashing the input, so replies vary with what the trainee
// typed yet replay identically. How the patient sounds now outweighs their usual lines. A line
// said a moment ago gives way to another, or, when there is no other, to how the patient looks.
func inCharacterLine(p *agents.Persona, now agents.Look, input string, window []memory.Message) string {
	lines := p.Lines
	if len(now.Lines) > 0 {
		lines = now.Lines
	}
	if len(lines) == 0 {
		if p.ChiefComplaint != "" {
			return "It's still my " + p.ChiefComplaint + "."
		}
		return "I'm not sure what you mean."
	}
	first := byInput(len(lines), input)
	for k := range lines {
		if line := lines[(first+k)%len(lines)]; !recentlySaid(window, line) {
			return line
		}
	}
	if now.Signs != "" {
		return agents.Described(now.Signs)
	}
	return lines[first]
}

// recentlySaid reports whether a reply of the turn before holds line: the assistant messages
// between the last two user messages of the window.
func recentlySaid(window []memory.Message, line string) bool {
	users := 0
	for i := len(window) - 1; i >= 0 && users < 2; i-- {
		switch window[i].Role {
		case memory.RoleUser:
			users++
		case memory.RoleAssistant:
			if users == 1 && strings.Contains(window[i].Content, line) {
				return true
			}
		}
	}
	return false
}

// byInput is an index below n chosen by hashing the input.
func byInput(n int, input string) int {
	h := fnv.New32a()
	h.Write([]byte(input))
	return int(h.Sum32() % uint32(n))
}

func lastUserText(msgs []memory.Message) string {
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
