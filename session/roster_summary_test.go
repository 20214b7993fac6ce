package session

import (
	"encoding/json"
	"maps"
	"math/rand/v2"
	"reflect"
	"testing"
)

// putWhole is how summary.put wrote facts before it left unchanged values alone: every summary
// key deleted, then those the summary has set afresh. The test's oracle.
func putWhole(sm summary, facts map[string]any) {
	facts[factState] = sm.State
	for _, k := range []string{factNEWS2, factBand, factScale, factNEWS2At, factNEWS2Prev, factAlert, factAlertText, factAlertAt} {
		delete(facts, k)
	}
	if sm.Known {
		facts[factNEWS2], facts[factBand], facts[factScale], facts[factNEWS2At] = sm.NEWS2, sm.Band, sm.Scale, sm.At
	}
	if sm.HasPrev {
		facts[factNEWS2Prev] = sm.Prev
	}
	if sm.Alert != "" {
		facts[factAlert], facts[factAlertText], facts[factAlertAt] = sm.Alert, sm.AlertText, sm.AlertAt
	}
	if sm.Disposition != "" {
		facts[factDispo] = sm.Disposition
	}
}

// TestSummaryPutAsWhole: a run of summaries put into one patient's facts, sometimes read back
// from JSON between them as a resumed shift's are, leaves the facts put writes the same, value
// and type, as writing every key afresh.
func TestSummaryPutAsWhole(t *testing.T) {
	r := rand.New(rand.NewPCG(36, 1))
	pick := func(s ...string) string { return s[r.IntN(len(s))] }
	got := map[string]any{"name": "Ann", "bed": "3"}
	want := maps.Clone(got)
	for i := range 5000 {
		sm := summary{State: pick("", "baseline", "worse"), Known: r.IntN(4) > 0, NEWS2: r.IntN(4), Band: pick("low", "medium"),
			Scale: r.IntN(3), At: float64(r.IntN(5) * 60), HasPrev: r.IntN(3) > 0, Prev: r.IntN(4),
			Alert: pick("", "", "urgent"), AlertText: pick("a", "b"), AlertAt: float64(r.IntN(3)), Disposition: pick("", "", "", "home")}
		sm.put(got)
		putWhole(sm, want)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("after summary %d %+v: facts %v, want %v", i, sm, got, want)
		}
		if summaryFrom(got) != summaryFrom(want) {
			t.Fatalf("summary %d reads back differently", i)
		}
		if r.IntN(10) == 0 { // stored and read again: numbers come back as float64
			b, _ := json.Marshal(got)
			got, want = map[string]any{}, map[string]any{}
			_ = json.Unmarshal(b, &got)
			_ = json.Unmarshal(b, &want)
		}
	}
}
