package session

import "github.com/ward-sim/ward/session/physio"

// summary is what the roster shows of a patient: the state and the last two measured NEWS2. It
// is kept in the registry's facts, so a resumed shift draws its roster without decoding any
// patient, and the roster tells what is known even of a patient nobody has looked at since.
type summary struct {
	State   string
	Known   bool // a reading was scored
	NEWS2   int
	Band    string
	At      float64 // sim seconds of the last reading
	HasPrev bool
	Prev    int // the reading's before it
}

// Keys of the summary in a registry entry's facts.
const (
	factState     = "state"
	factNEWS2     = "news2"
	factBand      = "news2_band"
	factNEWS2At   = "news2_at"
	factNEWS2Prev = "news2_prev"
)

func summaryOf(e *physio.Engine) summary {
	sm := summary{State: e.State()}
	readings := e.Readings()
	if n := len(readings); n > 0 {
		last := readings[n-1]
		sm.Known, sm.NEWS2, sm.Band, sm.At = true, last.NEWS2, last.Score().Band, last.T
		if n > 1 {
			sm.HasPrev, sm.Prev = true, readings[n-2].NEWS2
		}
	}
	return sm
}

// summaryFrom reads a summary back from facts, where numbers come back from JSON as float64.
func summaryFrom(facts map[string]any) summary {
	sm := summary{}
	sm.State, _ = facts[factState].(string)
	if v, ok := facts[factNEWS2].(float64); ok {
		sm.Known, sm.NEWS2 = true, int(v)
	} else if v, ok := facts[factNEWS2].(int); ok {
		sm.Known, sm.NEWS2 = true, v
	}
	sm.Band, _ = facts[factBand].(string)
	sm.At, _ = number(facts[factNEWS2At])
	if v, ok := number(facts[factNEWS2Prev]); ok {
		sm.HasPrev, sm.Prev = true, int(v)
	}
	return sm
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	}
	return 0, false
}

func (sm summary) put(facts map[string]any) {
	facts[factState] = sm.State
	for _, k := range []string{factNEWS2, factBand, factNEWS2At, factNEWS2Prev} {
		delete(facts, k)
	}
	if sm.Known {
		facts[factNEWS2], facts[factBand], facts[factNEWS2At] = sm.NEWS2, sm.Band, sm.At
	}
	if sm.HasPrev {
		facts[factNEWS2Prev] = sm.Prev
	}
}
