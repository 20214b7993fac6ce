package memory

import (
	"slices"
	"time"
)

// AgentTally is what one agent's replies did to a patient's entities in one turn, the turn whose
// input came at At. The cumulative EntityStats answer "how did the shift go"; these rows answer
// "how did the last turns go", so `ward stats` can read a rate over the window a developer picks
// and see a model's delta format degrading while the shift's total still looks fine.
type AgentTally struct {
	At          time.Time `json:"at"`
	Agent       string    `json:"agent"`
	Replies     int64     `json:"replies"`      // outputs parsed
	ParseErrors int64     `json:"parse_errors"` // of those, outputs that had to be tolerated
	Merges      int64     `json:"merges"`
	Refused     int64     `json:"refused"`
	Reported    int64     `json:"reported"` // entity keys the merged deltas carried
	Kept        int64     `json:"kept"`     // of those, keys the entities still held after the merge
	Evictions   int64     `json:"evictions"`
	MergeNs     []int64   `json:"merge_ns,omitempty"`
	// Switches counts the times the patient's conversation passed to this agent from another;
	// SwitchFailures those where the agent then gave no reply.
	Switches       int64 `json:"switches"`
	SwitchFailures int64 `json:"switch_failures"`
}

// maxTallies bounds the rows a patient keeps, oldest dropped first: a long shift gives one patient
// a hundred or two, and the entities document is rewritten every turn that merges.
const maxTallies = 500

// tally is the row of agent for the turn at at, added when it is the turn's first.
func (e *Entities) tally(at time.Time, agent string) *AgentTally {
	i := slices.IndexFunc(e.Tallies, func(t AgentTally) bool { return t.At.Equal(at) && t.Agent == agent })
	if i < 0 {
		e.Tallies = append(e.Tallies, AgentTally{At: at, Agent: agent})
		if extra := len(e.Tallies) - maxTallies; extra > 0 {
			e.Tallies = slices.Delete(e.Tallies, 0, extra)
		}
		i = len(e.Tallies) - 1
	}
	return &e.Tallies[i]
}

// ObserveParse counts one agent's output as ParseAgentOutput read it, in the shift's counters and
// in the row of the turn at at.
func (e *Entities) ObserveParse(at time.Time, agent string, out AgentOutput) {
	e.Stats.ObserveParse(out)
	t := e.tally(at, agent)
	t.Replies++
	if out.Malformed {
		t.ParseErrors++
	}
}

// ObserveSwitch counts the conversation passing to agent in the turn at at, and whether the agent
// answered.
func (e *Entities) ObserveSwitch(at time.Time, agent string, answered bool) {
	t := e.tally(at, agent)
	t.Switches++
	if !answered {
		t.SwitchFailures++
	}
}

// observeMerge counts a merge (or its refusal, err) of d in the row of d's turn.
func (e *Entities) observeMerge(d Delta, r MergeResult, err error, took time.Duration) {
	if d.At.IsZero() {
		return // a merge outside a turn (a test, a tool) has no row to count in
	}
	t := e.tally(d.At, d.Agent)
	if err != nil {
		t.Refused++
		return
	}
	t.Merges++
	t.Evictions += int64(len(r.Evicted))
	t.MergeNs = append(t.MergeNs, took.Nanoseconds())
	reported := len(d.Conversation) + len(d.Derived)
	t.Reported += int64(reported)
	t.Kept += int64(reported - countIn(r.Evicted, append(r.Added, r.Updated...)))
}

// countIn counts the keys of some that are in all.
func countIn(some, all []string) int {
	n := 0
	for _, k := range some {
		if slices.Contains(all, k) {
			n++
		}
	}
	return n
}
