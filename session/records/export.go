package records

import (
	"fmt"
	"strings"
	"time"

	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/persist"
)

// Transcript is a shift's chat, or one patient's, as `ward export` and the TUI's /export write it.
type Transcript struct {
	SessionID     string         `json:"session_id"`
	Shift         string         `json:"shift,omitempty"`
	Conversations []Conversation `json:"conversations"`
}

// Conversation is one patient's chat; PatientID "" is what was said before any patient was active.
type Conversation struct {
	PatientID string              `json:"patient_id,omitempty"`
	Name      string              `json:"name,omitempty"`
	Messages  []TranscriptMessage `json:"messages"`
}

// TranscriptMessage is one message with when it was said, in wall time and sim time, and by whom.
type TranscriptMessage struct {
	At      time.Time `json:"at"`
	Sim     string    `json:"sim"` // T+mm:ss on the shift's sim clock
	Speaker string    `json:"speaker"`
	Role    string    `json:"role"`
	Text    string    `json:"text"`
}

// Export reads the latest shift's chat: one patient's, or with patientID "" every conversation.
func Export(store *persist.Store, patientID string) (Transcript, error) {
	info, err := latest(store)
	if err != nil {
		return Transcript{}, err
	}
	tr := Transcript{SessionID: info.ID, Shift: info.Shift}
	err = store.View(info.ID, func(tx *persist.Tx) error {
		reg, err := tx.Registry()
		if err != nil {
			return err
		}
		ids := reg.IDs()
		if patientID != "" {
			if _, ok := reg.Patients[patientID]; !ok {
				return fmt.Errorf("no patient %q in this shift (roster: %v) — pass --patient ID", patientID, ids)
			}
			ids = []string{patientID}
		} else {
			ids = append([]string{""}, ids...)
		}
		for _, id := range ids {
			msgs, err := tx.History(id)
			if err != nil {
				return err
			}
			if id == "" && len(msgs) == 0 {
				continue
			}
			name, _ := reg.Patients[id].Facts["name"].(string)
			tr.Conversations = append(tr.Conversations, TranscriptOf(id, name, msgs))
		}
		return nil
	})
	return tr, err
}

func TranscriptOf(patientID, name string, msgs []memory.Message) Conversation {
	c := Conversation{PatientID: patientID, Name: name, Messages: []TranscriptMessage{}}
	for _, m := range msgs {
		c.Messages = append(c.Messages, TranscriptMessage{At: m.At, Sim: memory.Clock(m.Sim), Speaker: speaker(m),
			Role: m.Role, Text: m.Content})
	}
	return c
}

// speaker names who said a message, as the chat shows it.
func speaker(m memory.Message) string {
	switch {
	case MemberOf(m) != "":
		return MemberOf(m)
	case m.Role == "user":
		return "You"
	case m.Role == "tool" && m.ToolName != "":
		return "tool " + m.ToolName
	case m.Agent != "":
		return m.Agent
	case m.Role == "assistant":
		return "assistant"
	}
	return memory.SystemAgent
}

// Markdown writes the transcript with a heading per conversation and, for each message, the
// speaker, the sim time and the wall-clock time.
func (t Transcript) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# ward transcript — shift %s", t.SessionID)
	if t.Shift != "" {
		fmt.Fprintf(&b, " (%s)", t.Shift)
	}
	b.WriteString("\n")
	for _, c := range t.Conversations {
		b.WriteString("\n")
		b.WriteString(c.Markdown())
	}
	return b.String()
}

// Markdown writes one conversation under its own heading.
func (c Conversation) Markdown() string {
	var b strings.Builder
	switch {
	case c.PatientID == "":
		b.WriteString("## Before any patient was active\n")
	case c.Name != "":
		fmt.Fprintf(&b, "## %s — %s\n", c.PatientID, c.Name)
	default:
		fmt.Fprintf(&b, "## %s\n", c.PatientID)
	}
	if len(c.Messages) == 0 {
		b.WriteString("\nNo messages.\n")
	}
	for _, m := range c.Messages {
		fmt.Fprintf(&b, "\n**%s** · %s · %s\n\n%s\n", m.Speaker, m.Sim, m.At.Local().Format("2006-01-02 15:04:05"),
			strings.TrimRight(m.Text, "\n"))
	}
	return b.String()
}
