package persist

// Dump is the stored state of one session, shaped as the `ward dump` document. A caller that
// wants another shape for a field (sim, say) can embed Dump and declare that field again: the
// shallower field wins in encoding/json.
type Dump struct {
	SchemaVersion int    `json:"schema_version"`
	SessionID     string `json:"session_id"`
	Content
	Archives []Archive `json:"archives"`
}

// Dump reads the session's content and archives in one consistent view.
func (s *Store) Dump(sessionID string) (Dump, error) {
	d := Dump{SchemaVersion: schemaVersion(), SessionID: sessionID}
	err := s.View(sessionID, func(t *Tx) (err error) {
		if d.Content, err = readContent(&t.shelf); err != nil {
			return err
		}
		d.Archives, err = readArchives(t.c, t.b.Tx(), sessionID)
		return err
	})
	return d, err
}
