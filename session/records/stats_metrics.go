package records

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ward-sim/ward/memory"
)

// Thresholds are the levels at which a rate of `ward stats` is flagged. SeedThresholds are the
// defaults: seed 002's monitoring plan (its "Stage 10: Validation & Parallel Operation", the
// metrics to track and the alerts configured for them).
type Thresholds struct {
	MergeSuccessMin  float64       `json:"merge_success_min"`  // entity_merge_success_rate < 0.95 alerts
	ParseErrorMax    float64       `json:"parse_error_max"`    // delta_parse_errors_rate > 0.10 alerts
	SwitchSuccessMin float64       `json:"switch_success_min"` // agent_switch_success rate < 0.98 alerts
	MergeP95Max      time.Duration `json:"merge_p95_max_ns"`   // entity_merge_duration P95 > 100 ms alerts
	EvictionMax      float64       `json:"eviction_max"`       // FIFO evictions "should be rare (<1% of updates)"
	CountDiffMax     float64       `json:"count_diff_max"`     // entity_count_diff > 0.05 alerts
}

// SeedThresholds are seed 002's alert levels.
var SeedThresholds = Thresholds{
	MergeSuccessMin: 0.95, ParseErrorMax: 0.10, SwitchSuccessMin: 0.98,
	MergeP95Max: 100 * time.Millisecond, EvictionMax: 0.01, CountDiffMax: 0.05,
}

// Window is the turns `ward stats` reads its rates over: the last Last turns of the shift, the
// turns since Since, or (both zero) the whole shift. A turn is one input, whichever patient it
// went to.
type Window struct {
	Last  int
	Since time.Time
}

func (w Window) String() string {
	switch {
	case w.Last > 0:
		return fmt.Sprintf("the last %d turns", w.Last)
	case !w.Since.IsZero():
		return "the turns since " + w.Since.UTC().Format(time.RFC3339)
	}
	return "the whole shift"
}

// pick keeps the tallies of the turns in the window.
func (w Window) pick(all []memory.AgentTally) []memory.AgentTally {
	from := w.Since
	if w.Last > 0 {
		var turns []time.Time
		for _, t := range all {
			if !slices.ContainsFunc(turns, t.At.Equal) {
				turns = append(turns, t.At)
			}
		}
		slices.SortFunc(turns, time.Time.Compare)
		if len(turns) > w.Last {
			from = turns[len(turns)-w.Last]
		}
	}
	return slices.DeleteFunc(slices.Clone(all), func(t memory.AgentTally) bool { return t.At.Before(from) })
}

// Metrics are the seed's rates for one agent, or for the shift ("all agents"), over a window.
type Metrics struct {
	Agent  string `json:"agent"`
	Turns  int    `json:"turns"`
	Counts Counts `json:"counts"`
	Rates  []Rate `json:"rates"`
}

// Counts are what the rates are made of.
type Counts struct {
	Replies        int64 `json:"replies"`
	ParseErrors    int64 `json:"parse_errors"`
	Merges         int64 `json:"merges"`
	Refused        int64 `json:"refused"`
	Reported       int64 `json:"reported"`
	Kept           int64 `json:"kept"`
	Evictions      int64 `json:"evictions"`
	Switches       int64 `json:"switches"`
	SwitchFailures int64 `json:"switch_failures"`
	mergeNs        []int64
}

func (c *Counts) add(t memory.AgentTally) {
	c.Replies += t.Replies
	c.ParseErrors += t.ParseErrors
	c.Merges += t.Merges
	c.Refused += t.Refused
	c.Reported += t.Reported
	c.Kept += t.Kept
	c.Evictions += t.Evictions
	c.Switches += t.Switches
	c.SwitchFailures += t.SwitchFailures
	c.mergeNs = append(c.mergeNs, t.MergeNs...)
}

// Rate is one of the seed's metrics, held to its threshold. Value is nil when the window has
// nothing to measure it by (no merges, no switches).
type Rate struct {
	Name      string   `json:"name"`
	Value     *float64 `json:"value"`
	Unit      string   `json:"unit"` // "ratio" or "ms"
	Alert     string   `json:"alert"`
	Threshold float64  `json:"threshold"`
	Flagged   bool     `json:"flagged"`
	Of        string   `json:"of"` // what the value was measured from, e.g. "3 of 24 replies"
}

// Rate names.
const (
	RateMergeSuccess  = "merge_success"
	RateParseErrors   = "parse_errors"
	RateSwitchSuccess = "agent_switch_success"
	RateMergeP95      = "merge_p95"
	RateEvictions     = "evictions"
	RateCountDiff     = "count_diff"
)

