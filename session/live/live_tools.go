package live

import (
	"context"

	"github.com/ward-sim/ward/session/records"
)

// ClearPreview is what a clear would archive now, so a screen can ask before it.
type ClearPreview struct {
	Patients int
	Messages int // stored messages, every conversation of the shift together
	Archive  int // the number the archive will get (`ward archive show N`)
}

// ClearPreview counts what a clear would archive now.
func (e *Live) ClearPreview(context.Context) (ClearPreview, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var p ClearPreview
	var err error
	p.Patients, p.Messages, p.Archive, err = e.s.ClearPreview()
	return p, err
}

// Transcript is the whole active conversation (the shift's own when no patient is active), for
// copying or exporting from the screen.
func (e *Live) Transcript(context.Context) (records.Conversation, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.s.Transcript()
}
