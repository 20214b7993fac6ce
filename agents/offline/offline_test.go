package offline

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
)

var anaphylaxis = &agents.Persona{
	Name: "Dana Reyes", Age: 34, Sex: "F", ChiefComplaint: "throat tightness",
	Opening: "My throat feels tight... I ate something at lunch.",
	Lines:   []string{"It's hard to breathe.", "Please help me.", "My lips feel swollen.", "I feel dizzy."},
}

// looking is the anaphylaxis persona with one look, under the key "now".
func looking(now agents.Look) *agents.Persona {
	p := *anaphylaxis
	p.Looks = map[string]agents.Look{"now": now}
	return &p
}

// request lays a prompt out as the session does: the persona in the static message, the window,
// the turn's facts in the dynamic message, then the trainee's words.
func request(persona *agents.Persona, turn agents.TurnFacts, window []memory.Message, text string) llm.Request {
	msgs := []memory.Message{{Role: memory.RoleSystem, Content: "You are the patient.\n\n" + agents.PersonaSection(persona)}}
	msgs = append(msgs, window...)
	if facts := agents.TurnSection(turn); facts != "" {
		msgs = append(msgs, memory.Message{Role: memory.RoleSystem, Content: facts})
	}
	return llm.Request{Agent: agents.AgentPatient, Messages: append(msgs, memory.Message{Role: memory.RoleUser, Content: text})}
}

func offlineChat(t *testing.T, req llm.Request) (llm.Response, []string) {
	t.Helper()
	var deltas []string
	resp, err := New().Chat(context.Background(), req, func(d string) { deltas = append(deltas, d) })
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(deltas, ""); got != resp.Message.Content {
		t.Fatalf("deltas %q do not add up to %q", got, resp.Message.Content)
	}
	return resp, deltas
}

func TestOfflineDeterministic(t *testing.T) {
	history := []memory.Message{{Role: "user", Content: "hello"}, {Role: "assistant", Content: "hi"}}
	for _, text := range []string{"how do you feel?", "any pain?", "can you hear me?", ""} {
		req := request(anaphylaxis, agents.TurnFacts{}, history, text)
		first, firstDeltas := offlineChat(t, req)
		second, secondDeltas := offlineChat(t, req)
		if first.Message.Content != second.Message.Content || !slices.Equal(firstDeltas, secondDeltas) {
			t.Fatalf("%q: %q then %q", text, first.Message.Content, second.Message.Content)
		}
		if !slices.Contains(anaphylaxis.Lines, first.Message.Content) {
			t.Errorf("%q: reply %q is not one of the persona's lines", text, first.Message.Content)
		}
	}
}

