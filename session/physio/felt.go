package physio

import (
	"math"

	sc "github.com/ward-sim/ward/session/scenario"
)

// What the patient says and how they look follow their body, not the state the engine has moved
// them to: a state's own words and signs apply once the vitals have come at least half way from
// where they were when it began toward where it takes them. Until then the patient still feels,
// and looks, as in the state before ("better" waits for the glucose to rise).

// Felt is the state whose words and signs are the patient's now. A change the instructor
// injected is felt at once: it is what the instructor set the patient in, for the trainee to
// find at the next look.
func (e *Engine) Felt() *sc.State {
	n := len(e.s.States)
	if n < 2 || e.arrivedAt() >= 0.5 || e.s.States[n-1].Reason == reasonInjected {
		return e.cur
	}
	return e.sc.State(e.s.States[n-1].From)
}

// arrivedAt is how far the vitals have come from where they were when the state began toward
// its targets, 0 to 1, averaged over the vitals the state changes.
func (e *Engine) arrivedAt() float64 {
	sum, n := 0.0, 0
	for v := range e.s.Trend {
		from, to := e.s.Entered[v], e.cur.Target(sc.Vital(v))
		span := to - from
		if math.Abs(span) < minSpan[v] {
			continue
		}
		sum += min(1, max(0, (e.s.Trend[v]-from)/span))
		n++
	}
	if n == 0 {
		return 1
	}
	return sum / float64(n)
}

// minSpan is the least change in a vital that counts as the state changing it.
var minSpan = [sc.NumVitals]float64{
	sc.HR: 5, sc.RR: 3, sc.SpO2: 2, sc.SBP: 8, sc.DBP: 6, sc.TempC: 0.3, sc.GCS: 1, sc.EtCO2: 4,
	sc.Glucose: 1, sc.Wheeze: 1, sc.Pain: 2,
}
