package agents

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
)

var anaphylaxis = &Persona{
	Name: "Dana Reyes", Age: 34, Sex: "F", ChiefComplaint: "throat tightness",
	Opening: "My throat feels tight... I ate something at lunch.",
	Lines:   []string{"It's hard to breathe.", "Please help me.", "My lips feel swollen.", "I feel dizzy."},
}

func offlineChat(t *testing.T, req Request) (Response, []string) {
	t.Helper()
	var deltas []string
	resp, err := NewOffline().Chat(context.Background(), req, func(d string) { deltas = append(deltas, d) })
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(deltas, ""); got != resp.Message.Content {
		t.Fatalf("deltas %q do not add up to %q", got, resp.Message.Content)
	}
	return resp, deltas
}

func userTurn(history []api.Message, text string) []api.Message {
	return append(slices.Clone(history), api.Message{Role: "user", Content: text})
}

func TestOfflineDeterministic(t *testing.T) {
	history := []api.Message{{Role: "user", Content: "hello"}, {Role: "assistant", Content: "hi"}}
	for _, text := range []string{"how do you feel?", "any pain?", "can you hear me?", ""} {
		req := Request{Messages: userTurn(history, text), Scene: &Scene{Persona: anaphylaxis}}
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
	tests := []struct {
		name     string
		messages []api.Message
		scene    *Scene
		want     []string // substrings, in order
	}{
		{"first contact opens", userTurn(nil, "hello, I'm the paramedic"), &Scene{Persona: anaphylaxis}, []string{anaphylaxis.Opening}},
		{"disclosures in character", userTurn([]api.Message{{Role: "assistant", Content: "hi"}}, "any allergies?"),
			&Scene{Persona: anaphylaxis, Disclosures: []Disclosure{{Topic: "allergies", Text: "I'm allergic to peanuts."}}},
			[]string{"I'm allergic to peanuts."}},
		{"reactions then disclosure", userTurn([]api.Message{{Role: "assistant", Content: "hi"}}, "oxygen on, any meds?"),
			&Scene{Persona: anaphylaxis, Reactions: []string{"SpO2 is climbing on oxygen"}, Disclosures: []Disclosure{{Topic: "medications", Text: "Just my inhaler."}}},
			[]string{"_SpO2 is climbing on oxygen_", "Just my inhaler."}},
		{"no patient", userTurn(nil, "hello"), &Scene{}, []string{"No patient is active"}},
		{"no scene", userTurn(nil, "hello"), nil, []string{"No patient is active"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, _ := offlineChat(t, Request{Messages: tt.messages, Scene: tt.scene})
			rest := resp.Message.Content
			for _, want := range tt.want {
				i := strings.Index(rest, want)
				if i < 0 {
					t.Fatalf("reply %q lacks %q (in order)", resp.Message.Content, want)
				}
				rest = rest[i+len(want):]
			}
			if resp.DoneReason != "stop" || resp.Message.Role != "assistant" || resp.Metrics != (api.Metrics{}) {
				t.Errorf("response = %+v", resp)
			}
		})
	}
}

func TestOfflineCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewOffline().Chat(ctx, Request{}, nil); err == nil {
		t.Fatal("no error from a cancelled context")
	}
}
