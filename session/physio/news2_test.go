package physio

import "testing"

// normal scores 0 in every parameter; each case changes one thing.
var normal = Vitals{HR: 70, RR: 16, SpO2: 97, SBP: 120, DBP: 75, TempC: 37.0, GCS: 15, AVPU: "A"}

func TestNEWS2ParameterEdges(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(*Vitals)
		part  func(NEWS2Parts) int
		score int
	}{
		{"rr 8", func(v *Vitals) { v.RR = 8 }, rrPart, 3},
		{"rr 9", func(v *Vitals) { v.RR = 9 }, rrPart, 1},
		{"rr 11", func(v *Vitals) { v.RR = 11 }, rrPart, 1},
		{"rr 12", func(v *Vitals) { v.RR = 12 }, rrPart, 0},
		{"rr 20", func(v *Vitals) { v.RR = 20 }, rrPart, 0},
		{"rr 21", func(v *Vitals) { v.RR = 21 }, rrPart, 2},
		{"rr 24", func(v *Vitals) { v.RR = 24 }, rrPart, 2},
		{"rr 25", func(v *Vitals) { v.RR = 25 }, rrPart, 3},
		{"sbp 90", func(v *Vitals) { v.SBP = 90 }, sbpPart, 3},
		{"sbp 91", func(v *Vitals) { v.SBP = 91 }, sbpPart, 2},
		{"sbp 100", func(v *Vitals) { v.SBP = 100 }, sbpPart, 2},
		{"sbp 101", func(v *Vitals) { v.SBP = 101 }, sbpPart, 1},
		{"sbp 110", func(v *Vitals) { v.SBP = 110 }, sbpPart, 1},
		{"sbp 111", func(v *Vitals) { v.SBP = 111 }, sbpPart, 0},
		{"sbp 219", func(v *Vitals) { v.SBP = 219 }, sbpPart, 0},
		{"sbp 220", func(v *Vitals) { v.SBP = 220 }, sbpPart, 3},
		{"pulse 40", func(v *Vitals) { v.HR = 40 }, pulsePart, 3},
		{"pulse 41", func(v *Vitals) { v.HR = 41 }, pulsePart, 1},
		{"pulse 50", func(v *Vitals) { v.HR = 50 }, pulsePart, 1},
		{"pulse 51", func(v *Vitals) { v.HR = 51 }, pulsePart, 0},
		{"pulse 90", func(v *Vitals) { v.HR = 90 }, pulsePart, 0},
		{"pulse 91", func(v *Vitals) { v.HR = 91 }, pulsePart, 1},
		{"pulse 110", func(v *Vitals) { v.HR = 110 }, pulsePart, 1},
		{"pulse 111", func(v *Vitals) { v.HR = 111 }, pulsePart, 2},
		{"pulse 130", func(v *Vitals) { v.HR = 130 }, pulsePart, 2},
		{"pulse 131", func(v *Vitals) { v.HR = 131 }, pulsePart, 3},
		{"temp 35.0", func(v *Vitals) { v.TempC = 35.0 }, tempPart, 3},
		{"temp 35.1", func(v *Vitals) { v.TempC = 35.1 }, tempPart, 1},
		{"temp 36.0", func(v *Vitals) { v.TempC = 36.0 }, tempPart, 1},
		{"temp 36.1", func(v *Vitals) { v.TempC = 36.1 }, tempPart, 0},
		{"temp 38.0", func(v *Vitals) { v.TempC = 38.0 }, tempPart, 0},
		{"temp 38.1", func(v *Vitals) { v.TempC = 38.1 }, tempPart, 1},
		{"temp 39.0", func(v *Vitals) { v.TempC = 39.0 }, tempPart, 1},
		{"temp 39.1", func(v *Vitals) { v.TempC = 39.1 }, tempPart, 2},
		{"alert", func(v *Vitals) { v.AVPU = "A" }, consciousnessPart, 0},
		{"new confusion", func(v *Vitals) { v.AVPU = "C" }, consciousnessPart, 3},
		{"voice", func(v *Vitals) { v.AVPU = "V" }, consciousnessPart, 3},
		{"pain", func(v *Vitals) { v.AVPU = "P" }, consciousnessPart, 3},
		{"unresponsive", func(v *Vitals) { v.AVPU = "U" }, consciousnessPart, 3},
		{"gcs 14 without avpu is confusion", func(v *Vitals) { v.AVPU, v.GCS = "", 14 }, consciousnessPart, 3},
	}
	for _, c := range cases {
		v := normal
		c.edit(&v)
		got := NEWS2(v, 1, false)
		if p := c.part(got.Parts); p != c.score {
			t.Errorf("%s: sub-score %d, want %d", c.name, p, c.score)
		}
		if got.Total != c.score {
			t.Errorf("%s: total %d, want %d", c.name, got.Total, c.score)
		}
	}
}

