package session

import (
	"fmt"
	"strings"

	"github.com/ward-sim/ward/agents/analyzer"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/persist"
	"github.com/ward-sim/ward/session/records"
)

// clear archives the whole session (registry, session history, every patient's history, memory,
// entities and sim) as one snapshot, deletes the originals and wipes what memory holds, so no
// later write can resurrect a cleared patient.
func (s *Session) clear(t *turn, typed *typedText, d analyzer.Decision) {
	if err := s.sim.keepAll(); err != nil { // the archive holds every engine as it is now
		t.emit(ErrorEvent{Code: "STORAGE", Message: "some patients could not be read, and are archived as they were stored: " + err.Error()})
	}
	if !s.commit(t, typed) { // the clear itself is archived with everything else
		return
	}
	roster := s.reg.roster
	var number int
	err := t.storage(func() error {
		if err := s.Flush(); err != nil { // when the commit had no typed text to store
			return err
		}
		if _, err := s.cfg.Store.Archive(s.info.ID, s.cfg.Now().UTC()); err != nil {
			return err
		}
		archives, err := records.ArchiveEntries(s.cfg.Store, s.info.ID)
		number = len(archives)
		return err
	})
	if err != nil {
		t.emit(ErrorEvent{Code: CodeNotSaved, Message: "could not archive the session; nothing was cleared: " + err.Error()})
		return
	}
	s.active = ""
	s.chat.history = nil
	s.reg.mirror(persist.Registry{Patients: map[string]persist.PatientEntry{}})
	s.sim = newSim(s.cfg.Scenarios, s.info.Seed, s.sim.ward.Clock())
	s.reportDecision(t, DecisionClear, d, "")
	t.emit(MessageEvent{Role: "assistant", Agent: memory.SystemAgent, Text: clearedText(roster, number)})
	if err := s.cfg.Audit.Record(s.cfg.Store.Person(), persist.AuditClear, s.info.ID, fmt.Sprintf("archive %d", number)); err != nil {
		t.emit(ErrorEvent{Code: "AUDIT", Message: "the shift was cleared, but the audit record could not be written: " + err.Error()})
	}
}

func clearedText(roster []string, archive int) string {
	restore := fmt.Sprintf("`ward archive restore %d` brings it back", archive)
	if len(roster) == 0 {
		return fmt.Sprintf("Context cleared as archive %d (%s). No patient is active.", archive, restore)
	}
	return fmt.Sprintf("Context cleared: %d patient(s) archived (%s) as archive %d — %s. No patient is active.",
		len(roster), strings.Join(roster, ", "), archive, restore)
}

// ClearPreview counts what a clear would archive now: the patients, the stored messages of every
// conversation, and the number the archive will get (`ward archive show N`).
func (s *Session) ClearPreview() (patients, messages, archive int, err error) {
	err = s.cfg.Store.View(s.ID(), func(tx *persist.Tx) error {
		messages = tx.Len("")
		for _, pid := range s.reg.roster {
			messages += tx.Len(pid)
		}
		return nil
	})
	if err != nil {
		return len(s.reg.roster), messages, 0, err
	}
	archives, err := records.ArchiveEntries(s.cfg.Store, s.ID())
	return len(s.reg.roster), messages, len(archives) + 1, err
}

// IsClearRequest reports whether text would clear the shift: /clear, or wording the rules read as
// a clear without doubt. A screen asks before sending it.
func IsClearRequest(text string) bool {
	text = strings.TrimSpace(text)
	if name, _, _ := strings.Cut(text, " "); strings.EqualFold(name, CmdClear) {
		return true
	}
	if strings.HasPrefix(text, "/") {
		return false
	}
	d, sure := analyzer.RulesAnalyzer{}.Decide(analyzer.AnalyzerInput{Text: text})
	return sure && d.Action == analyzer.ActionClear
}
