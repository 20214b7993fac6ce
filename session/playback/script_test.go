package playback

import (
	"context"
	"strings"
	"testing"

	"github.com/ward-sim/ward/agents/eval"
	"github.com/ward-sim/ward/agents/offline"
	"github.com/ward-sim/ward/session"
)

// The offline harness meets the bar of both evals of played turns, and the scripts reach the
// levels of consciousness the patient eval is about.
func TestEvalsOfTheOfflineHarness(t *testing.T) {
	play := ScriptPlayer(session.Config{Backend: offline.New()}, func(*session.Config) {})
	patient := eval.EvalPatient(context.Background(), offline.New(), play)
	debrief := eval.EvalDebrief(context.Background(), offline.New(), play)
	arrest := eval.EvalArrest(context.Background(), offline.New(), play)
	for _, r := range []eval.Report{patient, debrief, arrest} {
		r.Min = eval.DefaultMin
		if err := r.Gate(); err != nil {
			t.Errorf("%v\n%s", err, r)
		}
	}
	var levels []string
	for _, c := range patient.Categories {
		levels = append(levels, c.Category)
	}
	if got := strings.Join(levels, " "); patient.Total < 20 || !strings.Contains(got, "voice") || !strings.Contains(got, "pain") {
		t.Errorf("%d patient cases at %s: the scripts must reach reduced consciousness", patient.Total, got)
	}
	if debrief.Total < 5 {
		t.Errorf("%d debrief cases", debrief.Total)
	}
	if arrest.Total < 20 || len(arrest.Categories) != 2 {
		t.Errorf("%d arrest cases in %v: the scripts must be played in arrest and with a pulse", arrest.Total, arrest.Categories)
	}
}

// A script's turns carry the calls their line made and the patient's consciousness, and the
// critical errors on record at the end.
func TestScriptPlayerRecordsEachLine(t *testing.T) {
	play := ScriptPlayer(session.Config{Backend: offline.New()}, func(*session.Config) {})
	p, err := play(context.Background(), eval.Script{Scenario: "opioid-overdose",
		Lines: []string{"Can you hear me?", "/vitals", "IO access and give flumazenil 200 micrograms IV."}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Turns) != 3 || p.Turns[0].AVPU != "P" || p.Turns[0].GCS != 7 {
		t.Fatalf("turns: %+v", p.Turns)
	}
	agentOf := func(i int) string {
		if len(p.Turns[i].Calls) == 0 {
			return ""
		}
		return p.Turns[i].Calls[0].Agent
	}
	if agentOf(0) != "Patient" || agentOf(1) != "Monitor" || agentOf(2) != "Patient" {
		t.Fatalf("calls by line: %q, %q, %q", agentOf(0), agentOf(1), agentOf(2))
	}
	if len(p.CriticalErrors) != 1 || p.CriticalErrors[0].ID != "flumazenil" {
		t.Fatalf("critical errors: %+v", p.CriticalErrors)
	}
	if _, err := play(context.Background(), eval.Script{Scenario: "no-such-scenario"}); err == nil || !strings.Contains(err.Error(), "no-such-scenario") {
		t.Fatalf("an unknown scenario: %v", err)
	}
}
