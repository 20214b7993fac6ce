package memory

import (
	"math"
	"strings"
)

// MeaningfulChange is the smallest difference per vital that a clinician would chart as a change.
// Below it two readings say the same thing, so the older repeat is not worth prompt space. The
// figures sit inside one NEWS2 band (e.g. a 2-breath or 2% step can cross an RR or SpO2 boundary).
var MeaningfulChange = Vitals{HR: 5, RR: 2, SpO2: 2, SBP: 10, DBP: 10, Temp: 0.3, GCS: 1}

// The rules that take something out of what a prompt may carry, as a pruning event names them.
const (
	RuleVitalsRepeat  = "vitals_repeat"  // Prune: a reading that repeats the last kept one
	RuleMessageWindow = "message_window" // Window: messages the conversation window no longer shows
)

// Pruning is what one rule took out, each item or message as a prompt showed it.
type Pruning struct {
	Rule   string   `json:"rule"`
	Pruned []string `json:"pruned"`
}

// Prune drops vitals measurements that repeat the last kept one without a meaningful change. The
// first and the latest measurement always stay, so trends keep their start and "current" is never
// lost. Comparing against the last *kept* reading means a slow drift still shows once it adds up.
// Only vitals are pruned: disclosures (allergies, medications, contraindications), errors and
// every other category are never touched. It returns the measurements dropped, each as the
// memory section of a prompt writes it (RuleVitalsRepeat). Pruning after each of a run of
// readings drops what pruning once after the run does: each is held to the last kept before it.
func (m *Memory) Prune() []string {
	all := m.VitalsMeasurements
	if len(all) < 3 {
		return nil
	}
	shown := Selection{Start: m.Start}
	var text []byte // the dropped readings' lines, each ended by '\n': one string holds them all
	dropped := 0
	kept := 1 // all[:kept] are the readings kept so far, in place: a monitor adds one a minute
	for i, it := range all[1:] {
		last := i+1 == len(all)-1
		if last || changed(all[kept-1].Vitals, it.Vitals) {
			all[kept] = it
			kept++
			continue
		}
		text = append(shown.appendReading(text, it), '\n') // a dropped item has Vitals: changed(nil) keeps it
		dropped++
	}
	clear(all[kept:]) // the dropped readings' pointers
	m.VitalsMeasurements = all[:kept]
	return lines(string(text), dropped)
}

// lines are the n lines of text, each ended by '\n', as slices of it.
func lines(text string, n int) []string {
	if n == 0 {
		return nil
	}
	out := make([]string, 0, n)
	for text != "" {
		end := strings.IndexByte(text, '\n')
		out = append(out, text[:end])
		text = text[end+1:]
	}
	return out
}

// changed treats a missing reading (only possible in hand-edited JSON) as a change, so it is kept.
func changed(pa, pb *Vitals) bool {
	if pa == nil || pb == nil {
		return true
	}
	a, b := *pa, *pb
	pairs := [][3]float64{
		{a.HR, b.HR, MeaningfulChange.HR},
		{a.RR, b.RR, MeaningfulChange.RR},
		{a.SpO2, b.SpO2, MeaningfulChange.SpO2},
		{a.SBP, b.SBP, MeaningfulChange.SBP},
		{a.DBP, b.DBP, MeaningfulChange.DBP},
		{a.Temp, b.Temp, MeaningfulChange.Temp},
		{a.GCS, b.GCS, MeaningfulChange.GCS},
	}
	for _, p := range pairs {
		measuredOnce := (p[0] == 0) != (p[1] == 0)
		if measuredOnce || math.Abs(p[0]-p[1]) >= p[2] {
			return true
		}
	}
	return false
}
