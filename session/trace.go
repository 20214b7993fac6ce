package session

import (
	"encoding/json"

	"github.com/ward-sim/ward/agents/llm"
)

// The trace (--trace) holds what a replay needs: a header for each session the process runs,
// every input the session handles, and every call it makes. A session given the same inputs at
// the same wall times, on the same settings and definitions, with a backend that answers each
// call as the trace recorded, builds the same prompts byte for byte: the physiology's noise comes
// from the seed, and the only wall time a prompt carries is its input's (s.at).

// traceHeader opens this session's run in the trace.
func (s *Session) traceHeader(resumed bool) error {
	c := s.cfg
	if c.Trace == nil {
		return nil // hashing the definitions is for the trace alone
	}
	prefs, err := json.Marshal(s.prefs)
	if err != nil || s.prefs == (Prefs{}) {
		prefs = nil
	}
	var knowledgeHash, embedModel string
	if c.Knowledge != nil {
		var err error
		if knowledgeHash, err = c.Knowledge.Hash(); err != nil {
			return err
		}
		embedModel = c.Knowledge.EmbedModel()
	}
	return c.Trace.WriteHeader(llm.TraceHeader{
		SessionID: s.info.ID, StartedAt: s.info.CreatedAt, Resumed: resumed, Shift: c.Shift, Seed: s.info.Seed,
		Backend: c.Backend.Name(), Model: c.Backend.Model(), Tools: c.Tools,
		NumCtx: c.NumCtx, OutputBudget: c.OutputBudget, KeepAlive: llm.DefaultKeepAlive.String(),
		Window: c.Window, PatientIDPattern: c.Pattern.String(), ConfirmAdmissions: c.ConfirmAdmissions,
		ScenariosHash: c.Scenarios.Hash(), AgentsHash: c.Team.Hash(), KnowledgeHash: knowledgeHash, EmbedModel: embedModel,
		Trainee: s.info.Trainee, Prefs: prefs, Recurring: s.recurring,
	})
}

// begin starts handling one input: it takes the wall time the input's prompts carry and records
// the input in the trace.
func (s *Session) begin(in llm.TraceInput, emit func(Event)) {
	s.at = s.cfg.Now().UTC()
	in.At = s.at
	_ = s.cfg.Trace.WriteInput(in)
	s.reportTrace(emit)
}

// reportTrace tells the trainee, once, that the trace stopped being written (by this write or an
// analyzer's or router's call before it); the shift goes on.
func (s *Session) reportTrace(emit func(Event)) {
	if err := s.cfg.Trace.Failure(); err != nil {
		emit(ErrorEvent{Code: "TRACE", Message: "could not write the trace file: " + err.Error() + "; the shift goes on untraced"})
	}
}
