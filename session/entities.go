package session

import (
	"github.com/ward-sim/ward/agents"
	"github.com/ward-sim/ward/memory"
)

// EntitiesEvent reports one agent's entity merge and what that agent now sees.
type EntitiesEvent struct {
	PatientID    string             `json:"patient_id"`
	Agent        string             `json:"agent"`
	Conversation map[string]any     `json:"conversation"`
	Derived      map[string]any     `json:"derived"`
	Merge        memory.MergeResult `json:"merge"`
	Format       string             `json:"format"`
	Warning      string             `json:"warning,omitempty"`
	Error        string             `json:"error,omitempty"`
}

func (EntitiesEvent) Kind() string { return "entities" }

// vitalsTTL is how long a vitals reading stays in an agent's derived entities: after five sim
// minutes it is stale, and the agent must check again rather than repeat it.
const vitalsTTL = 300

// entities is the active patient's entity state, created on first use.
func (s *Session) entities() *memory.Entities { return s.sim.entities(s.active) }

// entityContext renders what agent a may see: all conversation entities and its own live derived
// ones, never another agent's.
func (s *Session) entityContext(a agents.Agent) string {
	if !a.SeesEntities() || s.active == "" {
		return ""
	}
	ctx, err := s.entities().Context(a.Name, s.sim.ward.Clock())
	if err != nil {
		return ""
	}
	return agents.EntitiesSection(ctx)
}

// absorb parses an agent's raw output, merges its entity delta and returns the reply text and
// the merge. Output that breaks the format never loses the reply; the counters and the event say
// what went wrong.
func (c *conversation) absorb(agent, raw string) (string, *memory.MergeResult) {
	s, t := c.s, c.t
	out := memory.ParseAgentOutput(raw)
	if s.active == "" {
		return out.Reply, nil
	}
	ents := s.entities()
	ents.ObserveParse(s.at, agent, out)
	delta := out.Delta(agent, s.sim.ward.Clock())
	delta.At = s.at
	delta.SourceTool, delta.ValidFor = provenance(delta.Derived)
	ev := EntitiesEvent{PatientID: s.active, Agent: agent, Format: string(out.Format), Warning: out.Warning}
	merge, err := ents.Merge(delta)
	if err != nil {
		ev.Error = err.Error()
	}
	ev.Merge = merge
	if ctx, err := ents.Context(agent, delta.Now); err == nil {
		ev.Conversation, ev.Derived = ctx.Conversation, ctx.Derived
	}
	s.sim.dirty[s.active] = true
	t.emit(ev)
	if err == nil {
		s.offerPreferences(t, delta.Conversation)
	}
	return out.Reply, &ev.Merge
}

// provenance names the tool behind derived values: a vitals reading comes from check_vitals and
// goes stale; anything else the agent wrote itself.
func provenance(derived map[string]any) (string, float64) {
	for k := range derived {
		if k == "vitals_retrieved" || k == "news2_result" {
			return "check_vitals", vitalsTTL
		}
	}
	return "", 0
}

// countStop counts a turn the team's guards stopped, beside the entity counters of that patient.
func (c *conversation) countStop(stop string) {
	s := c.s
	if s.active == "" {
		return
	}
	switch stop {
	case agents.EndCap:
		s.entities().Stats.CapStops++
	case agents.EndLoop:
		s.entities().Stats.LoopStops++
	}
	s.sim.dirty[s.active] = true
}

// countSwitch counts the conversation passing to agent, and whether agent answered.
func (c *conversation) countSwitch(agent string, answered bool) {
	s := c.s
	if s.active == "" {
		return
	}
	s.entities().ObserveSwitch(s.at, agent, answered)
	s.sim.dirty[s.active] = true
}

// countFormatFailure counts a reply that broke ward's output format, by the agent that wrote it.
func (c *conversation) countFormatFailure(agent string) {
	s := c.s
	if s.active == "" {
		return
	}
	st := &s.entities().Stats
	if st.FormatFailures == nil {
		st.FormatFailures = map[string]int64{}
	}
	st.FormatFailures[agent]++
	s.sim.dirty[s.active] = true
}

// countCitationsRemoved counts citations of passages an agent was not given, beside the team's
// other counters.
func (c *conversation) countCitationsRemoved(n int) {
	s := c.s
	if s.active == "" {
		return
	}
	s.entities().Stats.CitationsRemoved += int64(n)
	s.sim.dirty[s.active] = true
}
