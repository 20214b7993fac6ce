package physio

import (
	"hash/fnv"
	"math"

	sc "github.com/ward-sim/ward/session/scenario"
)

// Trace is what the monitor draws for a patient at a moment: the rhythm, how many beats it has
// drawn by ward second T, the rate of its complexes, and whether compressions are shaking it.
// Its samples are a pure function of these, so any screen width, any frame rate and a replay
// draw the same line.
//
// The waveform follows McSharry PE, Clifford GD, Tarassenko L, Smith LA. A dynamical model for
// generating synthetic electrocardiogram signals. IEEE Trans Biomed Eng 2003;50(3):289–294: a
// point circles a limit cycle once a beat, and the ECG is its height z, pushed by Gaussian events
// at fixed angles for the P, Q, R, S and T waves. Along the cycle the model's equation for z,
// dz/dθ = −Σ aᵢ Δθᵢ exp(−Δθᵢ²/2bᵢ²), integrates to z(θ) = Σ aᵢ bᵢ² exp(−Δθᵢ²/2bᵢ²), which is what
// Sample evaluates (its baseline term is left out: the monitor's baseline is flat). Rhythms
// without organised beats (VF, asystole) and the fibrillation of AF are sums of sines instead.
type Trace struct {
	Rhythm sc.Rhythm `json:"-"` // never shown: naming it is the trainee's job
	T      float64   `json:"t"`
	Beat   float64   `json:"beat"`
	Rate   float64   `json:"rate"`
	CPR    bool      `json:"cpr,omitempty"`
	Seed   uint64    `json:"-"`
}

// wave is one Gaussian event of McSharry's model: its angle, amplitude and width.
type wave struct{ theta, a, b float64 }

// The events of each organised rhythm, after McSharry et al.'s table for a normal beat; a
// broad-complex beat widens and deepens the R and S waves, and loses the P wave.
var (
	narrowBeat = []wave{{-math.Pi / 3, 1.2, 0.25}, {-math.Pi / 12, -5, 0.1}, {0, 30, 0.1}, {math.Pi / 12, -7.5, 0.1},
		{math.Pi / 2, 0.75, 0.4}}
	noPBeat   = narrowBeat[1:]
	broadBeat = []wave{{-0.15, 7, 0.35}, {0.9, -4, 0.4}, {2.2, 1.2, 0.45}}
	beatScale = 3.0 // the model's z to millivolts on a monitor lead
)

// Trace is the patient's trace now.
func (e *Engine) Trace() Trace {
	h := fnv.New64a()
	h.Write([]byte(e.s.PatientID))
	return Trace{Rhythm: e.Rhythm(), T: float64(e.s.T), Beat: e.s.Beat, Rate: float64(e.monitorRate()),
		CPR: e.CPRGoing(), Seed: h.Sum64()}
}

// Samples fills dst with the trace from ward time from to to, evenly spaced, and returns it.
func (tr Trace) Samples(dst []float64, from, to float64) []float64 {
	n := len(dst)
	for i := range dst {
		t := from
		if n > 1 {
			t += (to - from) * float64(i) / float64(n-1)
		}
		dst[i] = tr.Sample(t)
	}
	return dst
}

// Sample is the trace's voltage, in millivolts, at ward time t.
func (tr Trace) Sample(t float64) float64 {
	v := tr.rhythmAt(t)
	if tr.CPR {
		v += compressionArtefact(t)
	}
	return v
}

func (tr Trace) rhythmAt(t float64) float64 {
	beats := tr.Beat + (t-tr.T)*tr.Rate/60
	switch tr.Rhythm {
	case sc.CoarseVF:
		return tr.fibrillation(t, 1.0)
	case sc.FineVF:
		return tr.fibrillation(t, 0.25)
	case sc.Asystole:
		return 0.015*math.Sin(2*math.Pi*0.21*t) + 0.008*math.Sin(2*math.Pi*0.53*t+1)
	case sc.AtrialFib:
		irregular := beats + 0.12*math.Sin(2*math.Pi*0.37*beats) + 0.08*math.Sin(2*math.Pi*0.61*beats+1.3)
		return beat(noPBeat, irregular) + 0.035*math.Sin(2*math.Pi*6.1*t) + 0.025*math.Sin(2*math.Pi*7.4*t+0.7)
	case sc.SVT:
		return beat(noPBeat, beats)
	case sc.VT, sc.PulselessVT:
		return beat(broadBeat, beats)
	case sc.CompleteHeartBlck:
		return beat(narrowBeat[:1], t*75/60) + beat(broadBeat, beats)
	}
	return beat(narrowBeat, beats) // sinus rhythms and PEA: organised beats at the rate
}

// beat is z at the phase of a beat count: the Gaussian events around the limit cycle.
func beat(waves []wave, beats float64) float64 {
	theta := 2 * math.Pi * (beats - math.Floor(beats+0.5)) // in [−π, π), the R wave at 0
	z := 0.0
	for _, w := range waves {
		if d := theta - w.theta; math.Abs(d) < 5*w.b { // beyond five widths the wave adds nothing a screen shows
			z += w.a * w.b * w.b * math.Exp(-d*d/(2*w.b*w.b))
		}
	}
	return beatScale * z
}

// fibrillation is VF: chaotic undulation of 4–7 Hz whose amplitude wanders, with phases from the
// patient's seed so two patients in VF do not draw the same line.
func (tr Trace) fibrillation(t, amp float64) float64 {
	freqs := [...]float64{4.3, 5.1, 6.2, 3.7}
	v := 0.0
	for i, f := range freqs {
		phase := float64(tr.Seed>>(8*i)&0xff) / 40
		v += math.Sin(2*math.Pi*f*t+phase) / float64(len(freqs))
	}
	return amp * v * (1.2 + 0.5*math.Sin(2*math.Pi*0.23*t+float64(tr.Seed&7)))
}

// compressionArtefact is what chest compressions at 110 a minute add to the trace: broad swings
// that hide the rhythm beneath, which is why the team pauses to look.
func compressionArtefact(t float64) float64 {
	s := math.Sin(2 * math.Pi * 110 / 60 * t)
	return 0.9 * s * math.Abs(s)
}

// Strip is a few seconds of the trace as samples, for `ward run` and its replays: the rhythm
// as the monitor draws it, unnamed.
type Strip struct {
	T       float64   `json:"t"`  // ward time of its last sample
	Hz      float64   `json:"hz"` // samples per second
	Samples []float64 `json:"samples"`
}

// Strip lengths: four seconds at 50 samples a second, in hundredths of a millivolt.
const (
	stripSeconds = 4
	stripHz      = 50
)

// stripEvent samples the last four seconds of the trace when the trainee looks at the rhythm.
func (e *Engine) stripEvent(out []Event) []Event {
	if !e.s.Monitored {
		return out
	}
	t := float64(e.s.T)
	s := Strip{T: t, Hz: stripHz, Samples: make([]float64, stripSeconds*stripHz)}
	e.Trace().Samples(s.Samples, t-stripSeconds+1.0/stripHz, t)
	for i, v := range s.Samples {
		s.Samples[i] = math.Round(v*100) / 100
	}
	return append(out, Event{Kind: EventECG, PatientID: e.s.PatientID, Strip: s})
}
