package memory

import (
	"fmt"
	"strings"
)

// Key conventions keep the two kinds of entity apart. Conversation entities are what the trainee
// and the team said or decided; derived entities are what a tool returned. A key that names one
// kind by convention may not be written as the other.
var (
	derivedSuffixes      = []string{"_id", "_uuid", "_retrieved", "_result", "_results"}
	conversationSuffixes = []string{"_preference", "_intent"}
	conversationKeys     = map[string]bool{
		"intent": true, "working_diagnosis": true, "differential": true, "chief_complaint": true,
		"plan": true, "goal": true,
	}
)

// IsDerivedKey reports whether the key names a tool result by convention (*_id, *_uuid,
// *_retrieved, *_result, *_results).
func IsDerivedKey(key string) bool { return hasSuffix(key, derivedSuffixes) }

// IsConversationKey reports whether the key names a conversation fact by convention
// (*_preference, *_intent, intent, working_diagnosis, differential, chief_complaint, plan, goal).
func IsConversationKey(key string) bool {
	return conversationKeys[key] || hasSuffix(key, conversationSuffixes)
}

func hasSuffix(key string, suffixes []string) bool {
	for _, s := range suffixes {
		if strings.HasSuffix(key, s) {
			return true
		}
	}
	return false
}

// maxKeyLen bounds a key; a longer one is the model writing prose into the key.
const maxKeyLen = 64

// NormalizeKey spells a key one way: lower case, words joined by underscores. It refuses keys
// that are still not [a-z0-9_] after that, or too long.
func NormalizeKey(key string) (string, error) {
	k := strings.ToLower(strings.TrimSpace(key))
	k = strings.NewReplacer(" ", "_", "-", "_", ".", "_").Replace(k)
	if k == "" || len(k) > maxKeyLen {
		return "", fmt.Errorf("entity key %q: must be 1 to %d characters", key, maxKeyLen)
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return "", fmt.Errorf("entity key %q: only letters, digits and underscores", key)
		}
	}
	return k, nil
}
