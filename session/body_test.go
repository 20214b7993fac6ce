package session

import (
	"strings"
	"testing"

	"github.com/ward-sim/ward/agents"
)

// The body answers: the repros of issue 24, each played through `ward run` on the busy-ed
// shift with the offline backend, asserting what the bedside says now.

// busyED is a seeded rig on the busy-ed shift: asthma (patient_1), STEMI (2), fracture (3),
// hypoglycaemia (4).
func busyED(t *testing.T) *rig {
	return newRigWith(t, func(c *Config) { c.Seed, c.Shift = 42, "busy-ed" })
}

// turnSaid is what agent said in each turn, in order.
func turnSaid(events []jsonEvent, agent string) []string {
	var out []string
	for _, turn := range byTurn(events) {
		out = append(out, strings.Join(saidBy(turn, agent), "\n"))
	}
	return out
}

// An examination is answered from the state's findings, by the nurse, and the fracture's
// neurovascular check asked for is credited.
func TestExaminationIsAnsweredFromTheFindings(t *testing.T) {
	r := busyED(t)
	events := runJSON(t, r.s, lines("/switch patient_1", "listen to her chest", "/switch patient_3", "examine the leg",
		"check the pulses and sensation in the right foot", "/aar"))
	nurse := turnSaid(events, nurseAgent)
	wants := map[int]string{
		1: "On examination — breath sounds: widespread polyphonic expiratory wheeze",
		3: "limbs (neurovascular): right shin deformed mid-shaft, skin intact; the right foot is warm",
		4: "pulses: fast, regular radial pulse; limbs (neurovascular): right shin",
	}
	for i, want := range wants {
		if !strings.Contains(nurse[i], want) {
			t.Errorf("turn %d: the nurse said %q, want %q", i, nurse[i], want)
		}
	}
	for _, said := range saidBy(events, agents.AgentPatient) {
		if strings.Contains(said, "deformed") || strings.Contains(said, "wheeze") {
			t.Errorf("the patient voiced a finding: %q", said)
		}
	}
	aar := aarOf(t, onlyOneJSON(t, ofKind(events, "aar"), "aar event"))
	var credited bool
	for _, line := range aar.Score.Breakdown {
		if strings.Contains(line.Item, "circulation") {
			credited = line.Points == line.Max && line.Max > 0
		}
	}
	if !credited {
		t.Errorf("the neurovascular check asked for is not credited: %+v", aar.Score.Breakdown)
	}
}
