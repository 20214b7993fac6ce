package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/agents/llm"
	"github.com/ward-sim/ward/memory/knowledge"
)

// passagesPerTurn is how many protocol passages a prompt carries: enough for the answer and a
// runner-up, few enough to keep the dynamic context small.
const passagesPerTurn = 3

// retrieval is what the knowledge base found for one turn, fetched once, when the first agent
// that reads it is about to speak.
type retrieval struct {
	knowledge.Retrieval
	err error
}

// cards are where the team's protocol passages come from: the knowledge base, whose rankings by
// an embedding model the trace keeps, or in a replay of such a run, its recorded retrievals,
// handed out in order.
type cards struct {
	kb        *knowledge.KB // nil for none
	trace     *llm.TraceWriter
	replaying *llm.TraceRun // the recorded run a replay plays again; nil when the shift is live
	replayed  int           // retrievals of replaying handed out so far
}

func newCards(cfg Config) cards {
	return cards{kb: cfg.Knowledge, trace: cfg.Trace, replaying: cfg.Replaying}
}

// needsKnowledge reports whether agent a reads protocol passages this turn: by its recall rule,
// or because the trainee asked a protocol question.
func (k *cards) needsKnowledge(a agents.Agent, x *examination) bool {
	return k.kb != nil && (a.RecallsKnowledge() || knowledge.IsProtocolQuestion(x.question()))
}

// question is the trainee's text as a query: without the @mention that picked the agent.
func (x *examination) question() string { return agents.WithoutMention(x.text) }

// retrieve fetches the turn's passages for agent a, once per turn. A knowledge base that fails
// leaves the turn without passages and says why, once; the team still answers.
func (c *conversation) retrieve(ctx context.Context, a agents.Agent) {
	s, x := c.s, c.x
	if x.retrieval != nil || !s.cards.needsKnowledge(a, x) {
		return
	}
	ctx = knowledge.WithProgress(ctx, func(p knowledge.Progress) {
		if p.Done == p.Total || p.Done%progressStep == 0 {
			c.t.emit(progressOf(p))
		}
	})
	r, err := s.cards.retrieve(ctx, x.question())
	x.retrieval = &retrieval{Retrieval: r, err: err}
	switch {
	case err != nil:
		c.t.emit(NoteEvent{PatientID: s.active, Text: "protocol cards unavailable this turn: " + err.Error()})
	case r.Note != "":
		c.t.emit(NoteEvent{PatientID: s.active, Text: r.Note})
	}
}

// retrieve asks the protocol cards for query's passages. A ranking by an embedding model is
// written to the trace, and a replay of it takes the recorded retrieval instead: it asks no model.
func (k *cards) retrieve(ctx context.Context, query string) (knowledge.Retrieval, error) {
	if run := k.replaying; run != nil && run.Header.EmbedModel != "" {
		return k.recorded(run.Retrievals, query)
	}
	r, err := k.kb.Retrieve(ctx, query, passagesPerTurn)
	if k.kb.EmbedModel() != "" {
		rec := llm.TraceRetrieval{Query: query}
		if err != nil {
			rec.Error = err.Error()
		} else {
			rec.Retrieval, _ = json.Marshal(r) // strings, numbers and booleans: it always encodes
		}
		_ = k.trace.WriteRetrieval(rec) // as with calls, a trace that cannot be written changes nothing
	}
	return r, err
}

// recorded is the next of a recorded run's retrievals, handed out in order, for query; a
// query the recording did not make at this point is an error, so the turn's prompt goes without
// passages and the replay diverges there.
func (k *cards) recorded(recorded []llm.TraceRetrieval, query string) (knowledge.Retrieval, error) {
	if k.replayed >= len(recorded) {
		return knowledge.Retrieval{}, fmt.Errorf("the recording holds no retrieval for %q", query)
	}
	rec := recorded[k.replayed]
	k.replayed++
	if rec.Query != query {
		return knowledge.Retrieval{}, fmt.Errorf("the recording retrieved for %q here, not %q", rec.Query, query)
	}
	if rec.Error != "" {
		return knowledge.Retrieval{}, errors.New(rec.Error)
	}
	var out knowledge.Retrieval
	err := json.Unmarshal(rec.Retrieval, &out) // before out is returned: a return's operands have no set order
	return out, err
}

// passagesFor are the turn's passages as agent a's facts carry them; none for an agent that
// does not read them.
func (k *cards) passagesFor(a agents.Agent, x *examination) []knowledge.Passage {
	if x.retrieval == nil || !k.needsKnowledge(a, x) {
		return nil
	}
	return x.retrieval.Passages
}

// cite keeps a reply's citations of the passages the agent was given and removes the rest,
// counting them, and returns the sources to show under the message.
func (c *conversation) cite(a agents.Agent, reply string) (string, []string) {
	given := c.s.cards.passagesFor(a, c.x)
	checked := knowledge.CheckCitations(reply, given)
	if checked.Removed > 0 {
		c.held(fmt.Sprintf("%d citation(s) of passages it was not given were removed", checked.Removed))
		c.countCitationsRemoved(checked.Removed)
	}
	return checked.Text, checked.Sources()
}

// progressStep is how many chunks pass between two progress reports, so a build of a few hundred
// chunks repaints a dozen times, not hundreds.
const progressStep = 16

// progressOf says a step of the knowledge base's first build.
func progressOf(p knowledge.Progress) ProgressEvent {
	what := map[string]string{"index": "indexing the protocol cards", "embed": "embedding the protocol cards"}[p.Stage]
	return ProgressEvent{Text: fmt.Sprintf("%s: %d of %d", what, p.Done, p.Total), Stage: p.Stage, Done: p.Done, Total: p.Total}
}