func TestOfflineReplies(t *testing.T) {
	said := []memory.Message{{Role: "assistant", Content: "hi"}}
	tests := []struct {
		name string
		req  llm.Request
		want []string // substrings, in order
	}{
		{"first contact opens", request(anaphylaxis, agents.TurnFacts{FirstContact: true}, nil, "hello, I'm the paramedic"), []string{anaphylaxis.Opening}},
		{"disclosures in character", request(anaphylaxis, agents.TurnFacts{Tells: []agents.Disclosure{{Topic: "allergies", Text: "I'm allergic to peanuts."}}}, said, "any allergies?"),
			[]string{"I'm allergic to peanuts."}},
		{"what was done is not recited", request(anaphylaxis, agents.TurnFacts{Done: []string{"Oxygen on."}, Tells: []agents.Disclosure{{Topic: "medications", Text: "Just my inhaler."}}}, said, "oxygen on, any meds?"),
			[]string{"Just my inhaler."}},
		{"how the patient sounds now", request(looking(agents.Look{Lines: []string{"Can't... breathe."}}), agents.TurnFacts{Look: "now"}, said, "how are you?"),
			[]string{"Can't... breathe."}},
		{"voice only: a fitting line", request(looking(agents.Look{Lines: []string{"It's getting worse, please help me now!", "Leave me…"}}),
			agents.TurnFacts{Look: "now", Speech: agents.SpeechWords, Looks: "eyes open to voice"}, said, "how are you?"), []string{"Leave me…"}},
		{"pain only: what the trainee sees", request(looking(agents.Look{Signs: "snoring"}), agents.TurnFacts{Look: "now", Speech: agents.SpeechSounds,
			Looks: "no words; moans to pain", FirstContact: true, Tells: []agents.Disclosure{{Topic: "allergies", Text: "Peanuts."}}}, nil, "any allergies?"),
			[]string{"*No words; moans to pain; snoring.*"}},
		{"unresponsive: an opening that fits", request(&agents.Persona{Name: "Liam", Opening: "*no response; snoring*", Looks: map[string]agents.Look{"now": {Lines: []string{"*groans*"}}}},
			agents.TurnFacts{Look: "now", Speech: agents.SpeechSounds, FirstContact: true}, nil, "hello?"), []string{"*no response; snoring*"}},
		{"unresponsive: a stage direction fits", request(looking(agents.Look{Lines: []string{"Get off… I'm fine…", "*rhythmic jerking; no response*"}}),
			agents.TurnFacts{Look: "now", Speech: agents.SpeechNone, Looks: "no response"}, said, "hello?"), []string{"*rhythmic jerking; no response*"}},
		{"no patient", request(nil, agents.TurnFacts{}, nil, "hello"), []string{"No patient is active"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, _ := offlineChat(t, tt.req)
			rest := resp.Message.Content
			for _, want := range tt.want {
				i := strings.Index(rest, want)
				if i < 0 {
					t.Fatalf("reply %q lacks %q (in order)", resp.Message.Content, want)
				}
				rest = rest[i+len(want):]
			}
			if strings.Contains(resp.Message.Content, "Oxygen on") || strings.Contains(resp.Message.Content, "Peanuts") {
				t.Errorf("the patient said what is not theirs to say: %q", resp.Message.Content)
			}
			if resp.DoneReason != "stop" || resp.Message.Role != "assistant" || resp.Metrics != (llm.Metrics{}) {
				t.Errorf("response = %+v", resp)
			}
		})
	}
}

func TestOfflineCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New().Chat(ctx, llm.Request{}, nil); err == nil {
		t.Fatal("no error from a cancelled context")
	}
}

// A line the patient said the turn before gives way to another, or to how they look when they
// have no other; said two turns ago, it may come again.
func TestOfflinePatientDoesNotRepeatTheLastTurn(t *testing.T) {
	user := func(s string) memory.Message { return memory.Message{Role: memory.RoleUser, Content: s} }
	said := func(s string) memory.Message { return memory.Message{Role: memory.RoleAssistant, Content: s} }
	p := &agents.Persona{}
	one := agents.Look{Lines: []string{"Much better."}, Signs: "talking comfortably"}
	two := agents.Look{Lines: []string{"Much better.", "Thank you."}}
	cases := []struct {
		name   string
		now    agents.Look
		window []memory.Message
		want   string
	}{
		{"nothing said yet", one, []memory.Message{user("ok")}, "Much better."},
		{"said the turn before, no other line", one, []memory.Message{user("hi"), said("Much better."), user("ok")}, "*Talking comfortably.*"},
		{"said two turns ago", one, []memory.Message{user("hi"), said("Much better."), user("rest"), said("*Talking comfortably.*"), user("ok")}, "Much better."},
	}
	for _, c := range cases {
		if got := inCharacterLine(p, c.now, "ok", c.window); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	got := inCharacterLine(p, two, "ok", []memory.Message{user("hi"), said(inCharacterLine(p, two, "ok", nil)), user("ok")})
	if got == inCharacterLine(p, two, "ok", nil) {
		t.Errorf("with two lines the patient said %q twice running", got)
	}
}
