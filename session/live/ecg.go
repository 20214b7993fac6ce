package live

import (
	"time"

	"github.com/ward-sim/ward/session"
	"github.com/ward-sim/ward/session/physio"
)

// ECGTrace is the active patient's monitor trace, which the vitals pane draws as a strip. It
// gives samples and no rhythm name a screen could show: reading the rhythm is the trainee's job.
type ECGTrace interface {
	// Samples fills dst with the trace from sim time from to to, evenly spaced, in millivolts.
	Samples(dst []float64, from, to time.Duration) []float64
}

// monitorTrace is an engine's trace as a screen samples it.
type monitorTrace struct{ tr physio.Trace }

func (m monitorTrace) Samples(dst []float64, from, to time.Duration) []float64 {
	return m.tr.Samples(dst, from.Seconds(), to.Seconds())
}

// ecgTrace is the patient's trace while a monitor is on them, or nil.
func ecgTrace(p session.PatientView) ECGTrace {
	if !p.Monitored {
		return nil
	}
	return monitorTrace{p.Trace}
}
