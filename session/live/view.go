package live

import (
	"time"

	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/physio"
)

// The parts of a ViewState, built from what the session reports: every number a measured one.

func rosterEntry(p session.PatientSummary, clock float64) RosterEntry {
	r := RosterEntry{ID: p.ID, Name: p.Name, LastChecked: -1, Overdue: p.Overdue(clock) && p.Disposition == "", Disposition: p.Disposition}
	if p.Known {
		r.NEWS2 = score(physio.NEWS2Score{Total: p.NEWS2, Band: p.Band, Scale: p.Scale})
		r.LastChecked = seconds(p.At)
	}
	switch {
	case !p.HasPrev || p.Prev == p.NEWS2:
		r.Trend = TrendFlat
	case p.NEWS2 > p.Prev:
		r.Trend = TrendUp
	default:
		r.Trend = TrendDown
	}
	if p.Alert != "" {
		r.Alert = alertView(session.PatientAlert{PatientID: p.ID, Level: p.Alert, Text: p.AlertText, Raised: p.AlertAt})
	}
	return r
}

func alertView(a session.PatientAlert) Alert {
	level := map[string]AlertLevel{physio.LevelUrgent: AlertUrgent, physio.LevelAlarm: AlertAlarm,
		physio.LevelEmergency: AlertEmergency}[a.Level]
	return Alert{PatientID: a.PatientID, Level: level, Text: a.Text, Raised: seconds(a.Raised)}
}

func header(p session.PatientView) Patient {
	h := Patient{ID: p.ID, Name: p.Name, Age: p.Age, Sex: p.Sex, Bed: p.Bed, Presentation: p.Presentation,
		NEWS2: latestScore(p.Readings), Allergies: p.Allergies, Found: p.Found}
	if !p.AllergiesAsked {
		h.Allergies = []string{"not asked yet"}
	} else if len(h.Allergies) == 0 {
		h.Allergies = []string{"none disclosed"}
	}
	return h
}

func latestScore(readings []physio.Reading) Score {
	if len(readings) == 0 {
		return Score{}
	}
	return score(readings[len(readings)-1].Score())
}

func score(n physio.NEWS2Score) Score {
	return Score{Known: true, Value: n.Total, Band: band(n.Band), Scale: max(1, n.Scale), Text: n.String()}
}

func band(name string) Band {
	switch name {
	case physio.BandLowMedium:
		return BandLowMedium
	case physio.BandMedium:
		return BandMedium
	case physio.BandHigh:
		return BandHigh
	}
	return BandLow
}

// vitalSeries is the measured vitals as the trend pane draws them, a point a moment (a check in
// the nurse's second is no second point, which would draw the trend flat and its arrow steady);
// the pane keeps its own time window.
func vitalSeries(readings []physio.Reading) []VitalSeries {
	out := []VitalSeries{{Name: "HR", Unit: "bpm"}, {Name: "RR", Unit: "/min"}, {Name: "SpO2", Unit: "%"}, {Name: "SBP", Unit: "mmHg"}}
	for r := range physio.Moments(readings) {
		at := seconds(r.T)
		for i, v := range []int{r.HR, r.RR, r.SpO2, r.SBP} {
			out[i].Points = append(out[i].Points, VitalPoint{At: at, Value: float64(v)})
		}
	}
	return out
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
