package scenario

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
)

// Hash is a SHA-256 digest of everything the library can put in a prompt or a verdict: each
// scenario's file, the built-in shifts and the formulary. A trace records it, so a replay can
// tell that its scenarios are the ones the trace was recorded with.
func (l *Library) Hash() string {
	h := sha256.New()
	part := func(name string, data []byte) { fmt.Fprintf(h, "%s %d\n%s\n", name, len(data), data) }
	for _, id := range l.ids {
		part("scenario "+id, l.entries[id].data)
	}
	files, _ := yamlFiles(shiftsFS, "shifts") // embedded: listing cannot fail
	for _, name := range files {
		data, _ := fs.ReadFile(shiftsFS, name)
		part(name, data)
	}
	part("formulary", formularyData)
	return hex.EncodeToString(h.Sum(nil))
}
