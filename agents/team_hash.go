package agents

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Hash is a SHA-256 digest of the team as loaded, a user's overrides included: every agent's
// definition, the turn cap and the router's instructions. A trace records it, so a replay can
// tell that its agents are the ones the trace was recorded with.
func (t *Team) Hash() string {
	data, _ := json.Marshal(struct { // strings, numbers and slices of them always encode
		Agents      []Agent
		MaxMessages int
		Router      string
	}{t.Agents, t.MaxMessages, t.routerPrompt})
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
