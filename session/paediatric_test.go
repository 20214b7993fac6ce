package session

import (
	"github.com/ward-sim/ward/session/aar"
	"strings"
	"testing"

	"github.com/ward-sim/ward/agents"
)

// ward run, as a trainee with a six-year-old of 20 kg: the adult's magnesium and prednisolone are
// stopped with the child's dose worked out by weight; a child's doses are given; the treated
// path of the review ends with him improving and every critical action met.
func TestRunPaediatricDosesByWeight(t *testing.T) {
	r := newRig(t)
	turns := byTurn(runJSON(t, r.s, lines(
		"/admit patient_1 paediatric-asthma",
		"Sit him up, oxygen 15 L via non-rebreather, check vitals",
		"Salbutamol 2.5 mg nebulised",
		"/wait 1m",
		"ipratropium 250 mcg neb",
		"any allergies?",
		"prednisolone 60 mg PO",
		"prednisolone 40 mg PO",
		"/wait 16m",
		"recheck obs",
		"/aar",
	)))
	stop := onlyOne(t, ofKind(turns[6], "message"), "the Pharmacist's answer")
	if stop.str("agent") != agents.AgentPharmacist || !strings.Contains(stop.str("text"), "STOP — prednisolone 60 mg PO is above the maximum single dose of 40 mg (usual 20–40 mg (1–2 mg/kg))") {
		t.Errorf("the adult's prednisolone for a 20 kg child: %v", stop)
	}
	if got := ofKind(turns[7], "order"); len(got) != 1 || got[0]["given"] != true || got[0].str("verdict") != "ok" {
		t.Errorf("prednisolone 2 mg/kg: %v", got)
	}
	aar := onlyOne(t, ofKind(turns[10], "aar"), "aar")
	if aar.str("final_state") != "improving" {
		t.Errorf("final state %s, want improving", aar.str("final_state"))
	}
	for _, o := range aar["critical_actions"].([]any) {
		if ca := o.(map[string]any); ca["met"] != true {
			t.Errorf("critical action not met: %v", ca)
		}
	}
	if errs, _ := aar["critical_errors"].([]any); len(errs) != 0 {
		t.Errorf("critical errors: %v", errs)
	}
}

// The paediatric case weighs its parts as it says: actions 60, diagnosis 25, disposition 15.
func TestPaediatricCaseSetsItsOwnWeights(t *testing.T) {
	r := newRig(t)
	r.turn("/admit patient_1 paediatric-asthma")
	r.turn("/diagnosis acute severe asthma")
	r.turn("/dispo hdu")
	got := map[string][2]int{}
	for _, p := range aar.Of(r.engine("patient_1")).Score.Parts {
		got[p.Name] = [2]int{p.Points, p.Max}
	}
	if got["actions"][1] != 60 || got["diagnosis"] != [2]int{25, 25} || got["disposition"] != [2]int{15, 15} {
		t.Errorf("parts %v", got)
	}
}
