package records

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/ward-sim/ward/memory"
	"github.com/ward-sim/ward/persist"
)

// StatsReport is what `ward stats` prints: how the agent team's structured output fared, per
// patient and in total over the shift, and seed 002's rates per agent and for the shift over the
// window asked for, each held to its threshold.
type StatsReport struct {
	SessionID  string         `json:"session_id"`
	Patients   []PatientStats `json:"patients"`
	Total      PatientStats   `json:"total"`
	Window     string         `json:"window"`
	Thresholds Thresholds     `json:"thresholds"`
	Metrics    []Metrics      `json:"metrics"`
	Flagged    []string       `json:"flagged"` // "agent: rate" for each rate past its threshold
}

// PatientStats are one patient's counters. MergeP95US is over the most recent merges.
type PatientStats struct {
	PatientID       string `json:"patient_id,omitempty"`
	Merges          int64  `json:"merges"`
	Refused         int64  `json:"refused"`
	ParseErrors     int64  `json:"parse_errors"`
	FormatFallbacks int64  `json:"format_fallbacks"`
	Evictions       int64  `json:"evictions"`
	CapStops        int64  `json:"cap_stops"`
	LoopStops       int64  `json:"loop_stops"`
	// CitationsRemoved counts citations of protocol passages an agent was not given.
	CitationsRemoved int64 `json:"citations_removed"`
	// FormatFailures are, per agent, replies that broke the output format with tools offered.
	FormatFailures map[string]int64 `json:"format_failures,omitempty"`
	// Held are, by why, replies ward did not show as the model wrote them (session/vet.go).
	Held       map[string]int64 `json:"held,omitempty"`
	MergeP95US float64          `json:"merge_p95_us"`
}

// ReadStats reads the latest shift's counters, and its rates over the turns in w held to th.
func ReadStats(store *persist.Store, w Window, th Thresholds) (StatsReport, error) {
	doc, err := Stats(store)
	if err != nil {
		return StatsReport{}, err
	}
	r := StatsReport{SessionID: doc.SessionID, Patients: []PatientStats{}, Total: patientStats("", doc.Total),
		Window: w.String(), Thresholds: th, Flagged: []string{}}
	var tallies []memory.AgentTally
	for id, st := range doc.Patients {
		r.Patients = append(r.Patients, patientStats(id, st))
		tallies = append(tallies, doc.tallies[id]...)
	}
	sort.Slice(r.Patients, func(i, j int) bool { return r.Patients[i].PatientID < r.Patients[j].PatientID })
	r.Metrics = MetricsOver(tallies, w, th)
	r.Flagged = append(r.Flagged, Flagged(r.Metrics)...)
	return r, nil
}

func patientStats(id string, st memory.EntityStats) PatientStats {
	return PatientStats{PatientID: id, Merges: st.Merges, Refused: st.Refused, ParseErrors: st.ParseErrors,
		FormatFallbacks: st.FormatFallbacks, Evictions: st.Evictions, CapStops: st.CapStops, LoopStops: st.LoopStops,
		CitationsRemoved: st.CitationsRemoved, FormatFailures: st.FormatFailures, Held: st.Held, MergeP95US: float64(st.MergeLatency.P95().Nanoseconds()) / 1e3}
}

// byAgent writes per-agent counts as "Monitor 1, Patient 2", or 0 when there are none.
func byAgent(counts map[string]int64) string {
	if len(counts) == 0 {
		return "0"
	}
	var parts []string
	for _, agent := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%s %d", agent, counts[agent]))
	}
	return strings.Join(parts, ", ")
}

// Table writes the report as aligned columns, one row per patient and a total.
func (r StatsReport) Table(w io.Writer) error {
	fmt.Fprintf(w, "shift %s\n\n", r.SessionID)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "patient\tmerges\trefused\tparse errors\tfallbacks\tevictions\tcap stops\tloop stops\tcitations removed\tformat failures\treplies held\tmerge p95\t")
	row := func(name string, p PatientStats) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%.0f µs\t\n", name, p.Merges, p.Refused, p.ParseErrors,
			p.FormatFallbacks, p.Evictions, p.CapStops, p.LoopStops, p.CitationsRemoved, byAgent(p.FormatFailures), byAgent(p.Held), p.MergeP95US)
	}
	for _, p := range r.Patients {
		row(p.PatientID, p)
	}
	row("total", r.Total)
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nrates over %s (! past the alert level)\n\n", r.Window)
	if err := rateTable(w, r.Metrics, r.Thresholds); err != nil {
		return err
	}
	if len(r.Flagged) > 0 {
		fmt.Fprintf(w, "\nflagged: %s\n", strings.Join(r.Flagged, "; "))
	}
	return nil
}

// StatsDoc is what `ward stats` prints: the entity and team counters per patient and in total.
type StatsDoc struct {
	SessionID  string                         `json:"session_id"`
	Total      memory.EntityStats             `json:"total"`
	MergeP95US float64                        `json:"merge_p95_us"`
	Patients   map[string]memory.EntityStats  `json:"patients"`
	tallies    map[string][]memory.AgentTally // per patient, for the rates over a window
}

// Stats reads the counters of the latest shift.
func Stats(store *persist.Store) (StatsDoc, error) {
	info, err := latest(store)
	if err != nil {
		return StatsDoc{}, err
	}
	doc := StatsDoc{SessionID: info.ID, Patients: map[string]memory.EntityStats{}, tallies: map[string][]memory.AgentTally{}}
	var docs map[string][]byte
	err = store.View(info.ID, func(tx *persist.Tx) error {
		docs, err = tx.PatientDocs(persist.KindEntities)
		return err
	})
	for id, raw := range docs {
		var e memory.Entities
		if err := json.Unmarshal(raw, &e); err != nil {
			return doc, fmt.Errorf("entities of %s are unreadable: %w", id, err)
		}
		doc.Patients[id], doc.tallies[id] = e.Stats, e.Tallies
		doc.Total = doc.Total.Plus(e.Stats)
	}
	doc.MergeP95US = float64(doc.Total.MergeLatency.P95().Nanoseconds()) / 1e3
	return doc, err
}
