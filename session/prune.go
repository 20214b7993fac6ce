package session

import (
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory"
)

// Pruning made visible: when a rule takes memory items or conversation messages out of what a
// patient's prompts may carry (memory.Prune's repeated readings, the message window moving on),
// the turn reports it as a PruneEvent, the trace keeps it as a pruning line, and the inspector
// shows it with the turn.

// reportPruning tells the turn, the trace and the inspector what rule p took out for patient,
// and the tokens that saves a prompt that would have carried it.
func (s *Session) reportPruning(t *turn, patient string, p memory.Pruning, saved int) {
	if len(p.Pruned) == 0 {
		return
	}
	ev := PruneEvent{PatientID: patient, Rule: p.Rule, Pruned: p.Pruned, TokensSaved: saved}
	t.emit(ev)
	t.pruned = append(t.pruned, ev)
	_ = s.cfg.Trace.WritePruning(llm.TracePruning{PatientID: patient, Rule: p.Rule, Pruned: p.Pruned, TokensSaved: saved})
	s.reportTrace(t.emit)
}

// noticeWindow reports the messages the active patient's conversation window left behind since
// its last prompt (chat.leftBehind).
func (s *Session) noticeWindow(t *turn, window, shown []memory.Message) {
	left := s.chat.leftBehind(s.active, window, shown)
	var lines []string
	for _, m := range left {
		lines = append(lines, speakerOf(m)+": "+m.Content)
	}
	s.reportPruning(t, s.active, memory.Pruning{Rule: memory.RuleMessageWindow, Pruned: lines}, s.chat.est.Messages(memory.Spoken(left)))
}

// speakerOf names who wrote a message: its agent, or its role for the trainee's own lines.
func speakerOf(m memory.Message) string {
	if m.Agent != "" {
		return m.Agent
	}
	return m.Role
}