func TestNEWS2SpO2Scales(t *testing.T) {
	cases := []struct {
		spo2, scale int
		oxygen      bool
		want        int
	}{
		{91, 1, false, 3}, {92, 1, false, 2}, {93, 1, false, 2}, {94, 1, false, 1},
		{95, 1, false, 1}, {96, 1, false, 0}, {100, 1, true, 0},
		{83, 2, false, 3}, {84, 2, false, 2}, {85, 2, false, 2}, {86, 2, false, 1},
		{87, 2, false, 1}, {88, 2, false, 0}, {92, 2, false, 0}, {92, 2, true, 0},
		{93, 2, false, 0}, {100, 2, false, 0},
		{93, 2, true, 1}, {94, 2, true, 1}, {95, 2, true, 2}, {96, 2, true, 2},
		{97, 2, true, 3}, {100, 2, true, 3}, {83, 2, true, 3},
	}
	for _, c := range cases {
		v := normal
		v.SpO2 = c.spo2
		got := NEWS2(v, c.scale, c.oxygen)
		if got.Parts.SpO2 != c.want {
			t.Errorf("spo2 %d scale %d oxygen %v: %d, want %d", c.spo2, c.scale, c.oxygen, got.Parts.SpO2, c.want)
		}
		if wantO2 := map[bool]int{true: 2, false: 0}[c.oxygen]; got.Parts.Oxygen != wantO2 {
			t.Errorf("oxygen part %d, want %d", got.Parts.Oxygen, wantO2)
		}
	}
}

func TestNEWS2Bands(t *testing.T) {
	cases := []struct {
		name string
		v    Vitals
		o2   bool
		want int
		band string
	}{
		{"all normal", normal, false, 0, BandLow},
		{"4 without a 3", with(normal, func(v *Vitals) { v.RR, v.HR = 22, 112 }), false, 4, BandLow},
		{"3 in one parameter", with(normal, func(v *Vitals) { v.SBP = 88 }), false, 3, BandLowMedium},
		{"4 including a 3", with(normal, func(v *Vitals) { v.SBP, v.HR = 88, 95 }), false, 4, BandLowMedium},
		{"5", with(normal, func(v *Vitals) { v.RR, v.HR, v.TempC = 22, 112, 38.5 }), false, 5, BandMedium},
		{"6", with(normal, func(v *Vitals) { v.RR, v.HR = 22, 112 }), true, 6, BandMedium},
		{"7", with(normal, func(v *Vitals) { v.RR, v.HR, v.SpO2 = 22, 112, 94 }), true, 7, BandHigh},
		{"maximum 20", Vitals{HR: 30, RR: 40, SpO2: 80, SBP: 80, TempC: 34, AVPU: "U"}, true, 20, BandHigh},
		{"asthma baseline", Vitals{HR: 128, RR: 32, SpO2: 88, SBP: 138, DBP: 86, TempC: 37.0, GCS: 15, AVPU: "A"}, false, 8, BandHigh},
	}
	for _, c := range cases {
		got := NEWS2(c.v, 1, c.o2)
		if got.Total != c.want || got.Band != c.band {
			t.Errorf("%s: %d %s, want %d %s", c.name, got.Total, got.Band, c.want, c.band)
		}
	}
}

func with(v Vitals, edit func(*Vitals)) Vitals {
	edit(&v)
	return v
}

func rrPart(p NEWS2Parts) int            { return p.RR }
func sbpPart(p NEWS2Parts) int           { return p.SBP }
func pulsePart(p NEWS2Parts) int         { return p.Pulse }
func tempPart(p NEWS2Parts) int          { return p.Temperature }
func consciousnessPart(p NEWS2Parts) int { return p.Consciousness }
