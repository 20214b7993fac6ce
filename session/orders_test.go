package session

import (
	"strings"
	"testing"

	"github.com/ward-sim/ward/agents"
)

// ward run, as a trainee: an overdose is stopped and nothing is given (a near miss in the
// debrief); the same overdose repeated with "override" is given, the body shows its toxicity and
// the debrief counts a critical error.
func TestRunOverdoseStoppedThenOverridden(t *testing.T) {
	run := func(override bool) (turns [][]jsonEvent, r *rig) {
		r = newRig(t)
		in := []string{"/admit patient_1 anaphylaxis", "adrenaline 0.5 mg IM", "give adrenaline 5 mg IM"}
		if override {
			in = append(in, "give adrenaline 5 mg IM, override")
		}
		in = append(in, "/wait 4m", "/vitals", "/aar")
		return byTurn(runJSON(t, r.s, lines(in...))), r
	}
	stopped, _ := run(false)
	order := onlyOne(t, ofKind(stopped[2], "order"), "order")
	if order.str("verdict") != "stop" || order["given"] != false || order.str("dose") != "5 mg" {
		t.Errorf("order event %v, want a stop, not given", order)
	}
	if n := len(ofKind(stopped[2], "action")); n != 0 {
		t.Errorf("a stopped order was applied: %d action events", n)
	}
	said := onlyOne(t, ofKind(stopped[2], "message"), "message")
	if said.str("agent") != agents.AgentPharmacist ||
		!strings.HasPrefix(said.str("text"), "STOP — adrenaline 5 mg IM is 10× the usual 0.5 mg; the maximum single dose is 0.5 mg.") ||
		!strings.Contains(said.str("text"), `repeat the order with the word "override"`) {
		t.Errorf("the turn said %v, want the Pharmacist's stop and how to override it", said)
	}
	aar := onlyOne(t, ofKind(stopped[len(stopped)-1], "aar"), "aar")
	if errs, _ := aar["critical_errors"].([]any); len(errs) != 0 || len(aar["near_misses"].([]any)) != 1 {
		t.Errorf("stopped: critical errors %v, near misses %v; want none and one", errs, aar["near_misses"])
	}

	overridden, _ := run(true)
	order = onlyOne(t, ofKind(overridden[3], "order"), "order")
	if order.str("verdict") != "stop" || order["given"] != true || order["override"] != true || order.num("excess") != 10 {
		t.Errorf("overridden order %v, want the stop given on override, ten times the maximum", order)
	}
	errs := ofKind(overridden[3], "critical_error")
	if len(errs) != 1 || !strings.Contains(errs[0].str("description"), "overrode the Pharmacist's stop and gave adrenaline 5 mg IM") {
		t.Errorf("critical errors %v, want the override", errs)
	}
	calm := onlyOne(t, ofKind(stopped[len(stopped)-2], "vitals"), "vitals")
	toxic := onlyOne(t, ofKind(overridden[len(overridden)-2], "vitals"), "vitals")
	if toxic.num("hr") < calm.num("hr")+20 || toxic.num("sbp") < calm.num("sbp")+20 {
		t.Errorf("after the overdose HR %g SBP %g, without it %g and %g: want tachycardia and hypertension",
			toxic.num("hr"), toxic.num("sbp"), calm.num("hr"), calm.num("sbp"))
	}
	aar = onlyOne(t, ofKind(overridden[len(overridden)-1], "aar"), "aar")
	if errs, _ := aar["critical_errors"].([]any); len(errs) != 1 || len(aar["near_misses"].([]any)) != 0 ||
		len(aar["doses_out_of_range"].([]any)) != 1 {
		t.Errorf("overridden: critical errors %v, near misses %v, out of range %v; want the error, no near miss, one dose out of range",
			errs, aar["near_misses"], aar["doses_out_of_range"])
	}
}

// An order that cannot be dosed as written is a question back: nothing given, and the Pharmacist
// alone answers.
func TestRunUndosedOrderIsAQuestion(t *testing.T) {
	r := newRig(t)
	turns := byTurn(runJSON(t, r.s, lines("/admit patient_1 anaphylaxis", "give some adrenaline")))
	order := onlyOne(t, ofKind(turns[1], "order"), "order")
	said := onlyOne(t, ofKind(turns[1], "message"), "message")
	if order.str("verdict") != "ask" || order["given"] != false || len(ofKind(turns[1], "action")) != 0 {
		t.Errorf("order %v, want a question and nothing given", order)
	}
	if said.str("agent") != agents.AgentPharmacist || said.str("text") != "How much adrenaline, and by which route? e.g. 0.5 mg IM. Nothing was given." {
		t.Errorf("said %v", said)
	}
	if n := len(ofKind(turns[1], "llm_call")); n != 0 {
		t.Errorf("%d model calls for a turn the Pharmacist answers alone", n)
	}
}

// A low dose is given and said; a warning is given and said; the team answers after the
// Pharmacist, who speaks first.
func TestRunLowDoseIsGivenAndSaid(t *testing.T) {
	r := newRig(t)
	turns := byTurn(runJSON(t, r.s, lines("/admit patient_1 hypoglycaemia", "IV access", "/wait 1m", "give 100 ml of 10% glucose IV")))
	turns = turns[2:]
	order := onlyOne(t, ofKind(turns[1], "order"), "order")
	if order.str("verdict") != "low" || order["given"] != true || order.num("fraction") >= 1 {
		t.Errorf("order %v, want a low dose given", order)
	}
	msgs := ofKind(turns[1], "message")
	if len(msgs) < 2 || msgs[0].str("agent") != agents.AgentPharmacist || !strings.HasPrefix(msgs[0].str("text"), "Low dose — glucose 10 g IV") {
		t.Errorf("messages %v, want the Pharmacist first, then the team", msgs)
	}
	if a := onlyOne(t, ofKind(turns[1], "action"), "action"); a.str("dose") != "100 mL of 10%" || a.num("dose_mg") != 10000 {
		t.Errorf("action %v, want the dose as written and 10 g in mg", a)
	}
}

// The model's facts carry the turn's checked orders in the Pharmacist's own words, and the
// window carries what the Pharmacist said: a model answering after the stop knows the drug was
// not given and why. The vitals asked for are read out after the team.
func TestOrderChecksReachTheModelsFacts(t *testing.T) {
	r := newRig(t)
	r.turn("/admit patient_1 anaphylaxis")
	in := "@Pharmacist give adrenaline 5 mg IM and check his vitals"
	events := r.turn(in)
	said := agentMessages(events)
	if len(said) != 3 || said[0].Agent != agents.AgentPharmacist || said[1].Agent != agents.AgentPharmacist || said[2].Agent != agents.AgentMonitor {
		t.Fatalf("said %+v, want the engine's stop, the Pharmacist asked, then the Monitor's readout", said)
	}
	call := callsOf(t, r, in)[0]
	facts := dynamicContext(t, call)
	if !strings.Contains(facts, `"checks":[{"order":"adrenaline 5 mg IM","verdict":"stop","given":false,"say":"STOP — adrenaline 5 mg IM`) {
		t.Errorf("the facts lack the checked order:\n%s", facts)
	}
	window := call.Trace.Messages[1 : 1+call.Trace.WindowLen]
	if last := window[len(window)-1]; last.Role != "assistant" || !strings.HasPrefix(last.Content, "STOP — adrenaline 5 mg IM") {
		t.Errorf("the window ends with %+v, want the Pharmacist's stop", last)
	}
}
