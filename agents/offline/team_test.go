package offline

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/memory/knowledge"
)

var teamNumberPattern = regexp.MustCompile(`[0-9]+(?:\.[0-9]+)?`)

func TestTeamOfflineMonitorReadsOnlyGivenNumbers(t *testing.T) {
	news2 := 8
	readings := []agents.Reading{
		{T: 60, Vitals: memory.Vitals{HR: 124, RR: 30, SpO2: 86, SBP: 88, DBP: 50}},
		{T: 245, Vitals: memory.Vitals{HR: 118, RR: 30, SpO2: 91.5, SBP: 94, DBP: 56, GCS: 15}, NEWS2: &news2,
			Score: "NEWS2 8 high", ScoringThree: []string{"respiration rate"}},
	}
	reply, ok := teamReply("monitor", "", agents.TurnFacts{Measured: &readings})
	if !ok {
		t.Fatal("the Monitor is played offline")
	}
	for _, want := range []string{"T+04:05: HR 118, RR 30, SpO2 91.5% (air), BP 94/56, GCS 15 — NEWS2 8 high.", "Red score (one parameter alone calls for an urgent review): respiration rate", "Not measured: T.", "HR down from 124", "SpO2 up from 86", "Since T+01:00"} {
		if !strings.Contains(reply, want) {
			t.Errorf("reply lacks %q:\n%s", want, reply)
		}
	}
	given := []string{"124", "30", "86", "88", "50", "118", "91.5", "94", "56", "15", "8", "2", "04", "05", "01", "00"}
	for _, n := range teamNumberPattern.FindAllString(reply, -1) {
		if !slices.Contains(given, n) {
			t.Errorf("reply says %s, which the engine never gave:\n%s", n, reply)
		}
	}
	empty, _ := teamReply(agents.AgentMonitor, "", agents.TurnFacts{})
	if teamNumberPattern.MatchString(empty) {
		t.Errorf("with no readings the Monitor must say no number: %q", empty)
	}
}

func TestTeamOfflinePharmacistVoicesTheVerdict(t *testing.T) {
	facts := agents.TurnFacts{
		Orders: []agents.Order{{Drug: "ampicillin", DoseMg: 1000, Route: "IV"}, {Drug: "paracetamol", DoseMg: 1000, Route: "PO"}},
		Verdicts: []agents.Verdict{
			{Level: "hard_stop", Drug: "Ampicillin", Reason: "penicillin allergy (anaphylaxis) covers ampicillin"},
			{Level: "warn", Drug: "codeine", Reason: "morphine allergy: codeine is a phenanthrene opioid"},
		},
	}
	reply, _ := teamReply(agents.AgentPharmacist, "", facts)
	for _, want := range []string{
		"STOP — Ampicillin: penicillin allergy (anaphylaxis) covers ampicillin. It is not to be given.",
		"Caution — codeine: morphine allergy", "paracetamol 1000 mg PO: no safety concern on record",
	} {
		if !strings.Contains(reply, want) {
			t.Errorf("reply lacks %q:\n%s", want, reply)
		}
	}
	if strings.Contains(reply, "ampicillin 1000 mg IV: no safety concern") {
		t.Error("a flagged order must not also be called unflagged")
	}
	for _, id := range []string{"hard_stop", "HARD STOP", "warn:", "the engine"} {
		if strings.Contains(reply, id) {
			t.Errorf("the Pharmacist's words carry %q:\n%s", id, reply)
		}
	}
	none, _ := teamReply(agents.AgentPharmacist, "", agents.TurnFacts{})
	if !strings.Contains(none, "no verdict") {
		t.Errorf("with nothing ordered: %q", none)
	}
}

// This turn's checked orders come first, in the engine's own words.
func TestTeamOfflinePharmacistSaysThisTurnsChecksFirst(t *testing.T) {
	stop := "STOP — adrenaline 50 mg IM is 100× the usual 0.5 mg; the maximum single dose is 0.5 mg."
	facts := agents.TurnFacts{
		Checks:   []agents.OrderCheck{{Order: "adrenaline 50 mg IM", Verdict: "stop", Say: stop}, {Order: "aspirin 300 mg PO", Verdict: "ok", Given: true}},
		Orders:   []agents.Order{{Drug: "aspirin", DoseMg: 300, Route: "PO"}},
		Verdicts: nil,
	}
	reply, _ := teamReply(agents.AgentPharmacist, "", facts)
	if !strings.HasPrefix(reply, stop+"\n") || !strings.Contains(reply, "aspirin 300 mg PO: no safety concern on record") {
		t.Errorf("reply:\n%s", reply)
	}
}

