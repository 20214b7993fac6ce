package agents

import (
	"strings"
	"testing"

	"github.com/ward-sim/ward/memory"
)

const twoStepPlan = "Plan:\n1. Monitor reads the vitals and the trend.\n2. **Pharmacist** explains the safety verdict.\nShall I go ahead?"

func TestGatePlanIn(t *testing.T) {
	team := mustTeam(t)
	tests := []struct {
		name, text string
		want       []string
	}{
		{"numbered", twoStepPlan, []string{AgentMonitor, AgentPharmacist}},
		{"bulleted", "- Patient: ask about allergies\n* Preceptor — debrief", []string{AgentPatient, AgentPreceptor}},
		{"parenthesised numbers", "1) monitor first\n2) then preceptor", []string{AgentMonitor, AgentPreceptor}},
		{"capitalised name wins", "1. Check the patient's airway with the Monitor\n2. Pharmacist reviews the order", []string{AgentMonitor, AgentPharmacist}},
		{"single step", "1. Monitor reads the vitals.", nil},
		{"list naming nobody", "- S: 58-year-old with chest pain\n- B: hypertension\n- A: likely ACS\n- R: cath lab", nil},
		{"prose naming agents", "The Monitor and the Pharmacist will help.", nil},
		{"steps without agents are skipped", "1. Monitor\n2. wait five minutes\n3. Preceptor", []string{AgentMonitor, AgentPreceptor}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := team.PlanIn(tt.text); strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("PlanIn = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestGateOfHistory(t *testing.T) {
	team := mustTeam(t)
	plan := teamSaid(AgentOrchestrator, twoStepPlan)
	snapshot := memory.Message{Role: "system", Content: `PATIENT_CONTEXT_JSON: {"patient_id":"patient_4"}`}
	tests := []struct {
		name    string
		history []memory.Message
		waiting bool
	}{
		{"empty", nil, false},
		{"plan last", teamHistory(teamUser("what next?"), plan), true},
		{"plan then snapshot and tool", teamHistory(teamUser("what next?"), plan, snapshot, memory.Message{Role: "tool", Content: "{}"}), true},
		{"plan answered", teamHistory(teamUser("what next?"), plan, teamUser("yes")), false},
		{"plan answered with anything", teamHistory(plan, teamUser("give oxygen first")), false},
		{"latest orchestrator message is no plan", teamHistory(plan, teamSaid(AgentOrchestrator, "Noted.")), false},
		{"other agents after the plan", teamHistory(plan, teamSaid(AgentMonitor, "HR 110.")), true},
		{"plan from another agent", teamHistory(teamSaid(AgentPreceptor, twoStepPlan)), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := team.GateOf(tt.history)
			if g.Waiting != tt.waiting {
				t.Fatalf("Waiting = %v, want %v", g.Waiting, tt.waiting)
			}
			if g.Waiting && strings.Join(g.Plan, ",") != AgentMonitor+","+AgentPharmacist {
				t.Errorf("Plan = %v", g.Plan)
			}
		})
	}
}

func TestGateConfirmationWords(t *testing.T) {
	yes := []string{"yes", "YES!", "ok", "Okay.", "proceed", "go ahead", "Go ahead please", "sounds good", "Do it",
		"yes, go ahead", "yep", "sure", "Let's do it", "confirmed", "ok then, thanks", "yes proceed", "Sounds good 👍", "carry on"}
	no := []string{"", "thanks", "please", "no", "not yet", "yes but give oxygen first", "ok give 2 mg morphine",
		"go to patient_4", "wait", "proceed with the Pharmacist only", "yes?no", "yes 2"}
	for _, text := range yes {
		if !IsConfirmation(text) {
			t.Errorf("IsConfirmation(%q) = false, want true", text)
		}
	}
	for _, text := range no {
		if IsConfirmation(text) {
			t.Errorf("IsConfirmation(%q) = true, want false", text)
		}
	}
}
