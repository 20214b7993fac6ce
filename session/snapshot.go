package session

import (
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/ward-sim/ward/memory"
)

// SnapshotPrefix marks the ephemeral context message. Only a system message with this prefix is a
// snapshot: a user who types it is storing ordinary text.
const SnapshotPrefix = "PATIENT_CONTEXT_JSON"

type snapshot struct {
	ConversationID string   `json:"conversation_id"`
	PatientID      *string  `json:"patient_id"`
	AllPatientIDs  []string `json:"all_patient_ids"`
	GeneratedAt    string   `json:"generated_at"`
}

// snapshotMessage renders the one system message that grounds agents in who is active.
func snapshotMessage(conversationID, active string, roster []string, at time.Time) memory.Message {
	ids := append([]string{}, roster...)
	sort.Strings(ids)
	body, _ := json.Marshal(snapshot{
		ConversationID: conversationID,
		PatientID:      nullable(active),
		AllPatientIDs:  ids,
		GeneratedAt:    at.UTC().Format("2006-01-02T15:04:05.000Z"),
	})
	return memory.Message{Role: "system", Content: SnapshotPrefix + ": " + string(body), At: at}
}

func isSnapshot(m memory.Message) bool {
	return m.Role == "system" && strings.HasPrefix(m.Content, SnapshotPrefix)
}

// withSnapshot drops every earlier snapshot and puts a fresh one at index 0, so exactly one exists.
func withSnapshot(history []memory.Message, snap memory.Message) []memory.Message {
	out := make([]memory.Message, 0, len(history)+1)
	out = append(out, snap)
	for _, m := range history {
		if !isSnapshot(m) {
			out = append(out, m)
		}
	}
	return out
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