func (c Counts) rates(th Thresholds) []Rate {
	below := func(name string, n, of int64, min float64, what string) Rate {
		r := Rate{Name: name, Unit: "ratio", Alert: "below", Threshold: min, Of: fmt.Sprintf("%d of %d %s", n, of, what)}
		if of > 0 {
			v := float64(n) / float64(of)
			r.Value, r.Flagged = &v, v < min
		}
		return r
	}
	above := func(name string, n, of int64, max float64, what string) Rate {
		r := below(name, n, of, max, what)
		r.Alert, r.Flagged = "above", r.Value != nil && *r.Value > max
		return r
	}
	p95 := Rate{Name: RateMergeP95, Unit: "ms", Alert: "above", Threshold: ms(th.MergeP95Max), Of: fmt.Sprintf("%d merges", len(c.mergeNs))}
	if len(c.mergeNs) > 0 {
		v := ms(memory.P95(c.mergeNs))
		p95.Value, p95.Flagged = &v, v > p95.Threshold
	}
	return []Rate{
		below(RateMergeSuccess, c.Merges, c.Merges+c.Refused, th.MergeSuccessMin, "deltas merged"),
		above(RateParseErrors, c.ParseErrors, c.Replies, th.ParseErrorMax, "replies malformed"),
		below(RateSwitchSuccess, c.Switches-c.SwitchFailures, c.Switches, th.SwitchSuccessMin, "agent switches answered"),
		p95,
		above(RateEvictions, c.Evictions, c.Reported, th.EvictionMax, "evictions per key written"),
		above(RateCountDiff, c.Reported-c.Kept, c.Reported, th.CountDiffMax, "reported keys not kept"),
	}
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// ShiftAgent is the Agent of the row that adds up every agent.
const ShiftAgent = "all agents"

// MetricsOver computes the rates per agent, in name order, and for the shift (the last row), over
// the tallies of the turns in w.
func MetricsOver(tallies []memory.AgentTally, w Window, th Thresholds) []Metrics {
	picked := w.pick(tallies)
	byAgent := map[string]*Counts{}
	turns := map[string]map[time.Time]bool{}
	var shift Counts
	for _, t := range picked {
		if byAgent[t.Agent] == nil {
			byAgent[t.Agent], turns[t.Agent] = &Counts{}, map[time.Time]bool{}
		}
		byAgent[t.Agent].add(t)
		turns[t.Agent][t.At.UTC()] = true
		shift.add(t)
	}
	var out []Metrics
	all := map[time.Time]bool{}
	for _, agent := range slices.Sorted(maps.Keys(byAgent)) {
		c := *byAgent[agent]
		out = append(out, Metrics{Agent: agent, Turns: len(turns[agent]), Counts: c, Rates: c.rates(th)})
		maps.Copy(all, turns[agent])
	}
	return append(out, Metrics{Agent: ShiftAgent, Turns: len(all), Counts: shift, Rates: shift.rates(th)})
}

// Flagged lists the rates of m that crossed their thresholds, as "agent: name".
func Flagged(m []Metrics) []string {
	var out []string
	for _, row := range m {
		for _, r := range row.Rates {
			if r.Flagged {
				out = append(out, row.Agent+": "+r.Name)
			}
		}
	}
	return out
}

// rateTable writes the rates, one row per agent and the shift's last, each value with a ! when
// it crossed its threshold.
func rateTable(w io.Writer, rows []Metrics, th Thresholds) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "agent\tturns\tmerge success\tparse errors\tswitch success\tmerge p95\tevictions\tcount diff\t")
	fmt.Fprintf(tw, "alert\t\t< %s\t> %s\t< %s\t> %s\t> %s\t> %s\t\n", pct(th.MergeSuccessMin), pct(th.ParseErrorMax),
		pct(th.SwitchSuccessMin), th.MergeP95Max, pct(th.EvictionMax), pct(th.CountDiffMax))
	for _, row := range rows {
		fmt.Fprintf(tw, "%s\t%d\t", row.Agent, row.Turns)
		for _, r := range row.Rates {
			fmt.Fprintf(tw, "%s\t", r.cell())
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// Line is the row in one line, for the inspector: "Patient · 12 turns · merge success 100.0%
// · parse errors 25.0% ! (> 10.0%) · ...", the unmeasured rates left out.
func (m Metrics) Line() string {
	parts := []string{fmt.Sprintf("%s · %d turns", m.Agent, m.Turns)}
	for _, r := range m.Rates {
		if r.Value == nil {
			continue
		}
		part := strings.ReplaceAll(r.Name, "_", " ") + " " + strings.TrimSuffix(r.cell(), " !")
		if r.Flagged {
			part += " ! (" + map[string]string{"above": "> ", "below": "< "}[r.Alert] + r.limit() + ")"
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, " · ")
}

// limit is the threshold as the rate's unit writes it.
func (r Rate) limit() string {
	if r.Unit == "ms" {
		return fmt.Sprintf("%g ms", r.Threshold)
	}
	return pct(r.Threshold)
}

// cell is the rate as the table shows it: "-" when unmeasured, a ! after a crossed threshold.
func (r Rate) cell() string {
	if r.Value == nil {
		return "-"
	}
	s := pct(*r.Value)
	if r.Unit == "ms" {
		s = fmt.Sprintf("%.3f ms", *r.Value)
	}
	if r.Flagged {
		s += " !"
	}
	return s
}

func pct(v float64) string { return fmt.Sprintf("%.1f%%", v*100) }
