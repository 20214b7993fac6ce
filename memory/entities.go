package memory

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"
)

// MaxEntities bounds the conversation entities, and each agent's derived entities.
const MaxEntities = 7

// maxValueJSON bounds one entity value; a bigger one belongs in memory or the history.
const maxValueJSON = 1024

// SourceAgentReply is the source_tool of derived entities an agent wrote in its own reply rather
// than through a tool call.
const SourceAgentReply = "agent_reply"

// ConversationEntity is a fact of the patient's conversation, shared by every agent.
type ConversationEntity struct {
	Key        string  `json:"key"`
	Value      any     `json:"value"`
	InsertedAt float64 `json:"inserted_at"` // sim seconds; an update keeps it
	UpdatedAt  float64 `json:"updated_at"`
}

// DerivedEntity is a tool result, private to the agent that produced it.
type DerivedEntity struct {
	Key          string         `json:"key"`
	Value        any            `json:"value"`
	AgentName    string         `json:"agent_name"`
	SourceTool   string         `json:"source_tool"`
	SourceParams map[string]any `json:"source_params,omitempty"`
	ValidFor     float64        `json:"valid_for,omitempty"` // sim seconds after UpdatedAt; 0 never expires
	InsertedAt   float64        `json:"inserted_at"`
	UpdatedAt    float64        `json:"updated_at"`
}

// Live reports whether the entity may still be shown at sim time now.
func (d DerivedEntity) Live(now float64) bool {
	return d.ValidFor <= 0 || now < d.UpdatedAt+d.ValidFor
}

// Entities is one patient's entity state, persisted in the patient's entities bucket. Both lists
// are in insertion order, oldest first, which is the FIFO eviction order.
type Entities struct {
	Conversation []ConversationEntity       `json:"conversation"`
	Derived      map[string][]DerivedEntity `json:"derived"` // by agent name
	Stats        EntityStats                `json:"stats"`
	Tallies      []AgentTally               `json:"tallies,omitempty"` // per turn and agent, oldest first
}

// Delta is one agent's update. Derived values take SourceTool, SourceParams and ValidFor; an
// empty SourceTool means the agent wrote them in its reply (SourceAgentReply).
type Delta struct {
	Agent        string
	Now          float64   // sim seconds
	At           time.Time // the wall time of the turn's input, which the turn's tally is keyed by
	Conversation map[string]any
	Derived      map[string]any
	SourceTool   string
	SourceParams map[string]any
	ValidFor     float64
}

// MergeResult lists the keys a merge touched, for the trace and the inspector.
type MergeResult struct {
	Updated []string `json:"updated"`
	Added   []string `json:"added"`
	Evicted []string `json:"evicted"`
}

// MarshalJSON writes empty lists as [] so event consumers never meet null.
func (r MergeResult) MarshalJSON() ([]byte, error) {
	type plain MergeResult
	orEmpty := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	}
	return json.Marshal(plain{Updated: orEmpty(r.Updated), Added: orEmpty(r.Added), Evicted: orEmpty(r.Evicted)})
}

// ErrNoAgent is returned when a delta or a context request has no agent name.
var ErrNoAgent = errors.New("entities: agent_name is required")

// Merge applies a delta. An existing key gets the new value and keeps its place in the FIFO
// order; a new key goes to the back; beyond MaxEntities the oldest are evicted. A delta that
// breaks a rule (no agent, a key claimed as both kinds, a bad key or value) is refused whole, so
// a half-applied update never exists. Keys are applied in sorted order, so the result is the
// same whatever order the model wrote them in.
func (e *Entities) Merge(d Delta) (MergeResult, error) {
	began := time.Now()
	conv, derived, err := d.validate()
	if err != nil {
		e.Stats.Refused++
		e.observeMerge(d, MergeResult{}, err, 0)
		return MergeResult{}, err
	}
	var r MergeResult
	e.mergeConversation(conv, d.Now, &r)
	if len(derived) > 0 {
		e.mergeDerived(d, derived, &r)
	}
	e.Stats.Merges++
	e.Stats.Evictions += int64(len(r.Evicted))
	took := time.Since(began)
	e.Stats.MergeLatency.Observe(took)
	e.observeMerge(d, r, nil, took)
	return r, nil
}

