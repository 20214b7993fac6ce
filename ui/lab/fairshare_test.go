package lab

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ward-sim/ward/agents/ollamatest"
)

// A class sharing one model over SSH: 30 trainees against an httptest Ollama that has 4 slots
// and takes 1 s a call, with `ward serve --slots 4`. Fairness: every turn is answered within
// the trainee's share of the slots (each of its calls waits behind at most one call of every
// other trainee), and no trainee's turns add up to more than a round over the class's mean; the model is never asked more than 4 calls at once; and no screen ever shows
// a stall notice, though each call waits many seconds in the queue, longer than --stall.
func TestLoadSharesTheModelFairly(t *testing.T) {
	const trainees, turns, slots, perCall = 30, 2, 4, time.Second
	reply := ollamatest.Answer(`{"reply":"It still hurts.","entities_to_update":{},"derived_entities_to_update":{}}`)
	fake := ollamatest.NewFake(t, ollamatest.Slow(reply, perCall))
	fake.Limit(slots)
	srv := startServer(t, trainees, []string{"OLLAMA_HOST=" + fake.URL()},
		"--shift", "quiet-night", "--backend", "ollama", "--model", ollamatest.TestModel, "--slots", fmt.Sprint(slots), "--stall", "3s")

	runs := make([]traineeRun, trainees)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runs[i] = srv.play(fmt.Sprintf("t%02d", i), turns, stallNotice)
		}()
	}
	wg.Wait()
	hangUp(runs)
	srv.stop()

	calls := len(fake.Requests())
	// A turn's calls each wait behind at most one call of every other trainee, slots at a time (a
	// round of the class): its share of the model. Two seconds of slack a call for the server's
	// own work.
	callsPerTurn := (calls + trainees*(turns+1) - 1) / (trainees * (turns + 1)) // the review of patient_1 is a turn too
	round := time.Duration(callsPerTurn*((trainees+slots-1)/slots)) * perCall
	share := round + time.Duration(callsPerTurn)*2*time.Second
	var all []time.Duration
	waited := map[string]time.Duration{} // each trainee's turns in all
	for _, r := range runs {
		if r.err != nil {
			t.Error(r.err)
			continue
		}
		if worst := slices.Max(r.turns); worst > share {
			t.Errorf("%s waited %s for a turn, more than its share of the model (%s)", r.name, worst, share)
		}
		if lost := srv.lost(r.name, turns); len(lost) > 0 {
			t.Errorf("%s: turns not stored once: %q", r.name, lost)
		}
		all = append(all, r.turns...)
		for _, d := range r.turns {
			waited[r.name] += d
		}
	}
	// Nobody is served less than the others: each trainee's turns add up to no more than a
	// round of the class's calls over the class's mean.
	var total time.Duration
	for _, w := range waited {
		total += w
	}
	mean := total / time.Duration(max(len(waited), 1))
	for name, w := range waited {
		if w > mean+round {
			t.Errorf("%s's turns took %s in all, more than a round (%s) over the class's mean (%s)", name, w, round, mean)
		}
	}
	if most := fake.MostAtOnce(); most > slots {
		t.Errorf("the model was asked %d calls at once, more than its %d slots", most, slots)
	}
	if t.Failed() {
		return
	}
	t.Logf("%d trainees × %d turns, %d slots, %s a call: %d calls (%d a turn); turn p50 %s p99 %s max %s (share %s); a trainee's turns in all: mean %s, max %s; at most %d calls at once; no stall notice",
		trainees, turns, slots, perCall, calls, callsPerTurn, percentile(all, 50), percentile(all, 99), slices.Max(all).Round(time.Millisecond), share,
		mean.Round(time.Millisecond), slices.Max(slices.Collect(maps.Values(waited))).Round(time.Millisecond), fake.MostAtOnce())
}

// stallNotice is what ward says when it takes the model for stalled.
var stallNotice = regexp.MustCompile(`sent nothing for|model stalled`)
