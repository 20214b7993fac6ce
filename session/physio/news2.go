package physio

import (
	"fmt"
	"math"
)

// NEWS2 clinical-risk bands, named as the Royal College of Physicians names them (2017). The
// names are the words every view shows. A total of 0–4 with a 3 in any single parameter still
// needs an urgent ward-based review: that is low-medium.
const (
	BandLow       = "low"
	BandLowMedium = "low-medium"
	BandMedium    = "medium"
	BandHigh      = "high"
)

// NEWS2Parts is each parameter's sub-score (0–3).
type NEWS2Parts struct {
	RR            int `json:"respiration_rate"`
	SpO2          int `json:"spo2"`
	Oxygen        int `json:"air_or_oxygen"`
	SBP           int `json:"systolic_bp"`
	Pulse         int `json:"pulse"`
	Consciousness int `json:"consciousness"`
	Temperature   int `json:"temperature"`
}

// NEWS2Score is the aggregate (0–20), its parts and its band.
type NEWS2Score struct {
	Total int        `json:"total"`
	Parts NEWS2Parts `json:"parts"`
	Band  string     `json:"band"`
	Scale int        `json:"scale"` // the SpO2 scale it was scored on
}

// NEWS2 scores v by the Royal College of Physicians' 2017 chart. scale is the
// SpO2 scale (2 only for prescribed 88–92 % targets); onOxygen adds 2 and, on
// Scale 2, makes saturations of 93 % and above score as over-oxygenation.
func NEWS2(v Vitals, scale int, onOxygen bool) NEWS2Score {
	p := NEWS2Parts{
		RR:            scoreRR(v.RR),
		SBP:           scoreSBP(v.SBP),
		Pulse:         scorePulse(v.HR),
		Consciousness: scoreConsciousness(v),
		Temperature:   scoreTemp(v.TempC),
	}
	if scale == 2 {
		p.SpO2 = scoreSpO2Scale2(v.SpO2, onOxygen)
	} else {
		p.SpO2 = scoreSpO2Scale1(v.SpO2)
	}
	if onOxygen {
		p.Oxygen = 2
	}
	total := 0
	for _, s := range p.list() {
		total += s.score
	}
	return NEWS2Score{Total: total, Parts: p, Band: band(total, p), Scale: max(1, scale)}
}

// String is how every view words a score, with the SpO2 scale it was scored on: "NEWS2 4
// low-medium (Scale 1)".
func (s NEWS2Score) String() string {
	return fmt.Sprintf("NEWS2 %d %s (Scale %d)", s.Total, s.Band, max(1, s.Scale))
}

// Score is the reading's NEWS2 with its band worked out afresh from its parts, so a reading
// stored under an older band name reads like a new one.
func (r Reading) Score() NEWS2Score {
	return NEWS2Score{Total: r.NEWS2, Parts: r.Parts, Band: band(r.NEWS2, r.Parts), Scale: max(1, r.Scale)}
}

func band(total int, p NEWS2Parts) string {
	switch {
	case total >= 7:
		return BandHigh
	case total >= 5:
		return BandMedium
	case len(p.ScoringThree()) > 0:
		return BandLowMedium
	default:
		return BandLow
	}
}

type namedScore struct {
	name  string
	score int
}

func (p NEWS2Parts) list() []namedScore {
	return []namedScore{{"respiration rate", p.RR}, {"SpO2", p.SpO2}, {"oxygen", p.Oxygen}, {"systolic BP", p.SBP},
		{"pulse", p.Pulse}, {"consciousness", p.Consciousness}, {"temperature", p.Temperature}}
}

// ScoringThree names the parameters that score 3 on their own, each of which calls for an
// urgent review whatever the total.
func (p NEWS2Parts) ScoringThree() []string {
	var out []string
	for _, s := range p.list() {
		if s.score == 3 {
			out = append(out, s.name)
		}
	}
	return out
}

func scoreRR(rr int) int {
	switch {
	case rr <= 8:
		return 3
	case rr <= 11:
		return 1
	case rr <= 20:
		return 0
	case rr <= 24:
		return 2
	default:
		return 3
	}
}

func scoreSpO2Scale1(s int) int {
	switch {
	case s <= 91:
		return 3
	case s <= 93:
		return 2
	case s <= 95:
		return 1
	default:
		return 0
	}
}

func scoreSpO2Scale2(s int, onOxygen bool) int {
	switch {
	case s <= 83:
		return 3
	case s <= 85:
		return 2
	case s <= 87:
		return 1
	case s <= 92 || !onOxygen:
		return 0
	case s <= 94:
		return 1
	case s <= 96:
		return 2
	default:
		return 3
	}
}

func scoreSBP(sbp int) int {
	switch {
	case sbp <= 90:
		return 3
	case sbp <= 100:
		return 2
	case sbp <= 110:
		return 1
	case sbp <= 219:
		return 0
	default:
		return 3
	}
}

func scorePulse(hr int) int {
	switch {
	case hr <= 40:
		return 3
	case hr <= 50:
		return 1
	case hr <= 90:
		return 0
	case hr <= 110:
		return 1
	case hr <= 130:
		return 2
	default:
		return 3
	}
}

func scoreConsciousness(v Vitals) int {
	avpu := v.AVPU
	if avpu == "" && v.GCS > 0 {
		avpu = AVPUFromGCS(v.GCS)
	}
	if avpu == "" || avpu == "A" {
		return 0
	}
	return 3
}

// scoreTemp works in tenths of a degree so the band edges (35.0, 36.0, 38.0,
// 39.0) are compared exactly.
func scoreTemp(c float64) int {
	t := int(math.Round(c * 10))
	switch {
	case t <= 350:
		return 3
	case t <= 360:
		return 1
	case t <= 380:
		return 0
	case t <= 390:
		return 1
	default:
		return 2
	}
}
