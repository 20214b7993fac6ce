package session

import (
	"slices"
	"strings"
	"testing"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/ollamatest"
	"github.com/ward-sim/ward/session/records"
)

// A model whose delta format degrades partway through a shift: ten replies in the format, then
// four in plain words. `ward stats` over the whole shift and over the last turns shows the
// parse-error rate crossing seed 002's 10 % and flags it, per agent and for the shift; before the
// format broke nothing was flagged.
func TestStatsFlagAModelWhoseDeltaFormatDegrades(t *testing.T) {
	const good, bad = 10, 4
	replies := slices.Repeat([]ollamatest.Reply{ollamatest.Answer(hardToBreathe)}, good)
	replies = append(replies, slices.Repeat([]ollamatest.Reply{ollamatest.Answer("It is hard to breathe.")}, bad)...)
	r, f := onFake(t, false, false, replies...)
	r.turn("/admit patient_1 asthma-exacerbation")
	ask := func(n int) {
		for range n {
			r.turn("how is your breathing?")
		}
	}
	rate := func(w records.Window, agent string) records.Rate {
		t.Helper()
		report, err := records.ReadStats(r.store, w, records.SeedThresholds)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range report.Metrics {
			if m.Agent == agent {
				return m.Rates[slices.IndexFunc(m.Rates, func(r records.Rate) bool { return r.Name == records.RateParseErrors })]
			}
		}
		t.Fatalf("no row for %s in %+v", agent, report.Metrics)
		return records.Rate{}
	}

	ask(good)
	if n := len(f.Requests()); n != good {
		t.Fatalf("%d model calls for %d questions, want one each", n, good)
	}
	if p := rate(records.Window{}, agents.AgentPatient); p.Flagged || p.Value == nil || *p.Value != 0 {
		t.Fatalf("before the format broke: %+v, want 0 and not flagged", p)
	}
	ask(bad)
	whole := rate(records.Window{}, agents.AgentPatient)
	if !whole.Flagged || *whole.Value <= 0.10 || whole.Of != "4 of 14 replies malformed" {
		t.Errorf("over the shift: %+v, want 4 of 14 flagged past 10 %%", whole)
	}
	recent := rate(records.Window{Last: bad}, records.ShiftAgent)
	if !recent.Flagged || *recent.Value != 1 {
		t.Errorf("over the last %d turns: %+v, want every reply malformed and flagged", bad, recent)
	}
	inspected := r.s.Turns()[len(r.s.Turns())-1].Rates
	if line := inspected[len(inspected)-1].Line(); !strings.Contains(line, "parse errors 28.6% ! (> 10.0%)") {
		t.Errorf("the inspector's rates for the patient: %q, want the parse errors flagged", line)
	}
	lenient := records.SeedThresholds
	lenient.ParseErrorMax = 0.5
	report, _ := records.ReadStats(r.store, records.Window{}, lenient)
	if slices.Contains(report.Flagged, agents.AgentPatient+": "+records.RateParseErrors) {
		t.Errorf("a 50 %% threshold still flags 4 of 14: %v", report.Flagged)
	}
}