// The offline debrief keeps every critical error and missed critical action, in that order and
// before anything else, however many there are; only plus and delta are shortened.
func TestTeamOfflinePreceptorDebriefsFromTheAAR(t *testing.T) {
	var review []string
	for i := 1; i <= 6; i++ {
		review = append(review, fmt.Sprintf("Plus: good thing %d", i))
	}
	review = append(review,
		"Delta: 00:30 — amoxicillin given before asking about allergies",
		"Critical error: 00:00 — gave amoxicillin despite a hard stop",
		"Critical error: 00:01 — an IV adrenaline bolus",
		"Missed critical action: IV access — not done (within 10:00)",
		"Score 26 / 100: critical actions 35/60 (…).")
	reply, _ := teamReply(agents.AgentPreceptor, "", agents.TurnFacts{Review: strings.Join(review, "\n")})
	order := []string{"**Critical errors**", "00:00 — gave amoxicillin despite a hard stop", "00:01 — an IV adrenaline bolus",
		"**Missed critical actions**", "IV access — not done", "**What went well**", "good thing 4", "…and 2 more",
		"**What to change**", "amoxicillin given before asking", "Score 26 / 100"}
	last := -1
	for _, want := range order {
		i := strings.Index(reply, want)
		if i < 0 || i < last {
			t.Errorf("debrief lacks %q, or has it out of order:\n%s", want, reply)
		}
		last = i
	}
	if strings.Contains(reply, "good thing 5") {
		t.Errorf("plus lines are not shortened:\n%s", reply)
	}
	coaching, _ := teamReply(agents.AgentPreceptor, "", agents.TurnFacts{})
	if !strings.Contains(coaching, "airway, breathing, circulation") || strings.HasSuffix(coaching, "?") {
		t.Errorf("coaching without a review = %q", coaching)
	}
}

func TestTeamOfflineOrchestrator(t *testing.T) {
	team, err := agents.LoadTeam("")
	if err != nil {
		t.Fatal(err)
	}
	plan, _ := teamReply(agents.AgentOrchestrator, "what should I do next?", agents.TurnFacts{})
	if got := team.PlanIn(plan); strings.Join(got, ",") != "Monitor,Preceptor" {
		t.Errorf("plan steps = %v, want Monitor then Preceptor:\n%s", got, plan)
	}
	if !strings.HasSuffix(plan, "?") {
		t.Error("the plan must end by asking the trainee to confirm")
	}
	withOrders, _ := teamReply(agents.AgentOrchestrator, "next?", agents.TurnFacts{Orders: []agents.Order{{Drug: "fentanyl"}}})
	if got := team.PlanIn(withOrders); strings.Join(got, ",") != "Monitor,Pharmacist,Preceptor" {
		t.Errorf("plan with an order = %v", got)
	}
	handoff, _ := teamReply(agents.AgentOrchestrator, "is that dose safe to give?", agents.TurnFacts{})
	if !strings.HasSuffix(handoff, "Back to you, Pharmacist.") {
		t.Errorf("one-specialist request = %q, want a handoff to the Pharmacist", handoff)
	}
	if _, ok := teamReply(agents.AgentPatient, "", agents.TurnFacts{}); ok {
		t.Error("the Patient is voiced as the patient, not by the team")
	}
}

// Offline, the Preceptor and the Pharmacist answer a protocol question by quoting the best
// passage they were given, with its citation; without passages, or for anything else, they say
// what they always say.
func TestOfflineAnswersProtocolQuestionsFromThePassages(t *testing.T) {
	passages := []knowledge.Passage{
		{N: 1, Title: "Oxygen targets", Section: "Targets", Text: "Most acutely ill adults: aim for 94–98%."},
		{N: 2, Title: "Anaphylaxis", Section: "Adrenaline", Text: "Give adrenaline 0.5 mg IM into the anterolateral thigh. Repeat after 5 minutes if there is no improvement."},
	}
	f := agents.TurnFacts{Knowledge: passages}
	for _, c := range []struct{ agent, input string }{
		{agents.AgentPreceptor, "/ask what is the IM dose of adrenaline in anaphylaxis?"},
		{agents.AgentPharmacist, "@Pharmacist what is the IM dose of adrenaline in anaphylaxis?"},
	} {
		reply, _ := teamReply(c.agent, c.input, f)
		if !strings.Contains(reply, "0.5 mg IM") || !strings.HasSuffix(reply, "[2]") {
			t.Errorf("%s answered %q, want the adrenaline passage quoted with [2]", c.agent, reply)
		}
	}
	if reply, _ := teamReply(agents.AgentPreceptor, "what is the IM dose of adrenaline?", agents.TurnFacts{}); strings.Contains(reply, "[") {
		t.Errorf("with no passages the Preceptor cited one: %q", reply)
	}
	if reply, _ := teamReply(agents.AgentPreceptor, "how am I doing?", f); strings.Contains(reply, "protocol cards") {
		t.Errorf("a question that is not about the guidance was answered from the cards: %q", reply)
	}
}
