package session

import (
	"strings"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/session/physio"
)

// pharmacistSays is the Pharmacist's word on this turn's medication orders: every stop, question,
// caution and low dose the engine decided, in the engine's own plain words, so no model can
// soften a stop or invent a dose. It is spoken before the team answers; ok is false when there is
// nothing to say.
func (s *Session) pharmacistSays(t *turn, x *examination) (memory.Message, bool) {
	var lines []string
	for _, ev := range x.events {
		if ev.Kind == physio.EventOrder && ev.Order.Say != "" && !ev.Order.Refused {
			lines = append(lines, ev.Order.Say)
		}
	}
	if len(lines) == 0 {
		return memory.Message{}, false
	}
	msg := s.message(memory.RoleAssistant, agents.AgentPharmacist, strings.Join(lines, "\n\n"))
	t.emit(MessageEvent{PatientID: s.active, Role: msg.Role, Agent: msg.Agent, Text: msg.Content, At: msg.At})
	return msg, true
}

// onlyHeld reports whether the turn did nothing but order drugs the Pharmacist held back: nothing
// happened at the bedside and nothing was asked ("give amoxicillin — how is your breathing?"
// still wants the patient's answer) for anyone else to answer.
func (x *examination) onlyHeld() bool {
	held := false
	for _, ev := range x.events {
		switch {
		case ev.Kind == physio.EventAction:
			return false
		case ev.Kind == physio.EventOrder && !ev.Order.Given:
			held = true
		}
	}
	return held && len(x.disclosures) == 0 && !strings.Contains(x.text, "?")
}

// orderChecks are this turn's orders as the engine checked them, for the agents' facts: what the
// Pharmacist said, and whether each was given.
func orderChecks(events []physio.Event) []agents.OrderCheck {
	var out []agents.OrderCheck
	for _, ev := range events {
		if o := ev.Order; ev.Kind == physio.EventOrder {
			out = append(out, agents.OrderCheck{Order: o.Text(), Verdict: string(o.Verdict), Given: o.Given, Say: o.Say})
		}
	}
	return out
}
