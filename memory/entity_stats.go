package memory

import (
	"maps"
	"slices"
	"time"
)

// EntityStats are the entity counters `ward stats` and the inspector show. The lead persists them
// with the entities and may add up several patients' with Plus.
type EntityStats struct {
	Merges          int64   `json:"merges"`
	Refused         int64   `json:"refused"` // deltas refused: no agent_name, key collision, bad key or value
	ParseErrors     int64   `json:"parse_errors"`
	FormatFallbacks int64   `json:"format_fallbacks"` // legacy full-state `entities` outputs
	Evictions       int64   `json:"evictions"`
	MergeLatency    Latency `json:"merge_latency"`
	// The agent team's guards stop a turn that runs away; they are counted here, beside the
	// merges of the same turns, so one record answers "how did the agents behave".
	CapStops  int64 `json:"cap_stops"`
	LoopStops int64 `json:"loop_stops"`
	// CitationsRemoved counts citations of protocol passages the agent was not given.
	CitationsRemoved int64 `json:"citations_removed"`
	// FormatFailures counts, per agent, replies that broke the output format where the call could
	// not hold the model to it (tools offered), and were asked again under it.
	FormatFailures map[string]int64 `json:"format_failures,omitempty"`
	// Held counts, by why, replies ward did not show as written: a number the engine did not
	// give, a diagnosis named too early, a disclosure before its question, and the replies the
	// engine's own line replaced when the second answer failed too.
	Held map[string]int64 `json:"held,omitempty"`
}

// ObserveParse counts what ParseAgentOutput had to tolerate.
func (s *EntityStats) ObserveParse(out AgentOutput) {
	if out.Format == FormatLegacy {
		s.FormatFallbacks++
	}
	if out.Malformed {
		s.ParseErrors++
	}
}

// Plus adds another set of counters, for totals across patients.
func (s EntityStats) Plus(o EntityStats) EntityStats {
	return EntityStats{
		Merges:          s.Merges + o.Merges,
		Refused:         s.Refused + o.Refused,
		ParseErrors:     s.ParseErrors + o.ParseErrors,
		FormatFallbacks: s.FormatFallbacks + o.FormatFallbacks,
		Evictions:       s.Evictions + o.Evictions,
		MergeLatency:    s.MergeLatency.plus(o.MergeLatency),
		CapStops:        s.CapStops + o.CapStops,
		LoopStops:       s.LoopStops + o.LoopStops,

		CitationsRemoved: s.CitationsRemoved + o.CitationsRemoved,
		FormatFailures:   plusCounts(s.FormatFailures, o.FormatFailures),
		Held:             plusCounts(s.Held, o.Held),
	}
}

func plusCounts(a, b map[string]int64) map[string]int64 {
	if len(a)+len(b) == 0 {
		return nil
	}
	out := maps.Clone(a)
	if out == nil {
		out = map[string]int64{}
	}
	for k, v := range b {
		out[k] += v
	}
	return out
}

// latencySamples is how many recent merges the p95 is computed over.
const latencySamples = 128

// Latency keeps totals plus a ring of recent samples, enough for a p95 without unbounded growth.
type Latency struct {
	Count   int64   `json:"count"`
	TotalNs int64   `json:"total_ns"`
	MaxNs   int64   `json:"max_ns"`
	Recent  []int64 `json:"recent_ns"`
	Next    int     `json:"next"` // ring position of the next sample once Recent is full
}

// Observe records one duration.
func (l *Latency) Observe(d time.Duration) {
	ns := d.Nanoseconds()
	l.Count++
	l.TotalNs += ns
	l.MaxNs = max(l.MaxNs, ns)
	if len(l.Recent) < latencySamples {
		l.Recent = append(l.Recent, ns)
		return
	}
	l.Recent[l.Next%latencySamples] = ns
	l.Next = (l.Next + 1) % latencySamples
}

// P95 is the 95th percentile over the recent samples.
func (l Latency) P95() time.Duration { return P95(l.Recent) }

// P95 is the 95th percentile of durations in nanoseconds (nearest rank), 0 for none.
func P95(ns []int64) time.Duration {
	if len(ns) == 0 {
		return 0
	}
	sorted := slices.Sorted(slices.Values(ns))
	return time.Duration(sorted[(len(sorted)*95+99)/100-1])
}

func (l Latency) plus(o Latency) Latency {
	recent := append(slices.Clone(l.Recent), o.Recent...)
	if len(recent) > latencySamples {
		recent = recent[len(recent)-latencySamples:]
	}
	return Latency{
		Count: l.Count + o.Count, TotalNs: l.TotalNs + o.TotalNs, MaxNs: max(l.MaxNs, o.MaxNs),
		Recent: recent, Next: 0,
	}
}