func (e *Entities) mergeConversation(values map[string]any, now float64, r *MergeResult) {
	for _, k := range slices.Sorted(maps.Keys(values)) {
		if i := slices.IndexFunc(e.Conversation, func(c ConversationEntity) bool { return c.Key == k }); i >= 0 {
			e.Conversation[i].Value, e.Conversation[i].UpdatedAt = values[k], now
			r.Updated = append(r.Updated, k)
			continue
		}
		e.Conversation = append(e.Conversation, ConversationEntity{Key: k, Value: values[k], InsertedAt: now, UpdatedAt: now})
		r.Added = append(r.Added, k)
	}
	for len(e.Conversation) > MaxEntities {
		r.Evicted = append(r.Evicted, e.Conversation[0].Key)
		e.Conversation = slices.Delete(e.Conversation, 0, 1)
	}
}

func (e *Entities) mergeDerived(d Delta, values map[string]any, r *MergeResult) {
	source := d.SourceTool
	if source == "" {
		source = SourceAgentReply
	}
	if e.Derived == nil {
		e.Derived = map[string][]DerivedEntity{}
	}
	own := e.Derived[d.Agent]
	for _, k := range slices.Sorted(maps.Keys(values)) {
		fresh := DerivedEntity{
			Key: k, Value: values[k], AgentName: d.Agent, SourceTool: source,
			SourceParams: maps.Clone(d.SourceParams), ValidFor: d.ValidFor, InsertedAt: d.Now, UpdatedAt: d.Now,
		}
		if i := slices.IndexFunc(own, func(x DerivedEntity) bool { return x.Key == k }); i >= 0 {
			fresh.InsertedAt = own[i].InsertedAt
			own[i] = fresh
			r.Updated = append(r.Updated, k)
			continue
		}
		own = append(own, fresh)
		r.Added = append(r.Added, k)
	}
	for len(own) > MaxEntities {
		r.Evicted = append(r.Evicted, own[0].Key)
		own = slices.Delete(own, 0, 1)
	}
	e.Derived[d.Agent] = own
}

// validate checks the whole delta before anything changes and returns its values under their
// normalized keys.
func (d Delta) validate() (conv, derived map[string]any, err error) {
	if d.Agent == "" {
		return nil, nil, ErrNoAgent
	}
	if conv, err = normalizeValues(d.Conversation); err != nil {
		return nil, nil, err
	}
	if derived, err = normalizeValues(d.Derived); err != nil {
		return nil, nil, err
	}
	for k := range conv {
		if _, both := derived[k]; both {
			return nil, nil, fmt.Errorf("entities: key %q is claimed as both a conversation and a derived entity", k)
		}
		if IsDerivedKey(k) {
			return nil, nil, fmt.Errorf("entities: key %q is a derived key by convention but was sent as a conversation entity", k)
		}
	}
	for k := range derived {
		if IsConversationKey(k) {
			return nil, nil, fmt.Errorf("entities: key %q is a conversation key by convention but was sent as a derived entity", k)
		}
	}
	return conv, derived, nil
}

func normalizeValues(in map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(in))
	for raw, v := range in {
		k, err := NormalizeKey(raw)
		if err != nil {
			return nil, err
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("entities: keys collide once normalized: %q", k)
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("entities: value of %q: %w", k, err)
		}
		if len(b) > maxValueJSON {
			return nil, fmt.Errorf("entities: value of %q is %d bytes of JSON, over %d", k, len(b), maxValueJSON)
		}
		out[k] = v
	}
	return out, nil
}

// AgentContext is what one agent sees: every conversation entity plus its own live derived ones.
// encoding/json writes map keys sorted, so the same state always renders to the same bytes.
type AgentContext struct {
	Conversation map[string]any `json:"conversation"`
	Derived      map[string]any `json:"derived"`
}

// Context returns the entities agent may see at sim time now. Another agent's derived entities
// and expired ones are never included.
func (e *Entities) Context(agent string, now float64) (AgentContext, error) {
	if agent == "" {
		return AgentContext{}, ErrNoAgent
	}
	c := AgentContext{Conversation: make(map[string]any, len(e.Conversation)), Derived: map[string]any{}}
	for _, x := range e.Conversation {
		c.Conversation[x.Key] = x.Value
	}
	for _, x := range e.Derived[agent] {
		if x.Live(now) {
			c.Derived[x.Key] = x.Value
		}
	}
	return c, nil
}
