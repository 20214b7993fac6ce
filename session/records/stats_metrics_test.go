package records

import (
	"testing"
	"time"

	"github.com/ward-sim/ward/memory"
)

// Each of seed 002's rates is held to its own alert level, over the window asked for: the turns
// since a time, or the last N turns whichever patient or agent they went to.
func TestEveryRateMeetsItsThresholdInItsWindow(t *testing.T) {
	at := func(min int) time.Time { return time.Date(2026, 11, 28, 9, min, 0, 0, time.UTC) }
	tallies := []memory.AgentTally{
		// a quiet start: everything as it should be
		{At: at(0), Agent: "Patient", Replies: 1, Merges: 1, Reported: 2, Kept: 2, MergeNs: []int64{1e6}},
		{At: at(1), Agent: "Monitor", Replies: 1, Merges: 1, Switches: 1, MergeNs: []int64{1e6}},
		// then a bad turn for the Patient: refused, evicting, switching to it failed, slow
		{At: at(2), Agent: "Patient", Replies: 2, Merges: 1, Refused: 1, Reported: 10, Kept: 8, Evictions: 2,
			Switches: 1, SwitchFailures: 1, MergeNs: []int64{150e6}},
	}
	flagged := func(of []memory.AgentTally, w Window) map[string]bool {
		out := map[string]bool{}
		rows := MetricsOver(of, w, SeedThresholds)
		for _, r := range rows[len(rows)-1].Rates { // the shift's row
			if r.Flagged {
				out[r.Name] = true
			}
		}
		return out
	}
	last := flagged(tallies, Window{Last: 1})
	for _, name := range []string{RateMergeSuccess, RateSwitchSuccess, RateMergeP95, RateEvictions, RateCountDiff} {
		if !last[name] {
			t.Errorf("over the last turn %s is not flagged: %v", name, last)
		}
	}
	if last[RateParseErrors] {
		t.Errorf("no reply was malformed, yet parse errors are flagged")
	}
	if quiet := flagged(tallies[:2], Window{}); len(quiet) > 0 {
		t.Errorf("the quiet turns flag %v", quiet)
	}
	rows := MetricsOver(tallies, Window{Since: at(1)}, SeedThresholds)
	if len(rows) != 3 || rows[0].Agent != "Monitor" || rows[1].Agent != "Patient" || rows[2].Agent != ShiftAgent || rows[2].Turns != 2 {
		t.Fatalf("rows since 9:01: %+v", rows)
	}
	if got := rows[1].Rates[0]; got.Of != "1 of 2 deltas merged" || *got.Value != 0.5 {
		t.Errorf("the Patient's merge success since 9:01: %+v", got)
	}
}
