package session

import (
	"context"
	"math"

	"github.com/ward-sim/ward/persist"
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
	store, id := e.s.cfg.Store, e.s.ID()
	p := ClearPreview{Patients: len(e.s.roster)}
	err := store.View(id, func(tx *persist.Tx) error {
		p.Messages = tx.Len("")
		for _, pid := range e.s.roster {
			p.Messages += tx.Len(pid)
		}
		return nil
	})
	if err != nil {
		return p, err
	}
	archives, err := records.ArchiveEntries(store, id)
	p.Archive = len(archives) + 1
	return p, err
}

// Transcript is the whole active conversation (the session's when no patient is active), for
// copying or exporting from the screen.
func (e *Live) Transcript(context.Context) (records.Conversation, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	active := e.s.Active()
	msgs, _, err := e.s.Recent(active, math.MaxInt)
	if err == nil { // a copy or an export: the chat leaves ward, so the audit says so first
		err = e.s.cfg.Audit.Record(e.s.cfg.Store.Person(), persist.AuditExport, e.s.ID(), conversationName(active)+" from the screen")
	}
	name, _ := e.s.reg.Patients[active].Facts["name"].(string)
	return records.TranscriptOf(active, name, msgs), err
}

// conversationName names a conversation in the audit record: a patient's, or the shift's own.
func conversationName(patientID string) string {
	if patientID == "" {
		return "the shift's chat"
	}
	return "the chat of " + patientID
}
